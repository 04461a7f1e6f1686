/**
 * `Idempotency-Key` (docs/payments.md#idempotency) on the POSTs that create or change money. The first request with a
 * key
 * claims it and its 2xx response is stored; the same key with the same body within 24 h replays
 * that response with `Idempotent-Replayed: true`; with a different body → 409
 * `idempotency_key_reused`. Concurrent requests with one key wait for the first to answer, so they
 * create one payment. A request refused with a 4xx (nothing happened) releases its key, so it can
 * be retried at once; a request that failed otherwise (5xx, a lost connection) keeps its claim,
 * because a side effect may have happened: the same request takes the claim over once its lease
 * (`IDEMPOTENCY_LEASE_MS`) ran out, and its derived ids reattach to whatever the first attempt
 * started. Who owns a key is decided in src/services/idempotency-service.ts.
 */
import { createHash } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { Db } from '../../db/knex';
import { DomainError, validationError } from '../../domain/errors';
import { claimOrReplay, releaseClaim, saveFirstAnswer } from '../../services/idempotency-service';
import { principalOf } from './auth';
import { HTTP_STATUS } from '../errors';
import { checkTextHeader } from '../schemas/validate';

/**
 * Hash of what makes two requests "the same": method, path and JSON body. The parsed body is hashed,
 * not its bytes, so spacing does not make a retry another request; it came through `jsonBody()`,
 * nested at most 64 levels (docs/api.md#errors), so serialising it cannot exhaust the stack.
 */
function requestHash(ctx: Context): string {
  return createHash('sha256')
    .update(`${ctx.method} ${ctx.path}\n${JSON.stringify(ctx.request.body ?? {})}`)
    .digest('hex');
}

function replay(ctx: Context, status: number, bodyJson: string | null): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = bodyJson ?? '';
  ctx.set('Idempotent-Replayed', 'true');
}

/**
 * What the ids of a request's side effects derive from (docs/payments.md#idempotency: payment, refund and Update ids):
 * its
 * `Idempotency-Key` and the hash of the request, so a retry of the same request reattaches to what
 * the first attempt started, while the same key with another request after the 24 h window does
 * not. Undefined without a key.
 */
export function idempotencySeed(ctx: Context): string | undefined {
  return typeof ctx.state.idempotencySeed === 'string' ? ctx.state.idempotencySeed : undefined;
}

/**
 * True when the request's `Idempotency-Key` was not on record when it claimed it: no earlier attempt of this key
 * started anything within its window, so there is nothing of it to look up first (docs/payments.md#idempotency).
 * False without a key, and for a key taken over from an attempt that may have started something.
 */
export function idempotencyKeyFirstUse(ctx: Context): boolean {
  return ctx.state.idempotencyFirstUse === true;
}

/**
 * How a route brings a stored answer up to date on replay: the stored body's JSON in, the body as the resource now
 * stands out (undefined: replay the stored body). A refund's first answer may be `pending`; its replay says what it
 * became (docs/payments.md#idempotency).
 */
export type ReplayRefresh = (ctx: Context, bodyJson: string) => Promise<string | undefined>;

/**
 * The idempotency-key middleware (docs/payments.md#idempotency); mount after authentication and body parsing.
 * @param leaseMs how long an unanswered claim is its owner's, in milliseconds (configuration `IDEMPOTENCY_LEASE_MS`, 30
 *   s by default)
 * @param refresh how a replay is brought up to date ({@link ReplayRefresh}); without it the stored body is replayed
 */
export function idempotency(db: Db, leaseMs?: number, refresh?: ReplayRefresh): Middleware {
  return async (ctx, next) => {
    const key = ctx.get('idempotency-key');
    if (!key) return next();
    if (key.length > 255) {
      throw validationError([{ field: 'Idempotency-Key', message: 'Idempotency-Key must be at most 255 characters' }]);
    }
    checkTextHeader('Idempotency-Key', key);
    const owner = principalOf(ctx);
    const hash = requestHash(ctx);
    ctx.state.idempotencySeed = `${key}\n${hash}`;
    const claim = await claimOrReplay(db, owner, key, hash, leaseMs);
    if (claim.kind === 'replay') {
      const fresh = refresh && claim.bodyJson ? await refresh(ctx, claim.bodyJson) : undefined;
      return replay(ctx, claim.status, fresh ?? claim.bodyJson);
    }
    ctx.state.idempotencyFirstUse = claim.first;

    try {
      await next();
    } catch (error) {
      // A refusal changed nothing, nor did a 503 refused before anything was done (a provider that is down: it names
      // its Retry-After, docs/availability.md#api-create); anything else may have, so the claim stays until its lease
      // ends.
      if (
        error instanceof DomainError &&
        ((error.status ?? HTTP_STATUS[error.code]) < 500 || error.retryAfterSeconds !== undefined)
      )
        await releaseClaim(db, owner, key);
      throw error;
    }
    if (ctx.status >= 200 && ctx.status < 300) {
      const bodyJson = JSON.stringify(ctx.body);
      await saveFirstAnswer(db, owner, key, ctx.status, bodyJson);
      ctx.type = 'application/json';
      ctx.body = bodyJson; // the owner answers the very text every replay will
    } else {
      await releaseClaim(db, owner, key);
    }
  };
}
