/** Repository of developers (docs/api.md) and their secret keys (docs/api.md#secret-keys). */
import type { Knex } from 'knex';
import type { Db } from './knex';
import { NEWEST_FIRST } from './cursor-pages';
import type { Scope } from '../domain/access';
import type { Environment } from '../domain/environment';

/**
 * A developer row; `merchant_id` identifies the merchant in every other table (docs/api.md#merchants-and-environments).
 */
export interface DeveloperRow {
  id: string;
  /** The merchant this developer registered; null for a person who only joined others' teams. */
  merchant_id: string | null;
  email: string;
  password_hash: string;
  name: string;
  business_name: string | null;
  country: string | null;
  phone: string | null;
  /** docs/availability.md#api-create: API creates to a `down` operator are refused. */
  refuse_when_provider_down: boolean;
  /** The IANA time zone the dashboard shows times in (docs/api.md#profile); null: the browser's. */
  time_zone: string | null;
  plan: string;
  has_live_access: boolean;
  /** When two-factor sign-in was turned on (docs/security.md#two-factor); null while off. */
  totp_enabled_at: Date | null;
  /** Raised by a two-factor change; session tokens of an earlier generation are refused. */
  session_generation: number;
  created_at: Date;
  updated_at: Date;
}

/** The merchant and environment a secret key authenticates (docs/api.md#credentials). */
export interface KeyOwner {
  keyId: string;
  merchantId: string;
  developerId: string;
  environment: Environment;
  /** A restricted key's scopes (docs/security.md#restricted-keys); undefined for a secret key. */
  scopes?: Scope[];
  /** The merchant's `refuse_when_provider_down` setting as the lookup read it (docs/availability.md#api-create). */
  refusesWhenProviderDown: boolean;
}

/**
 * What `insertDeveloperWithKey` stores: the key only as its SHA-256 hash and last 4 characters
 * (docs/api.md#secret-keys).
 */
export interface NewDeveloper {
  id: string;
  merchantId: string;
  email: string;
  passwordHash: string;
  name: string;
  businessName: string | null;
  key: { id: string; hash: string; last4: string };
}

/** A developer that registered a merchant: the merchant's own account. */
export type AccountRow = DeveloperRow & { merchant_id: string };

/**
 * Inserts a developer and its first sandbox key in one transaction.
 * @throws the driver's unique_violation when the e-mail is taken (see `isUniqueViolation`).
 */
export async function insertDeveloperWithKey(db: Db, input: NewDeveloper): Promise<AccountRow> {
  return db.transaction(async (trx) => {
    const [developer] = await trx<DeveloperRow>('developers')
      .insert({
        id: input.id,
        merchant_id: input.merchantId,
        email: input.email,
        password_hash: input.passwordHash,
        name: input.name,
        business_name: input.businessName,
      })
      .returning('*');
    await trx('api_keys').insert({
      id: input.key.id,
      merchant_id: input.merchantId,
      environment: 'sandbox',
      key_hash: input.key.hash,
      last4: input.key.last4,
    });
    // The owner membership's id takes the developer id's random part (`mem_<same 24 characters>`).
    await trx('team_members').insert({
      id: `mem_${input.id.slice(input.id.indexOf('_') + 1)}`,
      merchant_id: input.merchantId,
      developer_id: input.id,
      role: 'owner',
    });
    return developer as AccountRow;
  });
}

/**
 * Inserts a person without a merchant of their own, who joins a team through an invitation
 * (docs/security.md#invitations), in `trx`.
 * @throws the driver's unique_violation when the e-mail is taken (see `isUniqueViolation`).
 */
export async function insertPerson(
  trx: Knex.Transaction,
  person: { id: string; email: string; passwordHash: string; name: string },
): Promise<DeveloperRow> {
  const [row] = await trx<DeveloperRow>('developers')
    .insert({
      id: person.id,
      merchant_id: null,
      email: person.email,
      password_hash: person.passwordHash,
      name: person.name,
    })
    .returning('*');
  return row as DeveloperRow;
}

/** The developer with this (lower-cased) e-mail, if any. */
export async function findDeveloperByEmail(db: Db, email: string): Promise<DeveloperRow | undefined> {
  return db<DeveloperRow>('developers').where({ email }).first();
}

/** The merchant's own account (the developer that registered it), if any. */
export async function findAccountByMerchant(db: Db, merchantId: string): Promise<AccountRow | undefined> {
  return db<AccountRow>('developers').where({ merchant_id: merchantId }).first();
}

/** The developer with this id, if any. */
export async function findDeveloperById(db: Db, id: string): Promise<DeveloperRow | undefined> {
  return db<DeveloperRow>('developers').where({ id }).first();
}

