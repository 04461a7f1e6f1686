/**
 * Registration and login (docs/api.md#sessions): developers, their first sandbox key
 * (docs/api.md#secret-keys) and session tokens; and what a presented credential stands for
 * (docs/api.md#credentials), for authentication and the rate limits.
 */
import { developerView, type DeveloperView } from '../views/developer';
import type { Config } from '../config';
import {
  findDeveloperByEmail,
  findDeveloperById,
  findKeyByHash,
  findLimitProfile,
  insertDeveloperWithKey,
  replacePassword,
  type AccountRow,
  type KeyLookup,
  type LimitProfile,
} from '../db/developers';
import { isUniqueViolation, type Db } from '../db/knex';
import type { Environment } from '../domain/environment';
import { DomainError, validationError } from '../domain/errors';
import { ID_PREFIXES } from '../domain/ids';
import { newId } from '../lib/ids';
import { DUMMY_PASSWORD_HASH_PROMISE, hashPassword, verifyPassword } from '../lib/passwords';
import { issueSecretKey } from '../lib/secret-keys';
import {
  signLoginChallenge,
  signSessionToken,
  verifyLoginChallenge,
  verifySessionToken,
  type SessionToken,
} from '../lib/session-tokens';
import type { MemberActor, Principal } from '../domain/principal';
import { findSessionMembership, listMembershipsOf } from '../db/team';
import { auditPerson } from './audit';
import { cachedKeyLookup } from './key-cache';
import { endAllSessions } from '../db/two-factor';
import { checkSecondFactor, requireRecentTwoFactor, type SecondFactor } from './two-factor-service';

export type { KeyLookup, LimitProfile };

/** What the auth service needs. */
export interface AuthDeps {
  db: Db;
  config: Pick<Config, 'JWT_SECRET' | 'SESSION_TTL_SECONDS'>;
}

/**
 * The answer of register: the developer, a session and the sandbox key shown once (docs/api.md#sessions,
 * docs/api.md#secret-keys).
 */
export interface Registration {
  developer: DeveloperView;
  session: SessionToken;
  apiKey: { id: string; environment: 'sandbox'; secret: string; last4: string };
}

/**
 * Creates a developer (merchant) with its first sandbox secret key.
 * @throws DomainError `conflict` (409) when the e-mail is already registered
 */
export async function registerDeveloper(
  deps: AuthDeps,
  input: { email: string; password: string; name: string; business_name?: string },
): Promise<Registration> {
  const key = issueSecretKey('sandbox');
  const keyId = newId(ID_PREFIXES.apiKey);
  let row: AccountRow;
  try {
    row = await insertDeveloperWithKey(deps.db, {
      id: newId(ID_PREFIXES.developer),
      merchantId: newId(ID_PREFIXES.merchant),
      email: input.email,
      passwordHash: await hashPassword(input.password),
      name: input.name,
      businessName: input.business_name ?? null,
      key: { id: keyId, hash: key.hash, last4: key.last4 },
    });
  } catch (error) {
    if (isUniqueViolation(error))
      throw new DomainError('conflict', 'a developer with this email is already registered');
    throw error;
  }
  const session = await signSessionToken(
    { personId: row.id, merchantId: row.merchant_id },
    deps.config.JWT_SECRET,
    deps.config.SESSION_TTL_SECONDS,
  );
  return {
    developer: developerView(row),
    session,
    apiKey: { id: keyId, environment: 'sandbox', secret: key.secret, last4: key.last4 },
  };
}

/** The answer of sign-in: a session, or a challenge for the second factor (docs/security.md#two-factor). */
export type LoginAnswer = SessionToken | { two_factor_required: true; challenge: string };

/** The merchant a person signs in to: `requested` when they are a member of it, else their first. */
async function chooseMerchant(db: Db, personId: string, requested?: string): Promise<string> {
  const memberships = await listMembershipsOf(db, personId);
  if (memberships.length === 0) throw new DomainError('forbidden', 'this account is not a member of any merchant');
  if (requested === undefined) return (memberships[0] as { merchant_id: string }).merchant_id;
  if (!memberships.some((m) => m.merchant_id === requested))
    throw new DomainError('forbidden', `this account is not a member of merchant ${requested}`);
  return requested;
}

/**
 * Checks e-mail and password (docs/api.md#sessions) and signs a session in `merchant_id` (default the person's
 * first merchant, docs/security.md#team-members); with two-factor on, answers a 5-minute challenge instead
 * (docs/security.md#two-factor). A refused password is written to the audit log of the person's merchants.
 * @throws DomainError `unauthorized` (401), the same for an unknown e-mail and a wrong password;
 *   `forbidden` (403) for a merchant the person is not a member of
 */
