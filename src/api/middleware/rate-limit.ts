/**
 * Rate limits (docs/limits.md#rate-limits) counted in PostgreSQL, so every API process shares the counters: all the
 * windows of a request in one statement (src/services/rate-limit-service.ts, in rate-limiter-flexible's table shape).
 * The bucket is the credential the route's authentication accepts (docs/limits.md#rate-limits amended): the
 * secret key (Bearer, or X-API-Key on the merchant-scoped family, so both families share a key's
 * budget) or the developer's session; a missing, unknown, inactive or malformed credential counts
 * against the client IP, and `/auth/*` always does, so no header opens a fresh bucket. Fixed
 * windows aligned to the clock minute and hour, plus the endpoint limits. Every response carries
 * `X-RateLimit-Limit/Remaining/Reset` of the window closest to exhaustion; a refused request is
 * 429 `rate_limited` with `Retry-After` (seconds). Expired counters are purged on a schedule
 * (`purgeExpiredRows`). Provider callbacks have their own limit, per provider and client IP, counted
 * in memory before anything is authenticated or read ({@link callbackRateLimit}).
 */
import type { Context, Middleware } from 'koa';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { DomainError } from '../../domain/errors';
import {
  baseLimits,
  decide,
  ENDPOINT_LIMITS,
  windowStart,
  type WindowLimit,
  type WindowState,
} from '../../domain/limits';
import { API_KEY_PATTERN, hashSecretKey, looksLikeApiKey } from '../../lib/secret-keys';
import { sessionLimitProfile, type LimitProfile } from '../../services/auth-service';
import { countRequest } from '../../services/rate-limit-service';
import { lookUpKey } from './auth';

/** Who a request counts against, and its limits. */
interface Subject {
  id: string;
  limits: WindowLimit[];
}

const SANDBOX_PROFILE: LimitProfile = {
  environment: 'sandbox',
  plan: 'sandbox',
  customPerMinute: null,
  customPerHour: null,
};

/**
 * The credential the route's authentication reads (docs/api.md#credentials): X-API-Key on the merchant-scoped family,
 * the Bearer token elsewhere; none on `/auth/*`, which always counts per IP.
 */
function presentedCredential(ctx: Context): string | undefined {
  if (ctx.path.startsWith('/v1/auth/')) return undefined;
  if (ctx.path.startsWith('/v1/api/')) return ctx.get('x-api-key') || undefined;
  return /^Bearer ([^\s]+)$/.exec(ctx.get('authorization'))?.[1];
}

/**
 * The endpoint limits (docs/limits.md#rate-limits) a request counts against besides its base ones.
 * The paths are compared as the routers match them, exactly (docs/api.md#paths): any other spelling
 * of these paths is 404 and never reaches a handler.
 */
function endpointLimitsOf(method: string, path: string): WindowLimit[] {
  if (method !== 'POST') return [];
  if (path === '/v1/auth/login') return [ENDPOINT_LIMITS.login];
  if (path === '/v1/auth/register') return [ENDPOINT_LIMITS.register];
  if (path === '/v1/payments') return [ENDPOINT_LIMITS.createPayment];
  if (/^\/v1\/developer\/webhooks\/[^/]+\/test$/.test(path)) return [ENDPOINT_LIMITS.webhookTest];
  return [];
}

async function subjectOf(ctx: Context, db: Db, jwtSecret: string): Promise<Subject> {
  const credential = presentedCredential(ctx);
  let id = `ip:${ctx.ip}`;
  let profile: LimitProfile = SANDBOX_PROFILE;
  if (credential && looksLikeApiKey(credential)) {
    const found = API_KEY_PATTERN.test(credential) ? await lookUpKey(ctx, db, credential) : undefined;
    if (found?.owner) {
      id = `key:${hashSecretKey(credential)}`;
      profile = found.profile;
    }
  } else if (credential) {
    const environment = ctx.query.environment === 'live' ? 'live' : 'sandbox';
    const session = await sessionLimitProfile(db, jwtSecret, credential, environment);
    if (session) {
      id = `dev:${session.developerId}:${environment}`;
      profile = session.profile;
    }
  }
  const limits = [
    ...baseLimits(profile.environment, profile.plan, {
      perMinute: profile.customPerMinute,
      perHour: profile.customPerHour,
    }),
    ...endpointLimitsOf(ctx.method, ctx.path),
  ];
  return { id, limits };
}

