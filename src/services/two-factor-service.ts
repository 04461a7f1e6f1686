/**
 * Two-factor sign-in (docs/security.md#two-factor): enrolment with a TOTP secret, confirmation with a first code
 * and ten recovery codes shown once, turning it off, checking a code (each good once, wrong ones limited per
 * person and per IP address), and the step-up check that a sensitive change had a code in the last 5 minutes.
 */
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import {
  countRecoveryCodesLeft,
  disableTwoFactor,
  enableTwoFactor,
  findTwoFactor,
  setPendingSecret,
  takeTotpStep,
  useRecoveryCode,
} from '../db/two-factor';
import { DomainError, validationError } from '../domain/errors';
import type { Principal } from '../domain/principal';
import { openSealedSecret, sealSecret } from '../lib/sealed-secrets';
import { signSessionToken, type SessionToken } from '../lib/session-tokens';
import { hashRecoveryCode, newRecoveryCodes, newTotpSecret, totpStepOf, totpUri } from '../lib/totp';
import { auditPerson } from './audit';

/** What two-factor needs. */
export interface TwoFactorDeps {
  db: Db;
  config: Pick<Config, 'JWT_SECRET' | 'SESSION_TTL_SECONDS'>;
}

/** How recent a code must be for a sensitive change (docs/security.md#step-up): 5 minutes, in seconds. */
export const STEP_UP_SECONDS = 300;
/** Wrong codes allowed per person in {@link WRONG_CODE_WINDOW_SECONDS} (docs/security.md#two-factor). */
export const WRONG_CODES_PER_PERSON = 5;
/** Wrong codes allowed per IP address in {@link WRONG_CODE_WINDOW_SECONDS}. */
export const WRONG_CODES_PER_IP = 20;
/** The window wrong codes are counted in, in seconds (15 minutes). */
export const WRONG_CODE_WINDOW_SECONDS = 900;

/** A session of `personId` in `merchantId`, of session `generation`, confirmed now when `confirmed`. */
async function sessionAfterChange(
  deps: TwoFactorDeps,
  who: { personId: string; merchantId: string },
  generation: number,
  confirmed: boolean,
): Promise<SessionToken> {
  const twoFactorAt = confirmed ? Math.floor(Date.now() / 1000) : null;
  return signSessionToken({ ...who, twoFactorAt, generation }, deps.config.JWT_SECRET, deps.config.SESSION_TTL_SECONDS);
}

/** A presented second factor: a 6-digit code from the app, or one of the recovery codes. */
export type SecondFactor = { code: string } | { recovery_code: string };

const limiters = new WeakMap<Db, { person: RateLimiterPostgres; ip: RateLimiterPostgres }>();

/** The wrong-code counters, in PostgreSQL so every API process shares them. */
function wrongCodeLimiters(db: Db): { person: RateLimiterPostgres; ip: RateLimiterPostgres } {
  let found = limiters.get(db);
  if (!found) {
    const common = {
      storeClient: db,
      storeType: 'knex',
      tableName: 'rate_limits',
      tableCreated: true,
      duration: WRONG_CODE_WINDOW_SECONDS,
      clearExpiredByTimeout: false,
    };
    found = {
      person: new RateLimiterPostgres({ ...common, keyPrefix: 'tfa_person', points: WRONG_CODES_PER_PERSON }),
      ip: new RateLimiterPostgres({ ...common, keyPrefix: 'tfa_ip', points: WRONG_CODES_PER_IP }),
    };
    limiters.set(db, found);
  }
  return found;
}

/** @throws DomainError `rate_limited` (429) while the person or the IP address has used up its wrong codes */
async function refuseWhileLimited(db: Db, personId: string, ip: string): Promise<void> {
  const { person, ip: byIp } = wrongCodeLimiters(db);
  const [mine, theirs] = await Promise.all([person.get(personId), byIp.get(ip)]);
  const blocked = [
    mine && mine.consumedPoints >= WRONG_CODES_PER_PERSON ? mine : undefined,
    theirs && theirs.consumedPoints >= WRONG_CODES_PER_IP ? theirs : undefined,
  ].filter((state) => state !== undefined);
  if (blocked.length === 0) return;
  const seconds = Math.ceil(Math.max(...blocked.map((state) => state.msBeforeNext)) / 1000);
  throw new DomainError('rate_limited', `too many wrong codes; retry in ${seconds} seconds`);
}

