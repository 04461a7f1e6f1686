/**
 * Cursor pages of a merchant's resources, newest first (docs/limits.md#lists): the rows created before the one named
 * by `starting_after` (ties by id, descending), one more than asked to tell whether more follow.
 */
import type { Knex } from 'knex';
import { DomainError } from '../domain/errors';
import type { Environment } from '../domain/environment';
import type { Db } from './knex';

/**
 * One page of `table`'s rows of the scope's merchant and environment, newest first, narrowed by `filter` (the list's
 * own conditions on the query).
 * @param what the resources in words, for the error (`checkout sessions`)
 * @param limit the most rows to answer (1–100)
 * @throws DomainError `validation_error` naming `starting_after` when it is not one of the scope's rows
 */
export async function newestFirstPage<Row>(
  db: Db,
  table: string,
  scope: { merchantId: string; environment: Environment },
  page: { startingAfter?: string; limit: number; what: string },
  filter: (query: Knex.QueryBuilder) => void = () => undefined,
): Promise<{ rows: Row[]; hasMore: boolean }> {
  const mine = { merchant_id: scope.merchantId, environment: scope.environment };
  const query = db(table).where(mine);
  filter(query);
  if (page.startingAfter) {
    const after = (await db(table)
      .where({ ...mine, id: page.startingAfter })
      .first(db.raw('created_at::text as created_at'), 'id')) as { created_at: string; id: string } | undefined;
    if (!after)
      throw new DomainError('validation_error', `starting_after is not one of your ${page.what}`, [
        { field: 'starting_after', message: `starting_after is not one of your ${page.what}` },
      ]);
    query.whereRaw('(created_at, id) < (?::timestamptz, ?)', [after.created_at, after.id]);
  }
  const rows = (await query
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(page.limit + 1)) as Row[];
  return { rows: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}
