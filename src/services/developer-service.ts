/**
 * The dashboard's account pages (docs/api.md#profile, docs/api.md#secret-keys, docs/limits.md#lists,
 * docs/live-access.md#audit-log): profile, transactions, analytics, the audit log and secret keys of the
 * caller's merchant and environment. Changes are written to the audit log once they succeeded.
 */
import { toAuditLogEntryView, type AuditLogEntryView } from '../views/audit-log';
import { keyView, profileView, type KeySummaryView, type ProfileView } from '../views/developer';
import { countAuditEntries, listAuditEntries } from '../db/audit-log';
import {
  findAccountByMerchant,
  findKey,
  insertRestrictedKey,
  listKeys,
  revokeRestrictedKey,
  rollKeys,
  rollRestrictedKey,
  updateDeveloperProfile,
  type KeyRow,
  type ProfileChanges,
} from '../db/developers';
import type { Db } from '../db/knex';
import {
  computeAnalytics,
  findTransaction,
  findTransactionListPosition,
  listTransactions,
  type Analytics,
  type TransactionFilter,
  type TransactionView,
} from '../db/transactions';
import type { Scope } from '../domain/access';
import type { Environment } from '../domain/environment';
import { orNotFound, DomainError } from '../domain/errors';
import { cursorPosition } from './list-cursor';
import { ID_PREFIXES } from '../domain/ids';
import type { Principal } from '../domain/principal';
import { newId } from '../lib/ids';
import { issueSecretKey } from '../lib/secret-keys';
import { audit } from './audit';
import { forgetKeysOf } from './key-cache';
import { requireRecentTwoFactor } from './two-factor-service';

/** What the dashboard service needs. */
export interface DeveloperServiceDeps {
  db: Db;
}

const DAY_MS = 86_400_000;
/** The analytics range when none is asked (docs/limits.md#lists), in days. */
const DEFAULT_ANALYTICS_DAYS = 30;

/**
 * A key's state at `now` (docs/api.md#secret-keys): revoked, expired, active with an expiry set by a roll (`expiring`),
 * or active.
 */
function keyStatus(key: KeyRow, now: Date): KeySummaryView['status'] {
  if (key.revoked_at) return 'revoked';
  if (key.expires_at && key.expires_at <= now) return 'expired';
  return key.expires_at ? 'expiring' : 'active';
}

/**
 * The caller's developer profile.
 * @throws DomainError `not_found` when the developer no longer exists
 */
export async function getProfile(deps: DeveloperServiceDeps, owner: Principal): Promise<ProfileView> {
  const row = await findAccountByMerchant(deps.db, owner.merchantId);
  if (!row) throw new DomainError('not_found', 'developer not found');
  return profileView(row);
}

/**
 * Changes the caller's name, business_name, country or phone (docs/api.md#profile) and writes
 * `profile.updated` to the audit log.
 * @param ip the caller's address, for the audit log
 * @returns the profile after the change
 * @throws DomainError `not_found` when the developer no longer exists
 */
export async function changeProfile(
  deps: DeveloperServiceDeps,
  owner: Principal,
  changes: ProfileChanges,
  ip: string,
): Promise<ProfileView> {
  const row = await updateDeveloperProfile(deps.db, owner.merchantId, changes);
  if (!row) throw new DomainError('not_found', 'developer not found');
  // The key lookups this process keeps carry the setting: they go, so its next create reads the new one.
  if (changes.refuse_when_provider_down !== undefined) forgetKeysOf(owner.merchantId);
  await audit(deps.db, owner, 'profile.updated', row.id, ip);
  return profileView(row);
}

/**
 * One page of the caller's payments and refunds, newest first (docs/limits.md#lists), as they were
 * at `asOf` (default now): the pages after the first pass the first page's `asOf` back, so
 * transactions created meanwhile do not shift them; or, with `startingAfter`, the page after that transaction
 * (a cursor, as `GET /v1/payments` pages). Amounts in minor units.
 * @returns the page, the total of matching transactions, the `asOf` used and whether more follow
 * @throws DomainError `validation_error` (400) naming `starting_after` when it is not one of the caller's payments or
 *   refunds (foreign ids look unknown, docs/api.md#merchants-and-environments)
 */
export async function listTransactionPage(
  deps: DeveloperServiceDeps,
  owner: Principal,
  request: {
    filter: Omit<TransactionFilter, 'asOf'>;
    asOf?: Date;
    page: { page: number; limit: number };
    /** A payment or refund id: the page is what follows it in the list (docs/limits.md#lists). */
    startingAfter?: string;
  },
): Promise<{ transactions: TransactionView[]; total: number; asOf: Date; hasMore: boolean }> {
  const startingAfter = await cursorPosition(
    request.startingAfter,
    (id) => findTransactionListPosition(deps.db, owner, id),
    (id) => `starting_after must be the id of one of your payments or refunds; there is none ${id}`,
  );
  const asOf = request.asOf ?? new Date();
  const { transactions, total, hasMore } = await listTransactions(
    deps.db,
    owner,
    { ...request.filter, asOf },
    { ...request.page, startingAfter },
  );
  return { transactions, total, asOf, hasMore };
}

