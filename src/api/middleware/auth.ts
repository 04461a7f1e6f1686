/**
 * Credentials (docs/api.md#credentials). API keys: `Authorization: Bearer sk_…|rk_…` (generic family, `/developer/*`)
 * or `X-API-Key` (merchant-scoped family). Session tokens: `Authorization: Bearer <JWT>` (documents,
 * live access, `/developer/*`). Missing or malformed → 401 `unauthorized`; an unknown, rolled-out or
 * revoked key → 401 `invalid_api_key`. Once the caller is known, the endpoint's entry in the access table
 * (docs/security.md#roles) decides: a role or a restricted key's scopes that do not allow it → 403 `forbidden`.
 * Every handler then reads `ctx.state.owner` ({@link Principal}).
 */
import type Router from '@koa/router';
import { apiRouter } from '../router';
import type { Context, Middleware } from 'koa';
import type { Db } from '../../db/knex';
import { ENVIRONMENTS, type Environment } from '../../domain/environment';
import { DomainError } from '../../domain/errors';
import type { Principal } from '../../domain/principal';
import { accessProblem, endpointOf } from '../../domain/access';
import { API_KEY_PATTERN, hashSecretKey, looksLikeApiKey } from '../../lib/secret-keys';
import { findSecretKey, sessionOf, type KeyLookup } from '../../services/auth-service';

/**
 * The authenticated caller of this request, set by one of the middlewares below.
 * @throws DomainError `unauthorized` (401) when none ran: a handler is never served without a
 *   caller, even if a route were mounted without its authentication (docs/api.md#credentials)
 */
export function principalOf(ctx: Context): Principal {
  const owner = ctx.state.owner as Principal | undefined;
  if (!owner) throw new DomainError('unauthorized', 'this endpoint needs a credential');
  return owner;
}

function bearerToken(ctx: Context, hint: string): string {
  const match = /^Bearer ([^\s]+)$/.exec(ctx.get('authorization'));
  if (!match) throw new DomainError('unauthorized', hint);
  return match[1] as string;
}

/**
 * The secret key `secret` as the database knows it, read once per request: the rate limits read it
 * first (for the plan), authentication then reuses the answer (docs/api.md#credentials, docs/limits.md#rate-limits).
 * @returns undefined for an unknown key
 */
export async function lookUpKey(ctx: Context, db: Db, secret: string): Promise<KeyLookup | undefined> {
  const hash = hashSecretKey(secret);
  const cached = ctx.state.keyLookup as { hash: string; found: KeyLookup | undefined } | undefined;
  if (cached?.hash === hash) return cached.found;
  const found = await findSecretKey(db, hash);
  ctx.state.keyLookup = { hash, found };
  return found;
}

/** Where the request came from, for the audit log (docs/security.md#activity-log). */
export function originOf(ctx: Context): Principal['origin'] {
  return { requestId: (ctx.state.requestId as string | undefined) ?? null, userAgent: ctx.get('user-agent') || null };
}

/**
 * The path pattern of the route serving this request (`/v1/payments/:id`), asked of the router that dispatched
 * it: inside `router.use()` middleware `_matchedRoute` names the middleware's own layer, not the route.
 */
function matchedRoute(ctx: Context): string {
  const router = (ctx as unknown as { router?: Router }).router;
  const layers = router?.match(ctx.path, ctx.method).pathAndMethod ?? [];
  const route = [...layers].reverse().find((layer) => layer.methods.length > 0);
  return typeof route?.path === 'string' ? route.path : ctx.path;
}

/**
 * Refuses a caller the route's entry of the access table does not allow (docs/security.md#roles,
 * docs/security.md#restricted-keys). The route is the one the router matched, in the OpenAPI spelling.
 * @throws DomainError `forbidden` (403) naming the role or the missing scope
 */
function authorize(ctx: Context, principal: Principal): void {
  const problem = accessProblem(
    { via: principal.via, role: principal.member?.role, scopes: principal.scopes },
    endpointOf(ctx.method, matchedRoute(ctx)),
  );
  if (problem) throw new DomainError('forbidden', problem);
}