/** The rate-limit middleware (docs/limits.md#rate-limits); mount right after the error middleware. */
export function rateLimit(deps: { db: Db; config: Pick<Config, 'JWT_SECRET' | 'RATE_LIMIT_MULTIPLIER'> }): Middleware {
  const multiplier = deps.config.RATE_LIMIT_MULTIPLIER;

  return async (ctx, next) => {
    // Provider callbacks come at a provider's pace, not a merchant's (docs/payments.md#provider-callbacks):
    // `callbackRateLimit` in their route.
    if (!ctx.path.startsWith('/v1/') || ctx.path.startsWith('/v1/provider-callbacks/')) return next();
    const nowMs = Date.now();
    const subject = await subjectOf(ctx, deps.db, deps.config.JWT_SECRET);
    // Counting only; `decide` compares with our limits. A counter lives a little past its window.
    const windows = subject.limits.map((window) => {
      const start = windowStart(nowMs, window.seconds);
      return { window, start, key: `${subject.id}:${window.name}:${start}` };
    });
    const points = await countRequest(
      deps.db,
      windows.map(({ window, key }) => ({ key, expireAtMs: nowMs + (window.seconds + 5) * 1000 })),
      nowMs,
    );
    const states: WindowState[] = windows.map(({ window, start, key }) => {
      const limit = window.limit * multiplier;
      return { limit, remaining: limit - (points.get(key) ?? 0), resetAt: start + window.seconds };
    });
    enforce(ctx, states, nowMs);
    await next();
  };
}

/**
 * Sets `X-RateLimit-*` of the window closest to exhaustion (docs/limits.md#rate-limits).
 * @throws DomainError `rate_limited` (429) with `Retry-After` set, when a window is exceeded
 */
function enforce(ctx: Context, states: WindowState[], nowMs: number): void {
  const { report, retryAfterSeconds } = decide(states, nowMs);
  ctx.set('X-RateLimit-Limit', String(report.limit));
  ctx.set('X-RateLimit-Remaining', String(report.remaining));
  ctx.set('X-RateLimit-Reset', String(report.resetAt));
  if (retryAfterSeconds !== null) {
    ctx.set('Retry-After', String(retryAfterSeconds));
    throw new DomainError('rate_limited', `rate limit exceeded; retry in ${retryAfterSeconds} seconds`);
  }
}

/** Window of the in-memory limits: the clock minute (docs/limits.md#callback-limits). */
const MEMORY_WINDOW_SECONDS = 60;

/**
 * A limit of `limit` requests per key in each clock minute, counted in this process's memory (rate-limiter-flexible),
 * so a flood is refused before anything is authenticated or read and never reaches PostgreSQL; with several API
 * processes each counts its own. Refused requests count too.
 * @returns the check of one request against `key`; it sets `X-RateLimit-*` and throws DomainError `rate_limited`
 *   (429, `Retry-After` in seconds) past the limit
 */
function memoryMinuteLimit(limit: number): (ctx: Context, key: string) => Promise<void> {
  // Counting only, as above; a key lives a little past its minute.
  const counter = new RateLimiterMemory({ points: Number.MAX_SAFE_INTEGER, duration: MEMORY_WINDOW_SECONDS + 5 });
  return async (ctx, key) => {
    const nowMs = Date.now();
    const start = windowStart(nowMs, MEMORY_WINDOW_SECONDS);
    const result = await counter.consume(`${key}:${start}`, 1);
    enforce(ctx, [{ limit, remaining: limit - result.consumedPoints, resetAt: start + MEMORY_WINDOW_SECONDS }], nowMs);
  };
}

/** The page's limit (docs/limits.md#checkout-page-limits): requests per clock minute per session and per client IP. */
export const CHECKOUT_PAGE_LIMIT_PER_MINUTE = 60;

