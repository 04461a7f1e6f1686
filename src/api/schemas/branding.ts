/** The body of `PUT /v1/developer/branding` (docs/branding.md#api). */
import { z } from '../../lib/zod';
import { trimmedText } from './fields';
import { BRAND_COLOR_PATTERN, MAX_DISPLAY_NAME_LENGTH } from '../../domain/branding';

/** The text fields of a branding change: an absent field keeps its value, null clears it (JSON only). */
export const brandingBody = z.strictObject({
  display_name: trimmedText(MAX_DISPLAY_NAME_LENGTH)
    .nullable()
    .optional()
    .openapi({
      description: `The name the payment page shows, 1 to ${MAX_DISPLAY_NAME_LENGTH} characters; null: your business name`,
      example: 'Kigali Crafts',
    }),
  brand_color: z
    .string()
    .regex(BRAND_COLOR_PATTERN, 'brand_color must be a colour written #rrggbb (six hexadecimal digits)')
    .nullable()
    .optional()
    .openapi({ description: 'The brand colour, `#rrggbb`; null: the page keeps its own', example: '#0b6e4f' }),
});

/** A parsed branding body. */
export type BrandingBody = z.infer<typeof brandingBody>;
