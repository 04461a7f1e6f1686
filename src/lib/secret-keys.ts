/**
 * API keys (docs/api.md#secret-keys, docs/security.md#restricted-keys): secret keys `sk_sandbox_`/`sk_live_` and
 * restricted keys `rk_sandbox_`/`rk_live_`, each + 32 base62 characters, stored as SHA-256 + last 4.
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

/** The shape of any API key, secret or restricted (docs/security.md#restricted-keys). */
export const API_KEY_PATTERN = /^(sk|rk)_(sandbox|live)_[0-9A-Za-z]{32}$/;

/** True when a presented credential is meant as an API key (`sk_…` or `rk_…`), not a session token. */
export function looksLikeApiKey(credential: string): boolean {
  return credential.startsWith('sk_') || credential.startsWith('rk_');
}

/** Issues a new key of `environment`: a secret key, or a restricted one (`rk_…`) when `restricted`. */
export function issueSecretKey(environment: Environment, restricted = false): IssuedKey {
  const secret = `${restricted ? 'rk' : 'sk'}_${environment}_${randomBase62(32, randomBytes)}`;
  return { secret, hash: sha256Hex(secret), last4: secret.slice(-4) };
}

/** The stored hash of a presented key. */
export function hashSecretKey(secret: string): string {
  return sha256Hex(secret);
}
