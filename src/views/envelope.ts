/**
 * The envelopes around answers (docs/api.md#errors): success and error of the generic and developer endpoints, and the
 * merchant-scoped error.
 */
import { z } from '../lib/zod';
import { ERROR_CODES } from '../domain/errors';

/** The error envelope of the generic and developer endpoints (docs/api.md#errors). */
export const envelopeError = z.object({
  success: z.literal(false),
  error: z.object({
    code: z.enum(ERROR_CODES),
    message: z.string(),
    details: z
      .array(z.object({ field: z.string(), message: z.string() }))
      .optional()
      .openapi({
        description:
          'For `validation_error` (and `documents_missing`): every bad field or missing item, the first being the one the message names',
      }),
  }),
});

/** The error of the merchant-scoped endpoints (docs/api.md#errors). */
export const plainError = z.object({ error: z.string() });

/** The success envelope around `data`. */
export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), message: z.string(), data });
}
