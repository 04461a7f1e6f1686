/**
 * Rate limits (D50) with rate-limiter-flexible's PostgreSQL store, so every API process shares the
 * counters. Counted per secret key (Bearer or X-API-Key, so both payment families share a key's
 * budget), per developer for session tokens, and per client IP otherwise (`/auth/*`), in fixed
 * windows aligned to the clock minute and hour, plus the endpoint limits. Every response carries
 * `X-RateLimit-Limit/Remaining/Reset` of the window closest to exhaustion; a refused request is
 * 429 `rate_limited` with `Retry-After` (seconds).
 */
import type { Context, Middleware } from 'koa';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type { Config } from '../../config';
import { findLimitProfileByDeveloper, type LimitProfile } from '../../db/developers';
import type { Db } from '../../db/knex';
import { DomainError } from '../../domain/errors';
import { baseLimits, decide, endpointLimits, windowStart, type WindowLimit, type WindowState } from '../../domain/limits';
import { hashSecretKey } from '../../lib/secret-keys';
import { verifySessionToken } from '../../lib/session-tokens';
import { lookUpKey } from './auth';

/** Who a request counts against, and its limits. */
interface Subject {
  id: string;
  limits: WindowLimit[];
}

const SANDBOX_PROFILE: LimitProfile = { environment: 'sandbox', plan: 'sandbox', customPerMinute: null, customPerHour: null };

async function subjectOf(ctx: Context, db: Db, jwtSecret: string): Promise<Subject> {
  const bearer = /^Bearer ([^\s]+)$/.exec(ctx.get('authorization'))?.[1];
  const key = ctx.get('x-api-key') || (bearer?.startsWith('sk_') ? bearer : undefined);
  let id = `ip:${ctx.ip}`;
  let profile: LimitProfile = SANDBOX_PROFILE;
  if (key) {
    id = `key:${hashSecretKey(key)}`;
    profile = (await lookUpKey(ctx, db, key))?.profile ?? SANDBOX_PROFILE;
  } else if (bearer) {
    const developerId = await verifySessionToken(bearer, jwtSecret);
    const environment = ctx.query.environment === 'live' ? 'live' : 'sandbox';
    if (developerId) {
      id = `dev:${developerId}:${environment}`;
      profile = (await findLimitProfileByDeveloper(db, developerId, environment)) ?? SANDBOX_PROFILE;
    }
  }
  const limits = [
    ...baseLimits(profile.environment, profile.plan, { perMinute: profile.customPerMinute, perHour: profile.customPerHour }),
    ...endpointLimits(ctx.method, ctx.path),
  ];
  return { id, limits };
}

/** The D50 middleware; mount right after the error middleware. */
export function rateLimit(deps: { db: Db; config: Pick<Config, 'JWT_SECRET' | 'RATE_LIMIT_MULTIPLIER'> }): Middleware {
  // Counting only: the library never refuses (points is huge); `decide` compares with our limits.
  const counter = new RateLimiterPostgres({
    storeClient: deps.db,
    storeType: 'knex',
    tableName: 'rate_limits',
    tableCreated: true,
    points: Number.MAX_SAFE_INTEGER,
    duration: 3600,
    clearExpiredByTimeout: false,
  });
  const multiplier = deps.config.RATE_LIMIT_MULTIPLIER;

  return async (ctx, next) => {
    // Provider callbacks are signed by the provider and arrive at its pace, not a merchant's (D16).
    if (!ctx.path.startsWith('/v1/') || ctx.path.startsWith('/v1/provider-callbacks/')) return next();
    const nowMs = Date.now();
    const subject = await subjectOf(ctx, deps.db, deps.config.JWT_SECRET);
    const states: WindowState[] = await Promise.all(
      subject.limits.map(async (window) => {
        const start = windowStart(nowMs, window.seconds);
        const result = await counter.consume(`${subject.id}:${window.name}:${start}`, 1, { customDuration: window.seconds + 5 });
        const limit = window.limit * multiplier;
        return { limit, remaining: limit - result.consumedPoints, resetAt: start + window.seconds };
      }),
    );
    const { report, retryAfterSeconds } = decide(states, nowMs);
    ctx.set('X-RateLimit-Limit', String(report.limit));
    ctx.set('X-RateLimit-Remaining', String(report.remaining));
    ctx.set('X-RateLimit-Reset', String(report.resetAt));
    if (retryAfterSeconds !== null) {
      ctx.set('Retry-After', String(retryAfterSeconds));
      throw new DomainError('rate_limited', `rate limit exceeded; retry in ${retryAfterSeconds} seconds`);
    }
    await next();
  };
}