/**
 * Replaces the person's password hash and raises their session generation in one statement, so every session
 * token signed before is refused from now on (docs/security.md#password).
 * @returns the new session generation, or undefined when the person no longer exists
 */
export async function replacePassword(db: Db, id: string, passwordHash: string): Promise<number | undefined> {
  const [row] = await db('developers')
    .where({ id })
    .update(
      { password_hash: passwordHash, session_generation: db.raw('session_generation + 1'), updated_at: db.fn.now() },
      ['session_generation'],
    );
  return (row as { session_generation: number } | undefined)?.session_generation;
}

/** What rate limiting needs to know about a caller (docs/limits.md#rate-limits). */
export interface LimitProfile {
  environment: Environment;
  plan: string;
  customPerMinute: number | null;
  customPerHour: number | null;
}

/**
 * A secret key looked up by its SHA-256, for both middlewares that read it (rate limits, then
 * authentication) in one query: `owner` only while the key is active (not revoked, not expired,
 * docs/api.md#secret-keys, docs/api.md#credentials); `profile` whenever the key exists, so requests with a revoked key
 * still count against
 * its plan (docs/limits.md#rate-limits).
 */
export interface KeyLookup {
  owner: KeyOwner | undefined;
  profile: LimitProfile;
  /** The key's merchant, active or not. */
  merchantId: string;
  /** When the key stops working (ISO 8601 UTC: a rolled key's grace period), or null while it has no expiry. */
  expiresAt: string | null;
}

/** Looks up a secret key by its SHA-256 (see {@link KeyLookup}); undefined for an unknown key. */
export async function findKeyByHash(db: Db, keyHash: string): Promise<KeyLookup | undefined> {
  const row = await db('api_keys as k')
    .join('developers as d', 'd.merchant_id', 'k.merchant_id')
    .where('k.key_hash', keyHash)
    .first(
      'k.id as key_id',
      'k.merchant_id',
      'k.environment',
      'k.scopes',
      'd.id as developer_id',
      'd.plan',
      'd.custom_limit_per_minute',
      'd.custom_limit_per_hour',
      'd.refuse_when_provider_down',
      'k.expires_at',
      db.raw('(k.revoked_at is null and (k.expires_at is null or k.expires_at > now())) as active'),
    );
  if (!row) return undefined;
  return {
    owner: row.active
      ? {
          keyId: row.key_id,
          merchantId: row.merchant_id,
          developerId: row.developer_id,
          environment: row.environment,
          scopes: row.scopes ?? undefined,
          refusesWhenProviderDown: row.refuse_when_provider_down === true,
        }
      : undefined,
    profile: {
      environment: row.environment,
      plan: row.plan,
      customPerMinute: row.custom_limit_per_minute,
      customPerHour: row.custom_limit_per_hour,
    },
    merchantId: row.merchant_id,
    expiresAt: row.expires_at ? new Date(row.expires_at).toISOString() : null,
  };
}

/**
 * The limit profile of a session in `environment`: its merchant's plan, or (for tokens that name no
 * merchant) the plan of the merchant the person registered.
 */
export async function findLimitProfile(
  db: Db,
  session: { personId: string; merchantId?: string },
  environment: Environment,
): Promise<LimitProfile | undefined> {
  const row = await db('developers')
    .where(session.merchantId ? { merchant_id: session.merchantId } : { id: session.personId })
    .first('plan', 'custom_limit_per_minute', 'custom_limit_per_hour');
  return row
    ? {
        environment,
        plan: row.plan,
        customPerMinute: row.custom_limit_per_minute,
        customPerHour: row.custom_limit_per_hour,
      }
    : undefined;
}

/** Profile fields a developer may change (docs/api.md#profile). */
export interface ProfileChanges {
  name?: string;
  business_name?: string | null;
  country?: string | null;
  phone?: string | null;
  refuse_when_provider_down?: boolean;
  time_zone?: string | null;
}

/** Updates the profile fields of the merchant's account; returns the account after the change. */
export async function updateDeveloperProfile(
  db: Db,
  merchantId: string,
  changes: ProfileChanges,
): Promise<AccountRow | undefined> {
  const [row] = await db<AccountRow>('developers')
    .where({ merchant_id: merchantId })
    .update({ ...changes, updated_at: db.fn.now() as unknown as Date })
    .returning('*');
  return row;
}

/** A key as listed (never its secret or hash, docs/api.md#secret-keys). */
export interface KeyRow {
  id: string;
  kind: 'secret' | 'restricted';
  /** A restricted key's name and scopes; null for secret keys. */
  name: string | null;
  scopes: Scope[] | null;
  environment: Environment;
  last4: string;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
}

