/**
 * Page-numbered lists of the developer API (docs/limits.md#lists, docs/live-access.md#audit-log): `page` ≥ 1 (default
 * 1), `limit` 1–100 (default 10).
 */
import { z } from '../lib/zod';

/** The query fields of a paginated list, for `z.strictObject({...pageQueryFields, …})`. */
export const pageQueryFields = {
  page: z.coerce.number().int().min(1).default(1).openapi({ description: 'The page, from 1' }),
  limit: z.coerce.number().int().min(1).max(100).default(10).openapi({ description: 'Items a page, 1 to 100' }),
  /** Read by the session-token authentication (docs/api.md#credentials); accepted here so strict queries allow it. */
  environment: z
    .enum(['sandbox', 'live'])
    .optional()
    .openapi({ description: "With a session token: the environment to read (default sandbox); a key's own otherwise" }),
};

/** `{page, limit, total, total_pages}` of a page of `total` items. */
export function paginationOf(query: { page: number; limit: number }, total: number) {
  return { page: query.page, limit: query.limit, total, total_pages: Math.ceil(total / query.limit) };
}

/**
 * `{limit, has_more, next_starting_after}` of a page of a cursor-paginated list (docs/limits.md#lists): the last
 * item's id to pass as `starting_after` while more items follow, else null.
 */
export function cursorPaginationOf(
  limit: number,
  page: { hasMore: boolean },
  items: readonly { id: string }[],
): { limit: number; has_more: boolean; next_starting_after: string | null } {
  const last = items.at(-1);
  return { limit, has_more: page.hasMore, next_starting_after: page.hasMore && last ? last.id : null };
}

/**
 * The `data` of one page of a cursor-paginated list (docs/limits.md#lists): `{[name]: items as `view` shows them,
 * pagination: {limit, has_more, next_starting_after}}`, in that field order.
 */
export function cursorPageOf<T extends { id: string }, V>(
  name: string,
  limit: number,
  page: { hasMore: boolean },
  items: readonly T[],
  view: (item: T) => V,
): Record<string, V[] | ReturnType<typeof cursorPaginationOf>> {
  return { [name]: items.map((item) => view(item)), pagination: cursorPaginationOf(limit, page, items) };
}
