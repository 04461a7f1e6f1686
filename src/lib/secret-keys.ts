/**
 * Secret keys (docs/api.md#secret-keys): `sk_sandbox_`/`sk_live_` + 32 base62 characters, stored as SHA-256 + last 4.
 */
import { randomBytes } from 'node:crypto';
import { randomBase62 } from '../domain/ids';
import type { Environment } from '../domain/environment';
import { sha256Hex } from './ids';

/** A new key as shown once to its owner, and what is stored of it. */
export interface IssuedKey {
  secret: string;
  hash: string;
  last4: string;
}

/** The shape of a secret key (docs/api.md#secret-keys). */
export const SECRET_KEY_PATTERN = /^sk_(sandbox|live)_[0-9A-Za-z]{32}$/;

/** Issues a new secret key of `environment`. */
export function issueSecretKey(environment: Environment): IssuedKey {
  const secret = `sk_${environment}_${randomBase62(32, randomBytes)}`;
  return { secret, hash: sha256Hex(secret), last4: secret.slice(-4) };
}

/** The stored hash of a presented key. */
export function hashSecretKey(secret: string): string {
  return sha256Hex(secret);
}
