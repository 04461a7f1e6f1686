/**
 * What the page shows of the merchant (docs/hosted-page.md#what-the-payer-sees): a display name, and where the
 * merchant set them, a brand colour with its text colour and a logo. Without branding, the business name alone.
 */

/**
 * The page's input of the merchant's brand. Colours are `#rrggbb` (anything else is ignored, the page's own colours
 * are used); `textColor` is the colour of text on `brandColor`; `logoUrl` an address this server serves (a path
 * beginning with `/`: the page's CSP loads images from itself only).
 */
export interface PageBrand {
  displayName: string;
  brandColor: string | null;
  textColor: string | null;
  logoUrl: string | null;
}

/** The brand of a merchant without branding: its business name, the page's own colours, no logo. */
export function defaultBrand(businessName: string): PageBrand {
  return { displayName: businessName, brandColor: null, textColor: null, logoUrl: null };
}

const HEX_COLOUR = /^#[0-9a-fA-F]{6}$/;

/** The CSS custom properties of `brand`'s colours (`--brand`, `--brand-text`), or '' when it sets none (valid ones). */
export function brandCss(brand: PageBrand): string {
  const rules: string[] = [];
  if (brand.brandColor && HEX_COLOUR.test(brand.brandColor)) rules.push(`--brand:${brand.brandColor}`);
  if (brand.textColor && HEX_COLOUR.test(brand.textColor)) rules.push(`--brand-text:${brand.textColor}`);
  return rules.length ? `:root{${rules.join(';')}}` : '';
}

/** The logo address when it is one the page may load (a path of this server, not `//host`), else null. */
export function logoPath(brand: PageBrand): string | null {
  return brand.logoUrl && /^\/(?!\/)/.test(brand.logoUrl) ? brand.logoUrl : null;
}
