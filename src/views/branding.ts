/**
 * The API form of a merchant's branding (docs/branding.md#api): display name, brand colour, the text colour the page
 * writes on it, and the logo's type, size (bytes) and sha256, never its bytes. Times ISO 8601 UTC.
 */
import { z } from '../lib/zod';
import { LOGO_CONTENT_TYPES } from '../domain/branding';
import { timestamp } from './timestamp';
import { nullableText, objectName } from './fields';

/** A merchant's branding as answered. */
export const branding = z
  .object({
    object: objectName('branding'),
    display_name: nullableText('The name the payment page shows; null: it shows your business name'),
    brand_color: nullableText('The brand colour, `#rrggbb` in lower case; null: the page keeps its own'),
    text_color: z.enum(['#ffffff', '#000000']).nullable().openapi({
      description:
        'The text colour the page writes on the brand colour: white when it reaches WCAG AA contrast (4.5:1), else black; null without a brand colour',
    }),
    logo: z
      .object({
        content_type: z.enum(LOGO_CONTENT_TYPES).openapi({ description: 'The type read from the bytes' }),
        size: z.number().int().openapi({ description: 'Size in bytes (an SVG: once sanitised)' }),
        sha256: z.string().openapi({ description: 'SHA-256 of the stored bytes, lower-case hex' }),
        updated_at: timestamp.openapi({ description: 'When it was uploaded' }),
      })
      .nullable()
      .openapi({ description: 'The logo; null when there is none' }),
    updated_at: timestamp.nullable().openapi({ description: 'When the branding last changed; null if never' }),
  })
  .openapi('Branding');

/** The branding as answered. */
export type BrandingView = z.output<typeof branding>;

/** What {@link toBrandingView} reads: the merchant's branding and its text colour. */
export interface BrandingSource {
  displayName: string | null;
  brandColor: string | null;
  textColor: string | null;
  logo: { contentType: (typeof LOGO_CONTENT_TYPES)[number]; size: number; sha256: string; updatedAt: string } | null;
  updatedAt: string | null;
}

/** The API form of `source`. */
export function toBrandingView(source: BrandingSource): BrandingView {
  return {
    object: 'branding',
    display_name: source.displayName,
    brand_color: source.brandColor,
    text_color: source.textColor as BrandingView['text_color'],
    logo: source.logo
      ? {
          content_type: source.logo.contentType,
          size: source.logo.size,
          sha256: source.logo.sha256,
          updated_at: source.logo.updatedAt,
        }
      : null,
    updated_at: source.updatedAt,
  };
}
