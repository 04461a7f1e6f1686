/** The pagination of lists (docs/limits.md#lists): page-numbered lists and the cursor-paginated `GET /v1/payments`. */
import { z } from '../lib/zod';

/** Pagination of page-numbered lists; `paginationOf` in src/api/pagination.ts builds it. */
export const pagination = z.object({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  total_pages: z.number().int(),
});

/** Pagination of the cursor-paginated lists (`GET /v1/payments`). */
export const cursorPagination = z.object({
  limit: z.number().int(),
  has_more: z.boolean().openapi({ description: 'True when more items follow the last one of this page' }),
  next_starting_after: z
    .string()
    .nullable()
    .openapi({ description: 'Pass it as `starting_after` for the next page; null on the last page' }),
});
