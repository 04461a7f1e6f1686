/**
 * Free texts as the mobile money APIs that take letters, digits and spaces only want them (Daraja's descriptions and
 * remarks, the M-Pesa OpenAPI's item descriptions): shared by the providers that send such texts.
 */

/**
 * `text` reduced to letters, digits and single spaces, cut to at most `max` characters; `fallback` (cut likewise) when
 * nothing is left.
 */
export function plainText(text: string, max: number, fallback: string): string {
  const cleaned = text
    .replace(/[^A-Za-z0-9 ]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, max)
    .trim();
  return cleaned.length > 0 ? cleaned : fallback.slice(0, max);
}
