/**
 * Reading one row by id: of a merchant's environment (docs/api.md#merchants-and-environments), or of whoever owns it
 * for the service's own readers.
 */
import type { Environment } from '../domain/environment';
import type { Db } from './knex';

/** The columns that hold a row's merchant and environment, as a `where` of the scope's rows takes them. */
export function scopeColumns(scope: { merchantId: string; environment: Environment }): {
  merchant_id: string;
  environment: Environment;
} {
  return { merchant_id: scope.merchantId, environment: scope.environment };
}

/**
 * Row `id` of `table` in the scope's merchant and environment, as `from` maps it; undefined for an unknown id and for
 * another merchant's or environment's alike, so a caller cannot tell them apart.
 */
export async function findInScope<Row, Result>(
  db: Db,
  table: string,
  scope: { merchantId: string; environment: Environment },
  id: string,
  from: (row: Row) => Result,
): Promise<Result | undefined> {
  const row = (await db(table)
    .where({ id, ...scopeColumns(scope) })
    .first()) as Row | undefined;
  return row ? from(row) : undefined;
}

/**
 * Row `id` of `table` whoever owns it, as `from` maps it; undefined when none is stored. For the service's own readers
 * (workflows and activities, which got the id from their own records, and public addresses whose capability is the
 * id), never for a merchant's request: that one reads with {@link findInScope}.
 */
export async function findById<Row, Result>(
  db: Db,
  table: string,
  id: string,
  from: (row: Row) => Result,
): Promise<Result | undefined> {
  const row = (await db(table).where({ id }).first()) as Row | undefined;
  return row ? from(row) : undefined;
}
