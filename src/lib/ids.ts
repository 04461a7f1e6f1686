/**
 * Id generation with node:crypto for code outside workflows (the API and activities). Workflows
 * never import this; they get ids from their input or from activities.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { base62FromDigest, ID_RANDOM_LENGTH, randomBase62 } from '../domain/ids';

/** A new random id: `prefix` + 24 base62 characters (docs/payments.md#payment-record). */
export function newId(prefix: string): string {
  return prefix + randomBase62(ID_RANDOM_LENGTH, randomBytes);
}

/**
 * An id derived from `seed` (sha256 → 24 base62 characters), so a retried step yields the same id
 * (docs/payments.md#events: an event id derived from the workflow and step cannot be written twice).
 */
export function deriveId(prefix: string, seed: string): string {
  return prefix + base62FromDigest(createHash('sha256').update(seed).digest(), ID_RANDOM_LENGTH);
}

/**
 * An id derived from `seed` under the server's `secret` (HMAC-SHA256 → 24 base62 characters, about 142 bits): a
 * retried step yields the same id, and nobody without the secret can compute it from what they know of the seed. For
 * ids that are capabilities (a checkout session's, docs/checkout.md#api); `purpose` keeps one use's ids apart from
 * another's under the same secret.
 */
export function deriveSecretId(prefix: string, secret: string, purpose: string, seed: string): string {
  const digest = createHmac('sha256', secret).update(`${purpose}\n${seed}`).digest();
  return prefix + base62FromDigest(digest, ID_RANDOM_LENGTH);
}

/** Lower-case hex SHA-256 of a UTF-8 string or bytes. */
export function sha256Hex(value: string | Uint8Array): string {
  return createHash('sha256').update(value).digest('hex');
}
