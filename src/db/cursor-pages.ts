/**
 * Cursor pages of a merchant's resources, newest first (docs/limits.md#lists): the rows created before the one named
 * by `starting_after` (ties by id, descending), one more than asked to tell whether more follow.
 */
import type { Knex } from 'knex';
import { DomainError } from '../domain/errors';
import type { Environment } from '../domain/environment';
import type { Db } from './knex';
import { scopeColumns } from './scoped-rows';

/** The lists' order (docs/limits.md#lists): newest first, ties by id descending (a total order). */
export const NEWEST_FIRST: { column: string; order: 'desc' }[] = [
  { column: 'created_at', order: 'desc' },
  { column: 'id', order: 'desc' },
];

/**
 * Where a row stands in a newest-first list: its creation time exactly as stored (PostgreSQL's text form, to the
 * microsecond) and its id.
 */
export interface ListPosition {
  createdAt: string;
  id: string;
}

/**
 * The list position of row `id` of `table` in the scope's merchant and environment; undefined when the scope has no
 * such row (another merchant's or environment's alike, docs/api.md#merchants-and-environments).
 */
export async function listPositionInScope(
  db: Db,
  table: string,
  scope: { merchantId: string; environment: Environment },
  id: string,
): Promise<ListPosition | undefined> {
  return positionOf(db, db(table).where({ ...scopeColumns(scope), id }));
}

/** The list position of the first row `query` selects (a query of one row by its id); undefined when none. */
export async function positionOf(db: Db, query: Knex.QueryBuilder): Promise<ListPosition | undefined> {
  const row = (await query.first(db.raw('created_at::text as created_at'), 'id')) as
    { created_at: string; id: string } | undefined;
  return row ? { createdAt: row.created_at, id: row.id } : undefined;
}

/** Narrows `query` to the rows after `position` in the newest-first order (created before it; ties by id). */
export function afterPosition(query: Knex.QueryBuilder, position: ListPosition): Knex.QueryBuilder {
  return query.whereRaw('(created_at, id) < (?::timestamptz, ?)', [position.createdAt, position.id]);
}

/**
 * One page of `table`'s rows of the scope's merchant and environment, newest first, narrowed by `filter` (the list's
 * own conditions on the query), each row as `fromRow` makes it. The error names the resources by the table's name in
 * words (`checkout_sessions`: "checkout sessions").
 * @param page.limit the most rows to answer (1–100)
 * @throws DomainError `validation_error` naming `starting_after` when it is not one of the scope's rows
 */
export async function newestFirstPage<Row, Item>(
  db: Db,
  table: string,
  scope: { merchantId: string; environment: Environment },
  page: { startingAfter?: string; limit: number },
  fromRow: (row: Row) => Item,
  filter: (query: Knex.QueryBuilder) => void = () => undefined,
): Promise<{ rows: Item[]; hasMore: boolean }> {
  const query = db(table).where(scopeColumns(scope));
  filter(query);
  if (page.startingAfter) {
    const after = await listPositionInScope(db, table, scope, page.startingAfter);
    const what = table.replaceAll('_', ' ');
    if (!after)
      throw new DomainError('validation_error', `starting_after is not one of your ${what}`, [
        { field: 'starting_after', message: `starting_after is not one of your ${what}` },
      ]);
    afterPosition(query, after);
  }
  const rows = (await query.orderBy(NEWEST_FIRST).limit(page.limit + 1)) as Row[];
  return { rows: rows.slice(0, page.limit).map(fromRow), hasMore: rows.length > page.limit };
}
