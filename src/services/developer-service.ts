/**
 * The dashboard's account pages (docs/api.md#profile, docs/api.md#secret-keys, docs/limits.md#lists,
 * docs/live-access.md#audit-log): profile, transactions, analytics, the audit log and secret keys of the
 * caller's merchant and environment. Changes are written to the audit log once they succeeded.
 */
import { toAuditLogEntryView, type AuditLogEntryView } from '../views/audit-log';
import { keyView, profileView, type KeySummaryView, type ProfileView } from '../views/developer';
import { countAuditEntries, listAuditEntries } from '../db/audit-log';
import {
  findDeveloperById,
  listKeys,
  rollKeys,
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
  type TransactionListPosition,
  type TransactionView,
} from '../db/transactions';
import type { Environment } from '../domain/environment';
import { DomainError, validationError } from '../domain/errors';
import { ID_PREFIXES } from '../domain/ids';
import type { Principal } from '../domain/principal';
import { newId } from '../lib/ids';
import { issueSecretKey } from '../lib/secret-keys';
import { audit } from './audit';

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
  const row = await findDeveloperById(deps.db, owner.developerId);
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
  const row = await updateDeveloperProfile(deps.db, owner.developerId, changes);
  if (!row) throw new DomainError('not_found', 'developer not found');
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
  let startingAfter: TransactionListPosition | undefined;
  if (request.startingAfter !== undefined) {
    startingAfter = await findTransactionListPosition(deps.db, owner, request.startingAfter);
    if (!startingAfter)
      throw validationError([
        {
          field: 'starting_after',
          message: `starting_after must be the id of one of your payments or refunds; there is none ${request.startingAfter}`,
        },
      ]);
  }
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
  const transaction = await findTransaction(deps.db, owner, id);
  if (!transaction) throw new DomainError('not_found', `no transaction with id ${id}`);
  return transaction;
}

/**
 * The caller's analytics (docs/limits.md#lists) over the UTC days `from`..`to`, both included;
 * `to` defaults to now and `from` to 30 days before `to`. Amounts in minor units per currency.
 */
export async function getAnalytics(
  deps: DeveloperServiceDeps,
  owner: Principal,
  days: { from?: Date; to?: Date },
): Promise<Analytics> {
  const to = days.to ? new Date(days.to.getTime() + DAY_MS) : new Date();
  const from = days.from ?? new Date(to.getTime() - DEFAULT_ANALYTICS_DAYS * DAY_MS);
  return computeAnalytics(deps.db, owner, from, to);
}

/**
 * One page of the caller's audit log, newest first (docs/live-access.md#audit-log).
 * @returns the entries as the API shows them and the total number of entries
 */
export async function listAuditLogPage(
  deps: DeveloperServiceDeps,
  owner: Principal,
  page: { page: number; limit: number },
): Promise<{ activity: AuditLogEntryView[]; total: number }> {
  const [entries, total] = await Promise.all([
    listAuditEntries(deps.db, owner, page),
    countAuditEntries(deps.db, owner),
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
 * Rolls the caller's merchant's keys of `environment` (docs/api.md#secret-keys): issues a new key and
 * lets every key still active expire `expiresInHours` from now (0 = at once; an earlier expiry is
 * kept), then writes `api_key.rolled` to the audit log in that environment.
 * @param ip the caller's address, for the audit log
 * @throws DomainError `conflict` (409) when the environment has no active key (live before approval)
 */
export async function rollSecretKeys(
  deps: DeveloperServiceDeps,
  owner: Principal,
  environment: Environment,
  expiresInHours: number,
  ip: string,
): Promise<RolledKey> {
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
  await audit(deps.db, { ...owner, environment }, 'api_key.rolled', id, ip);
  return {
    key: { id, environment, secret: key.secret, last4: key.last4, created_at: new Date().toISOString() },
    previous_keys_expire_at: expiresAt.toISOString(),
  };
}
