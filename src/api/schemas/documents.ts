/**
 * Form fields of the document uploads (docs/live-access.md#documents); the file itself is the multipart field
 * `document`.
 */
import { z } from '../../lib/zod';
import { BUSINESS_DOCUMENT_TYPES, DOCUMENT_SIDES, IDENTITY_DOCUMENT_TYPES } from '../../domain/documents';

/**
 * `POST /v1/documents/upload/kyc`: `document_type` is required; `side` (`front`|`back`) is required
 * for `national_id` and refused for the other types.
 */
export const kycUploadFields = z
  .strictObject({
    document_type: z
      .enum(IDENTITY_DOCUMENT_TYPES)
      .openapi({ description: '`national_id`, `passport` or `drivers_licence`' }),
    side: z
      .enum(DOCUMENT_SIDES)
      .optional()
      .openapi({ description: "A national ID's side, `front` or `back`; refused for the others" }),
  })
  .superRefine((fields, ctx) => {
    if (fields.document_type === 'national_id' && fields.side === undefined) {
      ctx.addIssue({ code: 'custom', path: ['side'], message: 'side is required for a national_id: front or back' });
    }
    if (fields.document_type !== 'national_id' && fields.side !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['side'], message: 'side applies to a national_id only' });
    }
  });

/** `POST /v1/documents/upload/business`: `document_type` defaults to `business_registration`. */
export const businessUploadFields = z.strictObject({
  document_type: z
    .enum(BUSINESS_DOCUMENT_TYPES)
    .default('business_registration')
    .openapi({ description: '`business_registration` (default), `tax_identification` or `business_licence`' }),
});
