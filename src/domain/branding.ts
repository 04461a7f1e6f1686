/**
 * A merchant's branding (docs/branding.md): the display name and brand colour its hosted payment page shows, the
 * text colour the page writes on the brand colour, and the logo's limits. Pure: the contrast is computed with the
 * maintained `colord` library and its a11y plugin (WCAG 2 relative luminance and contrast ratio).
 */
import { colord, extend } from 'colord';
import a11yPlugin from 'colord/plugins/a11y';

extend([a11yPlugin]);

/** Longest display name, in characters (it heads the page on a 390 px phone). */
export const MAX_DISPLAY_NAME_LENGTH = 60;

/** Largest logo, in bytes (docs/branding.md#logo: 512 kB, read as 512 KiB = 524,288 bytes). */
export const MAX_LOGO_BYTES = 512 * 1024;

/** The logo types a merchant may upload, as detected from the bytes (docs/branding.md#logo). */
export const LOGO_CONTENT_TYPES = ['image/png', 'image/jpeg', 'image/svg+xml'] as const;

/** One accepted logo type. */
export type LogoContentType = (typeof LOGO_CONTENT_TYPES)[number];

/** A brand colour as the API takes it: `#` and six hexadecimal digits, either case. */
export const BRAND_COLOR_PATTERN = /^#[0-9a-fA-F]{6}$/;

/** The contrast WCAG 2 level AA asks of normal text against its background (docs/branding.md#colours). */
export const AA_CONTRAST = 4.5;

/** The two text colours the page chooses between. */
export const LIGHT_TEXT = '#ffffff';
/** See {@link LIGHT_TEXT}. */
export const DARK_TEXT = '#000000';

/**
 * The WCAG 2 contrast ratio of two `#rrggbb` colours, from 1 to 21, rounded down to two decimals (as colord does, so
 * a pair is never said to reach a level it misses by a hair).
 */
export function contrastRatio(a: string, b: string): number {
  return colord(a).contrast(b);
}

/**
 * The text colour for buttons and headers on `brandColor` (`#rrggbb`, docs/branding.md#colours): white when white
 * reaches WCAG AA (4.5:1) on it, else black, which then always does (a background too light for white has a relative
 * luminance above 0.183, so black's contrast on it is above 4.67). Either way the pair reaches AA.
 */
export function textColorOn(brandColor: string): typeof LIGHT_TEXT | typeof DARK_TEXT {
  return contrastRatio(brandColor, LIGHT_TEXT) >= AA_CONTRAST ? LIGHT_TEXT : DARK_TEXT;
}

/** `#RRGGBB` in the stored form, lower-case. */
export function normalizeBrandColor(color: string): string {
  return color.toLowerCase();
}