export async function login(
  deps: AuthDeps,
  input: { email: string; password: string; merchant_id?: string },
  request: { ip: string; origin?: Principal['origin'] },
): Promise<LoginAnswer> {
  const developer = await findDeveloperByEmail(deps.db, input.email);
  const matches = await verifyPassword(input.password, developer?.password_hash ?? (await DUMMY_PASSWORD_HASH_PROMISE));
  if (!developer || !matches) {
    if (developer) await auditSignIn(deps.db, developer.id, 'sign_in.failed', request);
    throw new DomainError('unauthorized', 'email or password is incorrect');
  }
  const merchantId = await chooseMerchant(deps.db, developer.id, input.merchant_id);
  if (developer.totp_enabled_at) {
    const challenge = await signLoginChallenge({ personId: developer.id, merchantId }, deps.config.JWT_SECRET);
    return { two_factor_required: true, challenge };
  }
  await auditSignIn(deps.db, developer.id, 'sign_in.succeeded', request, merchantId);
  return signSessionToken(
    { personId: developer.id, merchantId, generation: developer.session_generation },
    deps.config.JWT_SECRET,
    deps.config.SESSION_TTL_SECONDS,
  );
}

/**
 * Completes a sign-in with its second factor (docs/security.md#two-factor): a code or a recovery code for the
 * challenge → a session that counts as confirmed now.
 * @throws DomainError `unauthorized` (401) for an invalid or expired challenge or a wrong, replayed code;
 *   `rate_limited` (429) after too many wrong codes
 */
export async function loginWithSecondFactor(
  deps: AuthDeps,
  input: { challenge: string } & SecondFactor,
  request: { ip: string; origin?: Principal['origin'] },
): Promise<SessionToken> {
  const claims = await verifyLoginChallenge(input.challenge, deps.config.JWT_SECRET);
  if (!claims?.merchantId)
    throw new DomainError('unauthorized', 'the sign-in challenge is invalid or expired; sign in again');
  const who = { personId: claims.personId, merchantId: claims.merchantId };
  const factor: SecondFactor = 'code' in input ? { code: input.code } : { recovery_code: input.recovery_code };
  let generation: number;
  try {
    ({ generation } = await checkSecondFactor(deps, who, factor, request));
  } catch (error) {
    if (error instanceof DomainError && error.code === 'conflict')
      throw new DomainError('unauthorized', 'the sign-in challenge is invalid or expired; sign in again');
    throw error;
  }
  await auditSignIn(deps.db, who.personId, 'sign_in.succeeded', request, who.merchantId);
  return signSessionToken(
    { ...who, twoFactorAt: Math.floor(Date.now() / 1000), generation },
    deps.config.JWT_SECRET,
    deps.config.SESSION_TTL_SECONDS,
  );
}

/**
 * Switches a session to another merchant of the person (docs/security.md#team-members): a new session there; a
 * two-factor confirmation carries over, since the same person gave it.
 * @throws DomainError `forbidden` (403) for a merchant the person is not a member of
 */
export async function switchMerchant(deps: AuthDeps, principal: Principal, merchantId: string): Promise<SessionToken> {
  if (!principal.member) throw new DomainError('forbidden', 'only a signed-in person can switch merchants');
  const chosen = await chooseMerchant(deps.db, principal.member.personId, merchantId);
  return signSessionToken(
    {
      personId: principal.member.personId,
      merchantId: chosen,
      twoFactorAt: principal.member.twoFactorAt,
      generation: principal.member.generation,
    },
    deps.config.JWT_SECRET,
    deps.config.SESSION_TTL_SECONDS,
  );
}

/**
 * Signs the person out everywhere (docs/security.md#sessions): every session token of theirs, this one included,
 * is refused from now on, in every merchant.
 * @throws DomainError `forbidden` (403) for an API key
 */
export async function signOutEverywhere(
  deps: AuthDeps,
  principal: Principal,
  request: { ip: string; origin?: Principal['origin'] },
): Promise<void> {
  if (!principal.member) throw new DomainError('forbidden', 'only a signed-in person can sign out');
  await endAllSessions(deps.db, principal.member.personId);
  await auditPerson(
    deps.db,
    { personId: principal.member.personId, merchantId: principal.merchantId },
    'sign_out.everywhere',
    request,
  );
}

/**
 * Changes the signed-in person's password (docs/security.md#password): the current one must match, and with
 * two-factor on a code from the last 5 minutes is needed (docs/security.md#step-up). Every session of the person
 * ends, in every merchant, and a new one for this merchant is answered (keeping this session's two-factor
 * confirmation, given by the same person). A refused current password is written to the activity log.
 * @param input the current password and the new one (already checked: 10–200 characters, not the current one)
 * @throws DomainError `forbidden` (403) for an API key or without a recent code; `validation_error` (400)
 *   naming `current_password` when it does not match; `unauthorized` (401) when the person no longer exists
 */
