/** The pagination of lists (docs/limits.md#lists): page-numbered lists and the cursor-paginated `GET /v1/payments`. */
import { z } from '../lib/zod';
import { nullableText } from './fields';

/** Pagination of page-numbered lists; `paginationOf` in src/api/pagination.ts builds it. */
export const pagination = z
  .object({
    page: z.number().int().openapi({ description: 'This page, from 1' }),
    limit: z.number().int().openapi({ description: 'Items a page' }),
    total: z.number().int().openapi({ description: 'Items the filters select, on every page' }),
    total_pages: z.number().int().openapi({ description: 'Pages of `limit` items' }),
  })
  .openapi({ description: 'Where this page stands in the list' });

/** Pagination of the cursor-paginated lists (`GET /v1/payments`). */
export const cursorPagination = z.object({
  limit: z.number().int().openapi({ description: 'Items a page' }),
  has_more: z.boolean().openapi({ description: 'True when more items follow the last one of this page' }),
  next_starting_after: nullableText('Pass it as `starting_after` for the next page; null on the last page'),
});
