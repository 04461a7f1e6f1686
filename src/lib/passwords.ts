/** Password hashing with scrypt from node:crypto (docs/api.md#sessions: a memory-hard hash). */
import { randomBytes, scrypt as scryptCallback, type ScryptOptions } from 'node:crypto';
import { sameSecret } from './constant-time';

const PARAMS = { N: 16384, r: 8, p: 1 } as const;
const KEY_BYTES = 64;

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password, salt, KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** Hashes a password as `scrypt$N$r$p$<salt b64>$<key b64>`. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** True when `password` matches `stored` (constant-time comparison). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p) });
  return sameSecret(actual, expected);
}

/**
 * A hash of a random password, verified against when the e-mail is unknown so both cost the same
 * (docs/api.md#sessions).
 */
export const DUMMY_PASSWORD_HASH_PROMISE = hashPassword(randomBytes(16).toString('hex'));
