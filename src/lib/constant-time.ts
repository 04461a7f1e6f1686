/** Comparing secrets (tokens, signatures, password hashes) without leaking where they differ. */
import { timingSafeEqual } from 'node:crypto';

/**
 * True when `a` and `b` hold the same bytes (strings as UTF-8), compared in constant time for equal lengths; unequal
 * lengths answer false at once (a length is not secret).
 */
export function sameSecret(a: string | Buffer, b: string | Buffer): boolean {
  const left = typeof a === 'string' ? Buffer.from(a) : a;
  const right = typeof b === 'string' ? Buffer.from(b) : b;
  return left.length === right.length && timingSafeEqual(left, right);
}