export async function changePassword(
  deps: AuthDeps,
  principal: Principal,
  input: { current_password: string; new_password: string },
  request: { ip: string; origin?: Principal['origin'] },
): Promise<SessionToken> {
  const member = principal.member;
  if (!member) throw new DomainError('forbidden', 'only a signed-in person can change their password');
  requireRecentTwoFactor(principal);
  const who = { personId: member.personId, merchantId: principal.merchantId };
  const person = await findDeveloperById(deps.db, who.personId);
  if (!person) throw new DomainError('unauthorized', 'the signed-in person no longer exists');
  if (!(await verifyPassword(input.current_password, person.password_hash))) {
    await auditPerson(deps.db, who, 'password.change_refused', request);
    throw validationError([{ field: 'current_password', message: 'current_password is not your current password' }]);
  }
  const generation = await replacePassword(deps.db, who.personId, await hashPassword(input.new_password));
  if (generation === undefined) throw new DomainError('unauthorized', 'the signed-in person no longer exists');
  await auditPerson(deps.db, who, 'password.changed', request);
  return signSessionToken(
    { ...who, twoFactorAt: member.twoFactorAt, generation },
    deps.config.JWT_SECRET,
    deps.config.SESSION_TTL_SECONDS,
  );
}

/** Writes a sign-in (or a refused password) to the logs of `merchantId`, or of every merchant of the person. */
async function auditSignIn(
  db: Db,
  personId: string,
  action: 'sign_in.succeeded' | 'sign_in.failed',
  request: { ip: string; origin?: Principal['origin'] },
  merchantId?: string,
): Promise<void> {
  const merchants = merchantId ? [merchantId] : (await listMembershipsOf(db, personId)).map((m) => m.merchant_id);
  for (const merchant of merchants) {
    await auditPerson(db, { personId, merchantId: merchant }, action, request);
  }
}

/**
 * The secret key whose SHA-256 is `keyHash` (see {@link KeyLookup}: its owner only while it is
 * active, its limit profile whenever it exists). A single read, shared by the rate limits and
 * authentication of one request, and kept by the process for up to KEY_CACHE_SECONDS (docs/api.md#credentials).
 * @returns undefined for an unknown key
 */
export async function findSecretKey(db: Db, keyHash: string): Promise<KeyLookup | undefined> {
  return cachedKeyLookup(keyHash, (hash) => findKeyByHash(db, hash));
}

/** What a valid session token stands for (docs/security.md#sessions). */
export interface SessionIdentity {
  personId: string;
  merchantId: string;
  /** The merchant's own account. */
  accountId: string;
  member: MemberActor;
}

/**
 * The person and merchant of a session token, checked against the database on every request: the person must
 * still be a member of the merchant (a removed member's next request is refused) and the token must be signed
 * after the person's last two-factor change (docs/security.md#sessions).
 * @returns undefined when the token is invalid, expired, revoked or its person is no longer a member
 */
export async function sessionOf(db: Db, jwtSecret: string, token: string): Promise<SessionIdentity | undefined> {
  const claims = await verifySessionToken(token, jwtSecret);
  if (!claims) return undefined;
  const merchantId = claims.merchantId ?? (await listMembershipsOf(db, claims.personId))[0]?.merchant_id;
  if (!merchantId) return undefined;
  const membership = await findSessionMembership(db, claims.personId, merchantId);
  if (!membership) return undefined;
  if (claims.generation !== membership.sessionGeneration) return undefined;
  return {
    personId: claims.personId,
    merchantId,
    accountId: membership.accountId,
    member: {
      personId: claims.personId,
      role: membership.role,
      twoFactorAt: claims.twoFactorAt,
      twoFactorEnabled: membership.twoFactorEnabled,
      generation: membership.sessionGeneration,
    },
  };
}

/**
 * The limit profile (docs/limits.md#rate-limits) of a session token's merchant in `environment`.
 * @returns undefined when the token is invalid or expired, or names a developer that does not exist
 */
export async function sessionLimitProfile(
  db: Db,
  jwtSecret: string,
  token: string,
  environment: Environment,
): Promise<{ developerId: string; profile: LimitProfile } | undefined> {
  const claims = await verifySessionToken(token, jwtSecret);
  const profile = claims ? await findLimitProfile(db, claims, environment) : undefined;
  return claims && profile ? { developerId: claims.personId, profile } : undefined;
}
