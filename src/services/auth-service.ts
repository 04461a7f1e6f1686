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
  findLimitProfileByDeveloper,
  insertDeveloperWithKey,
  type DeveloperRow,
  type KeyLookup,
  type LimitProfile,
} from '../db/developers';
import { isUniqueViolation, type Db } from '../db/knex';
import type { Environment } from '../domain/environment';
import { DomainError } from '../domain/errors';
import { ID_PREFIXES } from '../domain/ids';
import { newId } from '../lib/ids';
import { DUMMY_PASSWORD_HASH_PROMISE, hashPassword, verifyPassword } from '../lib/passwords';
import { issueSecretKey } from '../lib/secret-keys';
import { signSessionToken, verifySessionToken, type SessionToken } from '../lib/session-tokens';

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
  let row: DeveloperRow;
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
  const session = await signSessionToken(row.id, deps.config.JWT_SECRET, deps.config.SESSION_TTL_SECONDS);
  return {
    developer: developerView(row),
    session,
    apiKey: { id: keyId, environment: 'sandbox', secret: key.secret, last4: key.last4 },
  };
}

/**
 * Checks e-mail and password and signs a session token.
 * @throws DomainError `unauthorized` (401), the same for an unknown e-mail and a wrong password (docs/api.md#sessions)
 */
export async function login(deps: AuthDeps, input: { email: string; password: string }): Promise<SessionToken> {
  const developer = await findDeveloperByEmail(deps.db, input.email);
  const matches = await verifyPassword(input.password, developer?.password_hash ?? (await DUMMY_PASSWORD_HASH_PROMISE));
  if (!developer || !matches) throw new DomainError('unauthorized', 'email or password is incorrect');
  return signSessionToken(developer.id, deps.config.JWT_SECRET, deps.config.SESSION_TTL_SECONDS);
}

/**
 * The secret key whose SHA-256 is `keyHash` (see {@link KeyLookup}: its owner only while it is
 * active, its limit profile whenever it exists). A single read, shared by the rate limits and
 * authentication of one request.
 * @returns undefined for an unknown key
 */
export async function findSecretKey(db: Db, keyHash: string): Promise<KeyLookup | undefined> {
  return findKeyByHash(db, keyHash);
}

/**
 * The developer a session token was signed for (docs/api.md#sessions).
 * @returns undefined when the token is invalid or expired, or names a developer that does not exist
 */
export async function developerOfSession(
  db: Db,
  jwtSecret: string,
  token: string,
): Promise<{ developerId: string; merchantId: string } | undefined> {
  const developerId = await verifySessionToken(token, jwtSecret);
  const developer = developerId ? await findDeveloperById(db, developerId) : undefined;
  return developer ? { developerId: developer.id, merchantId: developer.merchant_id } : undefined;
}

/**
 * The limit profile (docs/limits.md#rate-limits) of a session token's developer in `environment`.
 * @returns undefined when the token is invalid or expired, or names a developer that does not exist
 */
export async function sessionLimitProfile(
  db: Db,
  jwtSecret: string,
  token: string,
  environment: Environment,
): Promise<{ developerId: string; profile: LimitProfile } | undefined> {
  const developerId = await verifySessionToken(token, jwtSecret);
  const profile = developerId ? await findLimitProfileByDeveloper(db, developerId, environment) : undefined;
  return developerId && profile ? { developerId, profile } : undefined;
}
