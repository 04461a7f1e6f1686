/**
 * Sealing a secret for a short stay in the database (docs/api.md#secret-keys): the first live key is created by the
 * review workflow's activity but shown to the developer only once, later, through the API; until
 * then it is stored encrypted (AES-256-GCM) under a key derived from JWT_SECRET with HKDF, never
 * in plaintext. Rotating JWT_SECRET makes keys not yet revealed unreadable (they can be rolled).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const INFO = 'paycollect/live-key-reveal/v1';

function sealingKey(masterSecret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', masterSecret, 'paycollect', INFO, 32));
}

/** Encrypts `plaintext` as `v1.<iv>.<tag>.<ciphertext>` (base64url parts). */
export function sealSecret(plaintext: string, masterSecret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(masterSecret), iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv, cipher.getAuthTag(), ciphertext]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/**
 * Decrypts what {@link sealSecret} produced.
 * @throws Error when the value is malformed, tampered with, or sealed under another secret
 */
export function openSealedSecret(sealed: string, masterSecret: string): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== VERSION || !iv || !tag || ciphertext === undefined) throw new Error('malformed sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(masterSecret), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
