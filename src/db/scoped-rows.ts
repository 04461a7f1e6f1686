/** Reading one row of a merchant's environment by id (docs/api.md#merchants-and-environments). */
import type { Environment } from '../domain/environment';
import type { Db } from './knex';

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
  const row = (await db(table).where({ id, merchant_id: scope.merchantId, environment: scope.environment }).first()) as
    Row | undefined;
  return row ? from(row) : undefined;
}
