/** Repository of developers (docs/api.md) and their secret keys (docs/api.md#secret-keys). */
import type { Db } from './knex';
import type { Environment } from '../domain/environment';

/**
 * A developer row; `merchant_id` identifies the merchant in every other table (docs/api.md#merchants-and-environments).
 */
export interface DeveloperRow {
  id: string;
  merchant_id: string;
  email: string;
  password_hash: string;
  name: string;
  business_name: string | null;
  country: string | null;
  phone: string | null;
  plan: string;
  has_live_access: boolean;
  created_at: Date;
  updated_at: Date;
}

/** The merchant and environment a secret key authenticates (docs/api.md#credentials). */
export interface KeyOwner {
  keyId: string;
  merchantId: string;
  developerId: string;
  environment: Environment;
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

/**
 * Inserts a developer and its first sandbox key in one transaction.
 * @throws the driver's unique_violation when the e-mail is taken (see `isUniqueViolation`).
 */
export async function insertDeveloperWithKey(db: Db, input: NewDeveloper): Promise<DeveloperRow> {
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
    return developer as DeveloperRow;
  });
}

/** The developer with this (lower-cased) e-mail, if any. */
export async function findDeveloperByEmail(db: Db, email: string): Promise<DeveloperRow | undefined> {
  return db<DeveloperRow>('developers').where({ email }).first();
}

/** The developer with this id, if any. */
export async function findDeveloperById(db: Db, id: string): Promise<DeveloperRow | undefined> {
  return db<DeveloperRow>('developers').where({ id }).first();
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
      'd.id as developer_id',
      'd.plan',
      'd.custom_limit_per_minute',
      'd.custom_limit_per_hour',
      db.raw('(k.revoked_at is null and (k.expires_at is null or k.expires_at > now())) as active'),
    );
  if (!row) return undefined;
  return {
    owner: row.active
      ? { keyId: row.key_id, merchantId: row.merchant_id, developerId: row.developer_id, environment: row.environment }
      : undefined,
    profile: {
      environment: row.environment,
      plan: row.plan,
      customPerMinute: row.custom_limit_per_minute,
      customPerHour: row.custom_limit_per_hour,
    },
  };
}

/** The limit profile of a developer's session in `environment`. */
export async function findLimitProfileByDeveloper(
  db: Db,
  developerId: string,
  environment: Environment,
): Promise<LimitProfile | undefined> {
  const row = await db('developers')
    .where({ id: developerId })
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
}

/** Updates the profile fields given; returns the developer after the change. */
export async function updateDeveloperProfile(
  db: Db,
  developerId: string,
  changes: ProfileChanges,
): Promise<DeveloperRow | undefined> {
  const [row] = await db<DeveloperRow>('developers')
    .where({ id: developerId })
    .update({ ...changes, updated_at: db.fn.now() as unknown as Date })
    .returning('*');
  return row;
}

/** A key as listed (never its secret or hash, docs/api.md#secret-keys). */
export interface KeyRow {
  id: string;
  environment: Environment;
  last4: string;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
}

/** The merchant's keys, newest first. */
export async function listKeys(db: Db, merchantId: string): Promise<KeyRow[]> {
  return db('api_keys')
    .where({ merchant_id: merchantId })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .select('id', 'environment', 'last4', 'created_at', 'expires_at', 'revoked_at');
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
    const active = await trx('api_keys')
      .where({ merchant_id: merchantId, environment })
      .whereNull('revoked_at')
      .where((q) => q.whereNull('expires_at').orWhere('expires_at', '>', trx.fn.now()))
      .forUpdate()
      .select('id', 'expires_at');
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