/**
 * The caller's transaction `id`: a payment (`pay_…`) or a refund (`ref_…`).
 * @throws DomainError `not_found` for unknown and foreign ids alike (docs/api.md#merchants-and-environments)
 */
export async function getTransaction(
  deps: DeveloperServiceDeps,
  owner: Principal,
  id: string,
): Promise<TransactionView> {
  return orNotFound(await findTransaction(deps.db, owner, id), 'transaction', id);
}

/**
 * The caller's analytics (docs/limits.md#lists) over the UTC days `from`..`to`, both included;
 * `to` defaults to now and `from` to 30 days before `to`. Amounts in minor units per currency; with `currency` (an
 * ISO 4217 code the route checked), that currency's payments alone, counts and success rate included.
 */
export async function getAnalytics(
  deps: DeveloperServiceDeps,
  owner: Principal,
  days: { from?: Date; to?: Date; currency?: string },
): Promise<Analytics> {
  const to = days.to ? new Date(days.to.getTime() + DAY_MS) : new Date();
  const from = days.from ?? new Date(to.getTime() - DEFAULT_ANALYTICS_DAYS * DAY_MS);
  return computeAnalytics(deps.db, owner, from, to, days.currency);
}

/**
 * One page of the caller's audit log, newest first (docs/live-access.md#audit-log), of one action and one actor
 * id when asked (docs/security.md#activity-log).
 * @returns the entries as the API shows them and the total number of entries
 */
export async function listAuditLogPage(
  deps: DeveloperServiceDeps,
  owner: Principal,
  page: { page: number; limit: number },
  filter: { action?: string; actor?: string } = {},
): Promise<{ activity: AuditLogEntryView[]; total: number }> {
  const scope = {
    merchantId: owner.merchantId,
    environment: owner.environment,
    action: filter.action,
    actorId: filter.actor,
  };
  const [entries, total] = await Promise.all([
    listAuditEntries(deps.db, scope, page),
    countAuditEntries(deps.db, scope),
  ]);
  return { activity: entries.map(toAuditLogEntryView), total };
}

/**
 * Every secret key of the caller's merchant, both environments, newest first, masked, with its status now
 * (docs/api.md#secret-keys).
 */
export async function listSecretKeys(deps: DeveloperServiceDeps, owner: Principal): Promise<KeySummaryView[]> {
  const now = new Date();
  return (await listKeys(deps.db, owner.merchantId)).map((row) => keyView(row, keyStatus(row, now)));
}

/**
 * The answer of a roll (docs/api.md#secret-keys): the new key with its secret, shown this once, and when the keys it
 * replaces expire.
 */
export interface RolledKey {
  key: { id: string; environment: Environment; secret: string; last4: string; created_at: string };
  /** ISO 8601 UTC. */
  previous_keys_expire_at: string;
}

/**
 * Rolls the caller's merchant's secret keys of `environment` (docs/api.md#secret-keys): issues a new key and
 * lets every secret key still active expire `expiresInHours` from now (0 = at once; an earlier expiry is
 * kept), then writes `api_key.rolled` to the audit log in that environment. Restricted keys are rolled one by
 * one ({@link rollOneRestrictedKey}).
 * @param ip the caller's address, for the audit log
 * @throws DomainError `conflict` (409) when the environment has no active key (live before approval);
 *   `forbidden` (403) for a live roll without a two-factor code from the last 5 minutes (docs/security.md#step-up)
 */
export async function rollSecretKeys(
  deps: DeveloperServiceDeps,
  owner: Principal,
  environment: Environment,
  expiresInHours: number,
  ip: string,
): Promise<RolledKey> {
  if (environment === 'live') requireRecentTwoFactor(owner);
  const key = issueSecretKey(environment);
  const id = newId(ID_PREFIXES.apiKey);
  const expiresAt = new Date(Date.now() + expiresInHours * 3600_000);
  const rolled = await rollKeys(
    deps.db,
    owner.merchantId,
    environment,
    { id, hash: key.hash, last4: key.last4 },
    expiresAt,
  );
  if (rolled === 0) throw new DomainError('conflict', `there is no active ${environment} key to roll`);
  forgetKeysOf(owner.merchantId);
  await audit(deps.db, { ...owner, environment }, 'api_key.rolled', id, ip);
  return {
    key: { id, environment, secret: key.secret, last4: key.last4, created_at: new Date().toISOString() },
    previous_keys_expire_at: expiresAt.toISOString(),
  };
}

