/**
 * Dashboard endpoints (docs/api.md#secret-keys, docs/api.md#profile, docs/limits.md#lists): profile, transactions, analytics and keys. Profile,
 * transactions and analytics take a session token (environment from `?environment=`) or a secret
 * key (its environment) (docs/api.md#credentials); keys take a session token only (docs/api.md#secret-keys).
 */
import Router from '@koa/router';
import type { Config } from '../../config';
import { findDeveloperById, listKeys, rollKeys, updateDeveloperProfile, type DeveloperRow, type KeyRow } from '../../db/developers';
import type { Db } from '../../db/knex';
import { computeAnalytics, findTransaction, listTransactions } from '../../db/transactions';
import { countActivityEntries, listActivityEntries } from '../../db/activity-log';
import { toActivityView } from '../../domain/activity-log';
import { audit } from '../../services/audit';
import { developerView } from '../../services/auth-service';
import { DomainError, validationError } from '../../domain/errors';
import { ID_PREFIXES } from '../../domain/ids';
import { newId } from '../../lib/ids';
import { issueSecretKey } from '../../lib/secret-keys';
import { respond } from '../envelope';
import { principalOf, sessionOrSecretKey, sessionToken } from '../middleware/auth';
import { jsonBody } from '../middleware/json-body';
import {
  activityQuery,
  analyticsQuery,
  environmentOnlyQuery,
  environmentParam,
  IMMUTABLE_PROFILE_FIELDS,
  profileBody,
  rollKeyBody,
  transactionsQuery,
} from '../schemas/developer';
import { paginationOf } from '../pagination';
import { parseOrThrow } from '../schemas/validate';

const DAY_MS = 86_400_000;

/** The developer profile of docs/api.md#profile: the developer as registration shows it, with country and phone. */
export function profileView(row: DeveloperRow) {
  return { ...developerView(row), country: row.country, phone: row.phone };
}

/** A key as listed (docs/api.md#secret-keys): masked, never the secret. */
export function keyView(row: KeyRow, now = new Date()) {
  let status = 'active';
  if (row.revoked_at) status = 'revoked';
  else if (row.expires_at && row.expires_at <= now) status = 'expired';
  else if (row.expires_at) status = 'expiring';
  return {
    id: row.id,
    environment: row.environment,
    masked: `sk_${row.environment}_…${row.last4}`,
    last4: row.last4,
    status,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at?.toISOString() ?? null,
  };
}

