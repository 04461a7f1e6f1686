/**
 * Numbered pages of a list, newest first (docs/limits.md#lists): page `n` of `limit` rows, with the number of rows the
 * list's conditions select on every page.
 */
import type { Knex } from 'knex';
import { NEWEST_FIRST } from './cursor-pages';

/**
 * Page `page.page` (from 1) of `page.limit` rows of `query`, newest first (ties by id, descending), and `total`, the
 * rows `query` selects in all. `query` holds the list's conditions and is not changed.
 */
export async function numberedNewestFirstPage<Row>(
  query: Knex.QueryBuilder,
  page: { page: number; limit: number },
): Promise<{ rows: Row[]; total: number }> {
  const [{ total }] = (await query.clone().count('id as total')) as unknown as [{ total: number }];
  const rows = (await query
    .clone()
    .orderBy(NEWEST_FIRST)
    .limit(page.limit)
    .offset((page.page - 1) * page.limit)) as Row[];
  return { rows, total: Number(total) };
}
