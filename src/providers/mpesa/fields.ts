/**
 * How Daraja takes the free texts of its requests (docs/providers.md#m-pesa), shared by the collection adapter
 * (./adapter.ts), the B2C rail (./b2c.ts) and reversals (./reversal.ts).
 */
import { plainText } from '../plain-text';

/** `text` as Daraja takes it in a field of at most `max` characters (letters, digits, spaces); `fallback` if empty. */
export function darajaText(text: string, max: number, fallback: string): string {
  return plainText(text, max, fallback);
}