/** Dashboard routes under `/v1/developer`. */
export function developerRoutes(deps: { db: Db; config: Pick<Config, 'JWT_SECRET'> }): Router {
  const router = new Router({ prefix: '/v1/developer' });
  const either = sessionOrSecretKey(deps.db, deps.config.JWT_SECRET);
  const session = sessionToken(deps.db, deps.config.JWT_SECRET);

  async function developerOf(id: string): Promise<DeveloperRow> {
    const row = await findDeveloperById(deps.db, id);
    if (!row) throw new DomainError('not_found', 'developer not found');
    return row;
  }

  /** Profile (docs/api.md#profile) → 200 envelope with the profile. */
  router.get('/profile', either, async (ctx) => {
    parseOrThrow(environmentOnlyQuery, ctx.query);
    respond(ctx, 200, 'Profile retrieved', profileView(await developerOf(principalOf(ctx).developerId)));
  });

  /**
   * Change name, business_name, country (ISO alpha-2) or phone (E.164) (docs/api.md#profile) → 200 envelope with
   * the profile. Errors: 400 for any other field (email, plan …) or a bad value.
   */
  router.put('/profile', either, jsonBody(), async (ctx) => {
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const fixed = Object.keys(body).filter((field) => IMMUTABLE_PROFILE_FIELDS.includes(field));
    if (fixed.length) throw validationError(fixed.map((field) => ({ field, message: `${field} cannot be changed here` })));
    const changes = parseOrThrow(profileBody, body);
    const row = await updateDeveloperProfile(deps.db, principalOf(ctx).developerId, changes);
    if (!row) throw new DomainError('not_found', 'developer not found');
    await audit(deps.db, principalOf(ctx), 'profile.updated', row.id, ctx.ip);
    respond(ctx, 200, 'Profile updated', profileView(row));
  });

  /**
   * Transactions (docs/limits.md#lists): payments and refunds, newest first → 200 envelope
   * `{transactions, pagination: {page, limit, total, total_pages, as_of}}`; pass `as_of` back for
   * the next pages so transactions created meanwhile do not shift them. Errors: 400 for a bad
   * page, limit, status, method, date or as_of.
   */
  router.get('/transactions', either, async (ctx) => {
    const query = parseOrThrow(transactionsQuery, ctx.query);
    const asOf = query.as_of ?? new Date();
    const { transactions, total } = await listTransactions(
      deps.db,
      principalOf(ctx),
      { statuses: query.status, method: query.method, currency: query.currency, search: query.q, from: query.date?.from, to: query.date?.to, asOf },
      query,
    );
    respond(ctx, 200, 'Transactions retrieved', { transactions, pagination: { ...paginationOf(query, total), as_of: asOf.toISOString() } });
  });

  /** One transaction by payment (`pay_…`) or refund (`ref_…`) id → 200 envelope; 404 otherwise. */
  router.get('/transactions/:id', either, async (ctx) => {
    parseOrThrow(environmentOnlyQuery, ctx.query);
    const transaction = await findTransaction(deps.db, principalOf(ctx), ctx.params.id as string);
    if (!transaction) throw new DomainError('not_found', `no transaction with id ${ctx.params.id}`);
    respond(ctx, 200, 'Transaction retrieved', transaction);
  });

  /** Analytics (docs/limits.md#lists) over `from`..`to` (UTC days, default the last 30) → 200 envelope. */
  router.get('/analytics', either, async (ctx) => {
    const query = parseOrThrow(analyticsQuery, ctx.query);
    const to = query.to ? new Date(query.to.getTime() + DAY_MS) : new Date();
    const from = query.from ?? new Date(to.getTime() - 30 * DAY_MS);
    respond(ctx, 200, 'Analytics retrieved', await computeAnalytics(deps.db, principalOf(ctx), from, to));
  });

  /** Activity (docs/live-access.md#audit-log): the audit log, newest first → 200 envelope `{activity, pagination}`. */
  router.get('/activity', either, async (ctx) => {
    const query = parseOrThrow(activityQuery, ctx.query);
    const scope = principalOf(ctx);
    const [entries, total] = await Promise.all([listActivityEntries(deps.db, scope, query), countActivityEntries(deps.db, scope)]);
    respond(ctx, 200, 'Activity retrieved', { activity: entries.map(toActivityView), pagination: paginationOf(query, total) });
  });

  /** Keys (docs/api.md#secret-keys), session token only → 200 envelope `{keys}` (masked). */
  router.get('/keys', session, async (ctx) => {
    parseOrThrow(environmentOnlyQuery, ctx.query);
    const rows = await listKeys(deps.db, principalOf(ctx).merchantId);
    respond(ctx, 200, 'Keys retrieved', { keys: rows.map((row) => keyView(row)) });
  });

  /**
   * Roll the keys of `{environment}` (docs/api.md#secret-keys), session token only: `{expires_in_hours}` (default 24,
   * 0 = now) → 201 envelope with the new key, its secret shown once. Errors: 400, 409 `conflict`
   * when the environment has no key yet (live before approval).
   */
  router.post('/keys/:environment/roll', session, jsonBody(), async (ctx) => {
    const { environment } = parseOrThrow(environmentParam, ctx.params);
    const body = parseOrThrow(rollKeyBody, ctx.request.body);
    const key = issueSecretKey(environment);
    const id = newId(ID_PREFIXES.apiKey);
    const expiresAt = new Date(Date.now() + body.expires_in_hours * 3600_000);
    const rolled = await rollKeys(deps.db, principalOf(ctx).merchantId, environment, { id, hash: key.hash, last4: key.last4 }, expiresAt);
    if (rolled === 0) throw new DomainError('conflict', `there is no active ${environment} key to roll`);
    await audit(deps.db, { ...principalOf(ctx), environment }, 'api_key.rolled', id, ctx.ip);
    respond(ctx, 201, 'Key rolled', {
      key: { id, environment, secret: key.secret, last4: key.last4, created_at: new Date().toISOString() },
      previous_keys_expire_at: expiresAt.toISOString(),
    });
  });

  return router;
}