/**
 * One request against a checkout session's page limit (docs/limits.md#checkout-page-limits): at most
 * {@link CHECKOUT_PAGE_LIMIT_PER_MINUTE} × RATE_LIMIT_MULTIPLIER requests per session and per client IP (the socket's
 * address) in each clock minute, counted in PostgreSQL like the base limits, so every API process shares them; refused
 * requests count too.
 * @returns the check of one request of `ctx` on session `sessionId`; it sets `X-RateLimit-*` of the closer window and
 *   throws DomainError `rate_limited` (429, `Retry-After` in seconds) past either
 */
export function checkoutPageLimit(deps: {
  db: Db;
  config: Pick<Config, 'RATE_LIMIT_MULTIPLIER'>;
}): (ctx: Context, sessionId: string) => Promise<void> {
  const limit = CHECKOUT_PAGE_LIMIT_PER_MINUTE * deps.config.RATE_LIMIT_MULTIPLIER;
  return async (ctx, sessionId) => {
    const nowMs = Date.now();
    const start = windowStart(nowMs, 60);
    const keys = [`page:cs:${sessionId}:${start}`, `page:ip:${ctx.ip}:${start}`];
    const points = await countRequest(
      deps.db,
      keys.map((key) => ({ key, expireAtMs: nowMs + 65_000 })),
      nowMs,
    );
    enforce(
      ctx,
      keys.map((key) => ({ limit, remaining: limit - (points.get(key) ?? 0), resetAt: start + 60 })),
      nowMs,
    );
  };
}

/**
 * The checkout page's limit ({@link checkoutPageLimit}) on the session's own API without a key (`/public`,
 * `/attempts`, `/events`). Mount on a route whose parameter `param` (default `id`) is the session id, before the body
 * is read: a refused request reads nothing and starts nothing.
 * @returns the middleware; it throws DomainError `rate_limited` (429, `Retry-After` in seconds) past the limit
 */
export function checkoutPageRateLimit(
  deps: { db: Db; config: Pick<Config, 'RATE_LIMIT_MULTIPLIER'> },
  param = 'id',
): Middleware {
  const check = checkoutPageLimit(deps);
  return async (ctx, next) => {
    const params = (ctx as Context & { params?: Record<string, string> }).params ?? {};
    await check(ctx, params[param] ?? '');
    await next();
  };
}

/**
 * The limit of `POST /v1/provider-callbacks/{provider}` (docs/limits.md#callback-limits): at most
 * PROVIDER_CALLBACK_RATE_LIMIT_PER_MINUTE × RATE_LIMIT_MULTIPLIER callbacks per provider and client
 * IP (the socket's address: the app trusts no proxy headers) in each clock minute, in memory
 * ({@link memoryMinuteLimit}).
 * @returns the check, for a request of a known provider `provider`; it sets `X-RateLimit-*` and
 *   throws DomainError `rate_limited` (429, `Retry-After` in seconds) past the limit
 */
export function callbackRateLimit(
  config: Pick<Config, 'PROVIDER_CALLBACK_RATE_LIMIT_PER_MINUTE' | 'RATE_LIMIT_MULTIPLIER'>,
): (ctx: Context, provider: string) => Promise<void> {
  const check = memoryMinuteLimit(config.PROVIDER_CALLBACK_RATE_LIMIT_PER_MINUTE * config.RATE_LIMIT_MULTIPLIER);
  return (ctx, provider) => check(ctx, `${provider}:${ctx.ip}`);
}

/**
 * The limit of `GET /l/{id}` (docs/payment-links.md#opening): each opening creates a checkout session, so a client IP
 * (the socket's address) opens at most LINK_OPEN_RATE_LIMIT_PER_MINUTE × RATE_LIMIT_MULTIPLIER links, any links, in
 * each clock minute, in memory ({@link memoryMinuteLimit}).
 * @returns the check of one opening; it sets `X-RateLimit-*` and throws DomainError `rate_limited` (429,
 *   `Retry-After` in seconds) past the limit
 */
export function linkOpenRateLimit(
  config: Pick<Config, 'LINK_OPEN_RATE_LIMIT_PER_MINUTE' | 'RATE_LIMIT_MULTIPLIER'>,
): (ctx: Context) => Promise<void> {
  const check = memoryMinuteLimit(config.LINK_OPEN_RATE_LIMIT_PER_MINUTE * config.RATE_LIMIT_MULTIPLIER);
  return (ctx) => check(ctx, `link-open:${ctx.ip}`);
}