/** Sets the caller and checks it may call this route. @throws DomainError `forbidden` (403) */
function admit(ctx: Context, principal: Principal): void {
  ctx.state.owner = principal;
  authorize(ctx, principal);
}

/** Resolves a presented API key (secret or restricted). @throws DomainError invalid_api_key */
async function keyPrincipal(ctx: Context, db: Db, secret: string): Promise<Principal> {
  if (!API_KEY_PATTERN.test(secret)) throw new DomainError('invalid_api_key', 'the API key is not valid');
  const owner = (await lookUpKey(ctx, db, secret))?.owner;
  if (!owner) throw new DomainError('invalid_api_key', 'the API key is not valid');
  return {
    merchantId: owner.merchantId,
    developerId: owner.developerId,
    environment: owner.environment,
    via: 'key',
    keyId: owner.keyId,
    scopes: owner.scopes,
    refusesWhenProviderDown: owner.refusesWhenProviderDown,
    origin: originOf(ctx),
  };
}

/** Resolves a session token; the environment comes from `?environment=` (default sandbox, docs/api.md#credentials). */
async function sessionPrincipal(ctx: Context, db: Db, token: string, jwtSecret: string): Promise<Principal> {
  const session = await sessionOf(db, jwtSecret, token);
  if (!session) throw new DomainError('unauthorized', 'the session token is invalid or expired; log in again');
  const requested = ctx.query.environment ?? 'sandbox';
  if (typeof requested !== 'string' || !(ENVIRONMENTS as readonly string[]).includes(requested)) {
    throw new DomainError('validation_error', 'environment must be one of: sandbox, live', [
      { field: 'environment', message: 'environment must be one of: sandbox, live' },
    ]);
  }
  return {
    merchantId: session.merchantId,
    developerId: session.accountId,
    environment: requested as Environment,
    via: 'session',
    member: session.member,
    origin: originOf(ctx),
  };
}

/** `Authorization: Bearer <secret key>` only (generic payments, docs/api.md#credentials). */
export function bearerSecretKey(db: Db): Middleware {
  return async (ctx, next) => {
    admit(ctx, await keyPrincipal(ctx, db, bearerToken(ctx, 'send your secret key as "Authorization: Bearer sk_…"')));
    await next();
  };
}

/** `X-API-Key: <secret key>` (merchant-scoped payments, docs/api.md#credentials). */
export function apiKeyHeader(db: Db): Middleware {
  return async (ctx, next) => {
    const key = ctx.get('x-api-key');
    if (!key) throw new DomainError('unauthorized', 'send your secret key in the X-API-Key header');
    admit(ctx, await keyPrincipal(ctx, db, key));
    await next();
  };
}

/**
 * A router ({@link apiRouter}) under `prefix` whose every route takes a session token only ({@link sessionToken}): the
 * dashboard's own settings (two-factor, password, team, live access).
 */
export function sessionRouter(prefix: string, deps: { db: Db; config: { JWT_SECRET: string } }): Router {
  const router = apiRouter(prefix);
  router.use(sessionToken(deps.db, deps.config.JWT_SECRET));
  return router;
}

/**
 * A session token only (documents and live access, docs/api.md#credentials): a secret key here is 401 `unauthorized`.
 */
export function sessionToken(db: Db, jwtSecret: string): Middleware {
  return async (ctx, next) => {
    const token = bearerToken(ctx, 'send your session token as "Authorization: Bearer <token>" (POST /v1/auth/login)');
    if (looksLikeApiKey(token))
      throw new DomainError('unauthorized', 'this endpoint takes a session token, not an API key');
    admit(ctx, await sessionPrincipal(ctx, db, token, jwtSecret));
    await next();
  };
}

/** A session token or an API key (`/developer/*`, docs/api.md#credentials). */
export function sessionOrSecretKey(db: Db, jwtSecret: string): Middleware {
  return async (ctx, next) => {
    const token = bearerToken(ctx, 'send a session token or a secret key as "Authorization: Bearer …"');
    admit(
      ctx,
      looksLikeApiKey(token) ? await keyPrincipal(ctx, db, token) : await sessionPrincipal(ctx, db, token, jwtSecret),
    );
    await next();
  };
}

export type { Principal };
