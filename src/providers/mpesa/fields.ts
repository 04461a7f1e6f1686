/**
 * How Daraja takes the free texts of its requests (docs/providers.md#m-pesa), shared by the collection adapter
 * (./adapter.ts), the B2C rail (./b2c.ts) and reversals (./reversal.ts).
 */

/** `text` as Daraja takes it in a field of at most `max` characters (letters, digits, spaces); `fallback` if empty. */
export function darajaText(text: string, max: number, fallback: string): string {
  const cleaned = text
    .replace(/[^A-Za-z0-9 ]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, max)
    .trim();
  return cleaned.length > 0 ? cleaned : fallback.slice(0, max);
}