/** Counts one wrong code against the person and the IP address. */
async function countWrongCode(db: Db, personId: string, ip: string): Promise<void> {
  const { person, ip: byIp } = wrongCodeLimiters(db);
  // consume() rejects once past its points; the count is what matters here.
  await Promise.allSettled([person.consume(personId), byIp.consume(ip)]);
}

/**
 * Checks a second factor of `personId` (docs/security.md#two-factor): a TOTP code is taken once (its time step
 * is used up, so the same code, or an older one, fails until the next step), a recovery code once ever. A wrong
 * or replayed code counts against the person and the IP address and is written to the audit log of `merchantId`.
 * @returns the person's session generation, for the session signed next
 * @throws DomainError `rate_limited` (429) after too many wrong codes; `unauthorized` (401) for a wrong,
 *   replayed, expired or malformed code; `conflict` (409) when two-factor is off
 */
export async function checkSecondFactor(
  deps: TwoFactorDeps,
  who: { personId: string; merchantId: string },
  factor: SecondFactor,
  request: { ip: string; origin?: Principal['origin'] },
): Promise<{ generation: number }> {
  await refuseWhileLimited(deps.db, who.personId, request.ip);
  const state = await findTwoFactor(deps.db, who.personId);
  if (!state?.totp_secret) throw new DomainError('conflict', 'two-factor sign-in is not on for this account');
  let accepted: boolean;
  if ('code' in factor) {
    const step = totpStepOf(openSealedSecret(state.totp_secret, deps.config.JWT_SECRET), factor.code);
    accepted = step !== undefined && (await takeTotpStep(deps.db, who.personId, step));
  } else {
    accepted = await useRecoveryCode(deps.db, who.personId, hashRecoveryCode(factor.recovery_code));
  }
  if (accepted) return { generation: state.session_generation };
  await countWrongCode(deps.db, who.personId, request.ip);
  await auditPerson(deps.db, who, 'two_factor.code_refused', request);
  throw new DomainError(
    'unauthorized',
    'code' in factor
      ? 'the code is wrong, expired or already used; enter the current code from your app'
      : 'the recovery code is wrong or already used',
  );
}

/**
 * A wrong code sent within a valid session (confirm, step-up) is bad input, 400 naming the field, not a bad
 * credential: 401 would end the session it was sent in (docs/security.md#two-factor).
 */
function wrongCodeInSession(field: 'code' | 'recovery_code', message: string): DomainError {
  return validationError([{ field, message }]);
}

/** The signed-in person of a session. @throws DomainError `forbidden` (403) for an API key */
function personOf(principal: Principal): string {
  if (!principal.member) throw new DomainError('forbidden', 'two-factor settings belong to a signed-in person');
  return principal.member.personId;
}

/** The answer of enrolment: the secret for copying and the `otpauth://` URI for the QR code. */
export interface Enrolment {
  secret: string;
  otpauth_uri: string;
}

/**
 * Starts enrolment (docs/security.md#two-factor): a new secret waits, sealed, for its first code; an
 * enrolment begun earlier is replaced.
 * @throws DomainError `conflict` (409) when two-factor is already on
 */
export async function enrollTwoFactor(deps: TwoFactorDeps, principal: Principal): Promise<Enrolment> {
  const personId = personOf(principal);
  const state = await findTwoFactor(deps.db, personId);
  if (!state) throw new DomainError('unauthorized', 'the signed-in person no longer exists');
  if (state.totp_enabled_at) throw new DomainError('conflict', 'two-factor sign-in is already on; turn it off first');
  const secret = newTotpSecret();
  await setPendingSecret(deps.db, personId, sealSecret(secret, deps.config.JWT_SECRET));
  return { secret, otpauth_uri: totpUri(secret, state.email) };
}

/** The answer of confirmation: recovery codes shown once, and a new session (other sessions end). */
export interface Confirmation extends SessionToken {
  recovery_codes: string[];
}

/**
 * Confirms enrolment with the first code (docs/security.md#two-factor): turns two-factor on, answers ten
 * recovery codes (stored only hashed) and a fresh session that counts as confirmed now; every other session of
 * the person ends.
 * @throws DomainError `conflict` (409) with no enrolment waiting or two-factor already on; `validation_error`
 *   (400) for a wrong code; `rate_limited` (429) after too many
 */
