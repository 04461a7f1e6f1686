/**
 * Dashboard endpoints (docs/api.md#secret-keys, docs/api.md#profile, docs/limits.md#lists): profile, transactions,
 * analytics and keys. Profile,
 * transactions and analytics take a session token (environment from `?environment=`) or a secret
 * key (its environment) (docs/api.md#credentials); keys take a session token only (docs/api.md#secret-keys).
 */
import type Router from '@koa/router';
import { apiRouter } from '../router';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { validationError } from '../../domain/errors';
import {
  changeProfile,
  getAnalytics,
  getProfile,
  getTransaction,
  listAuditLogPage,
  listSecretKeys,
  listTransactionPage,
  rollSecretKeys,
  createRestrictedKey,
  revokeKey,
  rollOneRestrictedKey,
} from '../../services/developer-service';
import { createRestrictedKeyBody, rollRestrictedKeyBody } from '../schemas/security';
import { respond } from '../envelope';
import { principalOf, sessionOrSecretKey, sessionToken } from '../middleware/auth';
import { jsonBody } from '../middleware/json-body';
import {
  auditLogQuery,
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

/** Dashboard routes under `/v1/developer`. */
export function developerRoutes(deps: { db: Db; config: Pick<Config, 'JWT_SECRET'> }): Router {
  const router = apiRouter('/v1/developer');
  const either = sessionOrSecretKey(deps.db, deps.config.JWT_SECRET);
  const session = sessionToken(deps.db, deps.config.JWT_SECRET);

  /** Profile (docs/api.md#profile) → 200 envelope with the profile. */
  router.get('/profile', either, async (ctx) => {
    parseOrThrow(environmentOnlyQuery, ctx.query);
    respond(ctx, 200, 'Profile retrieved', await getProfile(deps, principalOf(ctx)));
  });

  /**
   * Change name, business_name, country (ISO alpha-2), phone (E.164) or the setting refuse_when_provider_down
   * (docs/api.md#profile, docs/availability.md#api-create) → 200 envelope with the profile. Errors: 400 for any other
   * field (email, plan …) or a bad value.
   */
  router.put('/profile', either, jsonBody(), async (ctx) => {
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const fixed = Object.keys(body).filter((field) => IMMUTABLE_PROFILE_FIELDS.includes(field));
    if (fixed.length)
      throw validationError(fixed.map((field) => ({ field, message: `${field} cannot be changed here` })));
    const changes = parseOrThrow(profileBody, body);
    respond(ctx, 200, 'Profile updated', await changeProfile(deps, principalOf(ctx), changes, ctx.ip));
  });

  /**
   * Transactions (docs/limits.md#lists): payments and refunds, newest first → 200 envelope
   * `{transactions, pagination: {page, limit, total, total_pages, as_of, has_more, next_starting_after}}`; pass
   * `next_starting_after` back as `starting_after` for the next page (a cursor), or `as_of` with a page number, so
   * transactions created meanwhile do not shift the pages. Errors: 400 for a bad page, limit, status, method, date,
   * as_of or starting_after.
   */
  router.get('/transactions', either, async (ctx) => {
    const query = parseOrThrow(transactionsQuery, ctx.query);
    const filter = {
      statuses: query.status,
      method: query.method,
      currency: query.currency,
      search: query.q,
      checkoutSession: query.checkout_session,
      from: query.date?.from,
      to: query.date?.to,
    };
    const { transactions, total, asOf, hasMore } = await listTransactionPage(deps, principalOf(ctx), {
      filter,
      asOf: query.as_of,
      page: query,
      startingAfter: query.starting_after,
    });
    const last = transactions.at(-1);
    respond(ctx, 200, 'Transactions retrieved', {
      transactions,
      pagination: {
        ...paginationOf(query, total),
        as_of: asOf.toISOString(),
        has_more: hasMore,
        next_starting_after: hasMore && last ? last.id : null,
      },
    });
  });

  /** One transaction by payment (`pay_…`) or refund (`ref_…`) id → 200 envelope; 404 otherwise. */
  router.get('/transactions/:id', either, async (ctx) => {
    parseOrThrow(environmentOnlyQuery, ctx.query);
    respond(ctx, 200, 'Transaction retrieved', await getTransaction(deps, principalOf(ctx), ctx.params.id as string));
  });

  /**
   * Analytics (docs/limits.md#lists) over `from`..`to` (UTC days, default the last 30), of one `currency` when asked
   * → 200 envelope. Errors: 400 `validation_error` naming `from`, `to`, `currency` (not one the service takes) or an
   * unknown field; 401.
   */
  router.get('/analytics', either, async (ctx) => {
    const query = parseOrThrow(analyticsQuery, ctx.query);
    respond(
      ctx,
      200,
      'Analytics retrieved',
      await getAnalytics(deps, principalOf(ctx), { from: query.from, to: query.to, currency: query.currency }),
    );
  });

  /**
   * Activity (docs/live-access.md#audit-log, docs/security.md#activity-log): the audit log, newest first, of one
   * `action` and one `actor` id when asked → 200 envelope `{activity, pagination}`. Errors: 400 for a bad filter.
   */
  router.get('/activity', either, async (ctx) => {
    const query = parseOrThrow(auditLogQuery, ctx.query);
    const { activity, total } = await listAuditLogPage(deps, principalOf(ctx), query, query);
    respond(ctx, 200, 'Activity retrieved', { activity, pagination: paginationOf(query, total) });
  });

  /**
   * Keys (docs/api.md#secret-keys, docs/security.md#restricted-keys), session token only → 200 envelope `{keys}`:
   * secret and restricted keys, masked.
   */
  router.get('/keys', session, async (ctx) => {
    parseOrThrow(environmentOnlyQuery, ctx.query);
    respond(ctx, 200, 'Keys retrieved', { keys: await listSecretKeys(deps, principalOf(ctx)) });
  });

  /**
   * Roll the keys of `{environment}` (docs/api.md#secret-keys), session token only: `{expires_in_hours}` (default 24,
   * 0 = now) → 201 envelope with the new key, its secret shown once. Errors: 400, 409 `conflict`
   * when the environment has no key yet (live before approval).
   */
  router.post('/keys/:environment/roll', session, jsonBody(), async (ctx) => {
    const { environment } = parseOrThrow(environmentParam, ctx.params);
    const body = parseOrThrow(rollKeyBody, ctx.request.body);
    const rolled = await rollSecretKeys(deps, principalOf(ctx), environment, body.expires_in_hours, ctx.ip);
    respond(ctx, 201, 'Key rolled', rolled);
  });

  /**
   * Create a restricted key (docs/security.md#restricted-keys), session token only: `{name, environment, scopes}`
   * → 201 envelope `{key}` with its secret, shown once. Errors: 400; 403 `forbidden` (role, or a live key without
   * a recent two-factor code); 409 `conflict` for live before approval.
   */
  router.post('/keys', session, jsonBody(), async (ctx) => {
    const body = parseOrThrow(createRestrictedKeyBody, ctx.request.body);
    respond(ctx, 201, 'Restricted key created', await createRestrictedKey(deps, principalOf(ctx), body, ctx.ip));
  });

  /**
   * Roll one restricted key (docs/security.md#restricted-keys): `{expires_in_hours}` (default 24, 0 = now) → 201
   * envelope `{key, previous_key_expires_at}`, the successor's secret shown once. Errors: 400, 403, 404.
   */
  router.post('/keys/restricted/:id/roll', session, jsonBody(), async (ctx) => {
    const body = parseOrThrow(rollRestrictedKeyBody, ctx.request.body);
    const id = String(ctx.params.id);
    const rolled = await rollOneRestrictedKey(deps, principalOf(ctx), id, body.expires_in_hours, ctx.ip);
    respond(ctx, 201, 'Key rolled', rolled);
  });

  /**
   * Revoke a restricted key at once (docs/security.md#restricted-keys) → 200 envelope with the key, `revoked`.
   * Errors: 403, 404; 409 `conflict` for a secret key (roll it instead).
   */
  router.delete('/keys/:id', session, jsonBody(), async (ctx) => {
    respond(ctx, 200, 'Key revoked', await revokeKey(deps, principalOf(ctx), String(ctx.params.id), ctx.ip));
  });

  return router;
}
