/**
 * The envelopes around answers (docs/api.md#errors): success and error of the generic and developer endpoints, and the
 * merchant-scoped error.
 */
import { z } from '../lib/zod';
import { ERROR_CODES } from '../domain/errors';

/** The error envelope of the generic and developer endpoints (docs/api.md#errors). */
export const envelopeError = z.object({
  success: z.literal(false).openapi({ description: 'Always false on an error' }),
  error: z
    .object({
      code: z.enum(ERROR_CODES).openapi({ description: 'What went wrong, one of the documented codes; branch on it' }),
      message: z.string().openapi({ description: 'What went wrong, for a person; may change wording' }),
      details: z
        .array(
          z.object({
            field: z.string().openapi({ description: 'The field, in dotted form (`metadata.order_id`)' }),
            message: z.string().openapi({ description: 'What is wrong with it' }),
          }),
        )
        .optional()
        .openapi({
          description:
            'For `validation_error` (and `documents_missing`): every bad field or missing item, the first being the one the message names',
        }),
    })
    .openapi({ description: 'What went wrong' }),
});

/** The error of the merchant-scoped endpoints (docs/api.md#errors). */
export const plainError = z.object({ error: z.string().openapi({ description: 'What went wrong, for a person' }) });

/** The success envelope around `data`. */
export function envelope<T extends z.ZodType>(data: T) {
  return z.object({
    success: z.literal(true).openapi({ description: 'Always true on a success' }),
    message: z.string().openapi({ description: 'What was done, for a person (`Payment created`)' }),
    data: data.openapi({ description: 'The answer itself' }),
  });
}