export async function confirmTwoFactor(
  deps: TwoFactorDeps,
  principal: Principal,
  code: string,
  ip: string,
): Promise<Confirmation> {
  const personId = personOf(principal);
  await refuseWhileLimited(deps.db, personId, ip);
  const state = await findTwoFactor(deps.db, personId);
  if (state?.totp_enabled_at) throw new DomainError('conflict', 'two-factor sign-in is already on');
  if (!state?.totp_pending_secret)
    throw new DomainError('conflict', 'no enrolment is waiting; start with POST /v1/developer/2fa/enroll');
  const step = totpStepOf(openSealedSecret(state.totp_pending_secret, deps.config.JWT_SECRET), code);
  if (step === undefined || !(await takeTotpStep(deps.db, personId, step))) {
    await countWrongCode(deps.db, personId, ip);
    throw wrongCodeInSession('code', 'the code is wrong or expired; enter the current code from your app');
  }
  const codes = newRecoveryCodes();
  const generation = await enableTwoFactor(deps.db, personId, state.totp_pending_secret, codes.map(hashRecoveryCode));
  if (generation === undefined) throw new DomainError('conflict', 'another enrolment began meanwhile; start again');
  await auditPerson(deps.db, { personId, merchantId: principal.merchantId }, 'two_factor.enabled', {
    ip,
    origin: principal.origin,
  });
  const session = await sessionAfterChange(deps, { personId, merchantId: principal.merchantId }, generation, true);
  return { ...session, recovery_codes: codes };
}

/**
 * Step-up (docs/security.md#step-up): confirms a code in the current session and answers a new session token that
 * carries the time of this confirmation.
 * @throws as {@link checkSecondFactor}, but `validation_error` (400) for a wrong or replayed code
 */
export async function verifyTwoFactor(
  deps: TwoFactorDeps,
  principal: Principal,
  factor: SecondFactor,
  ip: string,
): Promise<SessionToken> {
  const personId = personOf(principal);
  let generation: number;
  try {
    ({ generation } = await checkSecondFactor(deps, { personId, merchantId: principal.merchantId }, factor, {
      ip,
      origin: principal.origin,
    }));
  } catch (error) {
    if (!(error instanceof DomainError) || error.code !== 'unauthorized') throw error;
    throw wrongCodeInSession('code' in factor ? 'code' : 'recovery_code', error.message);
  }
  return sessionAfterChange(deps, { personId, merchantId: principal.merchantId }, generation, true);
}

/**
 * Turns two-factor off (docs/security.md#two-factor): needs a code from the last 5 minutes; every session of the
 * person ends, this one included, and a new one is answered.
 * @throws DomainError `forbidden` (403) without a recent code; `conflict` (409) when it is off
 */
export async function turnOffTwoFactor(deps: TwoFactorDeps, principal: Principal, ip: string): Promise<SessionToken> {
  const personId = personOf(principal);
  requireRecentTwoFactor(principal);
  const state = await findTwoFactor(deps.db, personId);
  if (!state?.totp_enabled_at) throw new DomainError('conflict', 'two-factor sign-in is not on');
  const generation = await disableTwoFactor(deps.db, personId);
  await auditPerson(deps.db, { personId, merchantId: principal.merchantId }, 'two_factor.disabled', {
    ip,
    origin: principal.origin,
  });
  return sessionAfterChange(deps, { personId, merchantId: principal.merchantId }, generation, false);
}

/** Whether the person has two-factor on and how many recovery codes are left. */
export async function twoFactorStatus(
  deps: TwoFactorDeps,
  principal: Principal,
): Promise<{ enabled: boolean; recovery_codes_left: number }> {
  const personId = personOf(principal);
  const state = await findTwoFactor(deps.db, personId);
  return {
    enabled: Boolean(state?.totp_enabled_at),
    recovery_codes_left: await countRecoveryCodesLeft(deps.db, personId),
  };
}

/**
 * The step-up check for sensitive changes (docs/security.md#step-up): live key rolls, team changes, turning
 * two-factor off and live payout destinations. A session of a person with two-factor on must carry a code
 * confirmed in the last 5 minutes; a person without two-factor has no second factor to give, and API keys are
 * not sessions, so both pass (keys cannot reach the session-only endpoints that call this).
 * @param nowMs the current time in milliseconds
 * @throws DomainError `forbidden` (403) naming `POST /v1/developer/2fa/verify`
 */
export function requireRecentTwoFactor(principal: Principal, nowMs: number = Date.now()): void {
  const member = principal.member;
  if (!member?.twoFactorEnabled) return;
  const confirmedAt = member.twoFactorAt;
  if (confirmedAt !== null && nowMs / 1000 - confirmedAt <= STEP_UP_SECONDS) return;
  throw new DomainError(
    'forbidden',
    'this change needs a two-factor code from the last 5 minutes; confirm one with POST /v1/developer/2fa/verify',
  );
}