/** The merchant's keys, newest first. */
export async function listKeys(db: Db, merchantId: string): Promise<KeyRow[]> {
  return db('api_keys').where({ merchant_id: merchantId }).orderBy(NEWEST_FIRST).select(KEY_COLUMNS);
}

const KEY_COLUMNS = ['id', 'kind', 'name', 'scopes', 'environment', 'last4', 'created_at', 'expires_at', 'revoked_at'];

/** The merchant's key `id`, if any. */
export async function findKey(db: Db, merchantId: string, id: string): Promise<KeyRow | undefined> {
  return db('api_keys').where({ merchant_id: merchantId, id }).first(KEY_COLUMNS);
}

/** A new restricted key to store (docs/security.md#restricted-keys): only its hash and last 4. */
export interface NewRestrictedKey {
  id: string;
  merchantId: string;
  environment: Environment;
  name: string;
  scopes: readonly Scope[];
  hash: string;
  last4: string;
}

/** Stores a restricted key. */
export async function insertRestrictedKey(db: Db | Knex.Transaction, key: NewRestrictedKey): Promise<KeyRow> {
  const [row] = await db('api_keys')
    .insert({
      id: key.id,
      merchant_id: key.merchantId,
      environment: key.environment,
      kind: 'restricted',
      name: key.name,
      scopes: [...key.scopes],
      key_hash: key.hash,
      last4: key.last4,
    })
    .returning(KEY_COLUMNS);
  return row as KeyRow;
}

/**
 * The keys matching `where` that still work (not revoked, not expired), locked until `trx` ends: what a roll replaces.
 */
function activeKeysForUpdate(trx: Knex.Transaction, where: Record<string, unknown>): Knex.QueryBuilder {
  return trx('api_keys')
    .where(where)
    .whereNull('revoked_at')
    .where((q) => q.whereNull('expires_at').orWhere('expires_at', '>', trx.fn.now()))
    .forUpdate();
}

/**
 * Rolls one restricted key (docs/security.md#restricted-keys): stores its successor with the same name, scopes
 * and environment, and lets the old key expire at `expiresAt` (an earlier expiry is kept), in one transaction.
 * @returns the successor, or undefined when the old key is not an active restricted key of the merchant
 */
export async function rollRestrictedKey(
  db: Db,
  merchantId: string,
  id: string,
  successor: { id: string; hash: string; last4: string },
  expiresAt: Date,
): Promise<KeyRow | undefined> {
  return db.transaction(async (trx) => {
    const old = await activeKeysForUpdate(trx, { merchant_id: merchantId, id, kind: 'restricted' }).first(KEY_COLUMNS);
    if (!old) return undefined;
    if (!old.expires_at || old.expires_at > expiresAt)
      await trx('api_keys').where({ id }).update({ expires_at: expiresAt });
    return insertRestrictedKey(trx, {
      ...successor,
      merchantId,
      environment: old.environment,
      name: old.name,
      scopes: old.scopes,
    });
  });
}

/**
 * Revokes a restricted key at once (docs/security.md#restricted-keys).
 * @returns the key after the change, or undefined when the merchant has no such restricted key
 */
export async function revokeRestrictedKey(db: Db, merchantId: string, id: string): Promise<KeyRow | undefined> {
  const [row] = await db('api_keys')
    .where({ merchant_id: merchantId, id, kind: 'restricted' })
    .update({ revoked_at: db.raw('coalesce(revoked_at, now())') })
    .returning(KEY_COLUMNS);
  return row as KeyRow | undefined;
}

/**
 * Rolls the merchant's keys of `environment` (docs/api.md#secret-keys): inserts the new key and lets every key still
 * active expire at `expiresAt` (or keeps an earlier expiry), in one transaction.
 * @returns the number of keys that were active before the roll (0 = nothing to roll)
 */
export async function rollKeys(
  db: Db,
  merchantId: string,
  environment: Environment,
  newKey: { id: string; hash: string; last4: string },
  expiresAt: Date,
): Promise<number> {
  return db.transaction(async (trx) => {
    const active = await activeKeysForUpdate(trx, { merchant_id: merchantId, environment, kind: 'secret' }).select(
      'id',
      'expires_at',
    );
    if (active.length === 0) return 0;
    for (const key of active as { id: string; expires_at: Date | null }[]) {
      const keep = key.expires_at !== null && key.expires_at < expiresAt;
      if (!keep) await trx('api_keys').where({ id: key.id }).update({ expires_at: expiresAt });
    }
    await trx('api_keys').insert({
      id: newKey.id,
      merchant_id: merchantId,
      environment,
      key_hash: newKey.hash,
      last4: newKey.last4,
    });
    return active.length;
  });
}