/** A restricted key as answered when it is created or rolled: its secret, shown this once. */
export interface IssuedRestrictedKey {
  key: KeySummaryView & { secret: string };
  /** ISO 8601 UTC when the rolled key stops working; absent at creation. */
  previous_key_expires_at?: string;
}

/** Whether the merchant may hold keys of `environment`: live only once live access is approved. */
async function requireEnvironmentOpen(deps: DeveloperServiceDeps, owner: Principal, environment: Environment) {
  if (environment !== 'live') return;
  const account = await findAccountByMerchant(deps.db, owner.merchantId);
  if (!account?.has_live_access)
    throw new DomainError('conflict', 'live keys exist once live access is approved (docs: Going live)');
}

/**
 * Creates a restricted key (docs/security.md#restricted-keys): `rk_<environment>_…` holding only `scopes`, its
 * secret shown in this answer only; written to the audit log as `api_key.restricted_created`.
 * @throws DomainError `conflict` (409) for a live key before live access is approved; `forbidden` (403) for
 *   a live key without a recent two-factor code
 */
export async function createRestrictedKey(
  deps: DeveloperServiceDeps,
  owner: Principal,
  input: { name: string; environment: Environment; scopes: readonly Scope[] },
  ip: string,
): Promise<IssuedRestrictedKey> {
  await requireEnvironmentOpen(deps, owner, input.environment);
  if (input.environment === 'live') requireRecentTwoFactor(owner);
  const key = issueSecretKey(input.environment, true);
  const row = await insertRestrictedKey(deps.db, {
    id: newId(ID_PREFIXES.apiKey),
    merchantId: owner.merchantId,
    environment: input.environment,
    name: input.name,
    scopes: input.scopes,
    hash: key.hash,
    last4: key.last4,
  });
  await audit(deps.db, { ...owner, environment: input.environment }, 'api_key.restricted_created', row.id, ip);
  return { key: { ...keyView(row, 'active'), secret: key.secret } };
}

/**
 * Rolls one restricted key (docs/security.md#restricted-keys): a successor with the same name, scopes and
 * environment, shown once; the old key works `expiresInHours` more (0 = stops now).
 * @throws DomainError `not_found` (404) when the merchant has no such active restricted key; `forbidden` (403)
 *   for a live key without a recent two-factor code
 */
export async function rollOneRestrictedKey(
  deps: DeveloperServiceDeps,
  owner: Principal,
  id: string,
  expiresInHours: number,
  ip: string,
): Promise<IssuedRestrictedKey> {
  const existing = await findKey(deps.db, owner.merchantId, id);
  if (!existing || existing.kind !== 'restricted')
    throw new DomainError('not_found', `no restricted key with id ${id}`);
  if (existing.environment === 'live') requireRecentTwoFactor(owner);
  const key = issueSecretKey(existing.environment, true);
  const expiresAt = new Date(Date.now() + expiresInHours * 3600_000);
  const row = orNotFound(
    await rollRestrictedKey(
      deps.db,
      owner.merchantId,
      id,
      { id: newId(ID_PREFIXES.apiKey), hash: key.hash, last4: key.last4 },
      expiresAt,
    ),
    'active restricted key',
    id,
  );
  forgetKeysOf(owner.merchantId);
  await audit(deps.db, { ...owner, environment: row.environment }, 'api_key.restricted_rolled', row.id, ip);
  return {
    key: { ...keyView(row, 'active'), secret: key.secret },
    previous_key_expires_at: expiresAt.toISOString(),
  };
}

/**
 * Revokes a restricted key at once (docs/security.md#restricted-keys); secret keys are replaced by rolling.
 * @returns the key, now `revoked`
 * @throws DomainError `not_found` (404) for an unknown id; `conflict` (409) for a secret key
 */
export async function revokeKey(
  deps: DeveloperServiceDeps,
  owner: Principal,
  id: string,
  ip: string,
): Promise<KeySummaryView> {
  const existing = orNotFound(await findKey(deps.db, owner.merchantId, id), 'key', id);
  if (existing.kind !== 'restricted')
    throw new DomainError(
      'conflict',
      'a secret key is replaced by rolling it (POST /v1/developer/keys/{environment}/roll)',
    );
  if (existing.environment === 'live') requireRecentTwoFactor(owner);
  const row = (await revokeRestrictedKey(deps.db, owner.merchantId, id)) as KeyRow;
  forgetKeysOf(owner.merchantId);
  await audit(deps.db, { ...owner, environment: row.environment }, 'api_key.revoked', row.id, ip);
  return keyView(row, 'revoked');
}
