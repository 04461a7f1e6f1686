/**
 * Time-based one-time passwords (docs/security.md#two-factor): RFC 6238 with SHA-1, 6 digits and 30-second steps,
 * what every authenticator app reads, through the `otpauth` library; and the recovery codes that stand in for
 * a lost device, stored only as SHA-256 hashes.
 */
import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { sha256Hex } from './ids';

/** The issuer shown in authenticator apps. */
const ISSUER = 'PayCollect';
/** Seconds per step (RFC 6238's default). */
export const TOTP_PERIOD_SECONDS = 30;
/** Steps either side of now a code is still taken from, for clocks a little off. */
const WINDOW = 1;

function totpOf(secretBase32: string, label = ''): TOTP {
  return new TOTP({
    issuer: ISSUER,
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: TOTP_PERIOD_SECONDS,
    secret: Secret.fromBase32(secretBase32),
  });
}

/** A new random TOTP secret (160 bits, RFC 4226's recommended length), base32 as apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/** The `otpauth://totp/…` URI of a secret for `account` (an e-mail), for the enrolment QR code. */
export function totpUri(secretBase32: string, account: string): string {
  return totpOf(secretBase32, account).toString();
}

/**
 * The time step (`floor(epoch seconds / 30)`) a 6-digit `code` belongs to, within one step of `nowMs`;
 * undefined when it matches none. Callers refuse a step already used (docs/security.md#two-factor).
 */
export function totpStepOf(secretBase32: string, code: string, nowMs: number = Date.now()): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const delta = totpOf(secretBase32).validate({ token: code, timestamp: nowMs, window: WINDOW });
  if (delta === null) return undefined;
  return Math.floor(nowMs / 1000 / TOTP_PERIOD_SECONDS) + delta;
}

/** The code of a secret at `nowMs` (tests and tools compute what an app would show). */
export function totpCodeAt(secretBase32: string, nowMs: number = Date.now()): string {
  return totpOf(secretBase32).generate({ timestamp: nowMs });
}

/** How many recovery codes a person gets (docs/security.md#two-factor). */
export const RECOVERY_CODE_COUNT = 10;
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** Normalises a typed recovery code: lower case, without spaces or dashes. */
export function normaliseRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

/** The stored hash of a recovery code (as typed, in any case, with or without its dash). */
export function hashRecoveryCode(code: string): string {
  return sha256Hex(`recovery:${normaliseRecoveryCode(code)}`);
}

/** Ten new recovery codes, `xxxxx-xxxxx` from a 31-letter alphabet (about 49 bits each). */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const bytes = randomBytes(10);
    const chars = [...bytes].map((byte) => RECOVERY_ALPHABET[byte % RECOVERY_ALPHABET.length]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}
