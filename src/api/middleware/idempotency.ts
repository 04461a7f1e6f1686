/**
 * `Idempotency-Key` (docs/payments.md#idempotency) on the POSTs that create or change money. The first request with a key
 * claims it and its 2xx response is stored; the same key with the same body within 24 h replays
 * that response with `Idempotent-Replayed: true`; with a different body → 409
 * `idempotency_key_reused`. Concurrent requests with one key wait for the first to answer, so they
 * create one payment. A request refused with a 4xx (nothing happened) releases its key, so it can
 * be retried at once; a request that failed otherwise (5xx, a lost connection) keeps its claim,
 * because a side effect may have happened: the same request takes the claim over once its lease
 * ({@link IDEMPOTENCY_LEASE_MS}) ran out, and its derived ids reattach to whatever the first
 * attempt started (docs/payments.md#idempotency amended).
 */
import { createHash } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import {
  claimIdempotencyKey,
  findIdempotencyKey,
  releaseIdempotencyKey,
  saveIdempotentResponse,
  type KeyScope,
} from '../../db/idempotency-keys';
import type { Db } from '../../db/knex';
import { DomainError, validationError } from '../../domain/errors';
import { principalOf } from './auth';
import { HTTP_STATUS } from '../errors';

/** How long a key replays its first response (docs/payments.md#idempotency: 24 h), in milliseconds. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;
/** How long a request waits for a concurrent one holding its key, in milliseconds. */
const WAIT_FOR_OWNER_MS = 30_000;
/** How long a claim without an answer belongs to its request before the same request may take it over (docs/payments.md#idempotency: 30 s), in milliseconds. */
export const IDEMPOTENCY_LEASE_MS = 30_000;
const POLL_MS = 25;

/** Hash of what makes two requests "the same": method, path and JSON body. */
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
 * What the ids of a request's side effects derive from (docs/payments.md#idempotency: payment, refund and Update ids): its
 * `Idempotency-Key` and the hash of the request, so a retry of the same request reattaches to what
 * the first attempt started, while the same key with another request after the 24 h window does
 * not. Undefined without a key.
 */
export function idempotencySeed(ctx: Context): string | undefined {
  return typeof ctx.state.idempotencySeed === 'string' ? ctx.state.idempotencySeed : undefined;
}

/**
 * The idempotency-key middleware (docs/payments.md#idempotency); mount after authentication and body parsing.
 * @param leaseMs how long an unanswered claim is its owner's (IDEMPOTENCY_LEASE_MS; shorter in tests)
 */
export function idempotency(db: Db, leaseMs: number = IDEMPOTENCY_LEASE_MS): Middleware {
  return async (ctx, next) => {
    const key = ctx.get('idempotency-key');
    if (!key) return next();
    if (key.length > 255) {
      throw validationError([{ field: 'Idempotency-Key', message: 'Idempotency-Key must be at most 255 characters' }]);
    }
    const owner = principalOf(ctx);
    const scope: KeyScope = { merchantId: owner.merchantId, environment: owner.environment, key };
    const hash = requestHash(ctx);
    ctx.state.idempotencySeed = `${key}\n${hash}`;
    const deadline = Date.now() + WAIT_FOR_OWNER_MS;
    for (;;) {
      // A key past the replay window is claimed as if new (docs/payments.md#idempotency: 24 h).
      if (await claimIdempotencyKey(db, scope, hash, new Date(Date.now() - IDEMPOTENCY_WINDOW_MS), new Date(Date.now() - leaseMs))) break;
      const stored = await findIdempotencyKey(db, scope);
      if (!stored) continue; // released by a failed owner: claim it again
      if (stored.request_hash !== hash) {
        throw new DomainError('idempotency_key_reused', 'this Idempotency-Key was used with a different request');
      }
      if (stored.response_status !== null) return replay(ctx, stored.response_status, stored.response_body);
      if (Date.now() > deadline) throw new DomainError('conflict', 'a request with this Idempotency-Key is still in progress');
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }

    try {
      await next();
    } catch (error) {
      // A refusal changed nothing; anything else may have, so the claim stays until its lease ends.
      if (error instanceof DomainError && (error.status ?? HTTP_STATUS[error.code]) < 500) await releaseIdempotencyKey(db, scope);
      throw error;
    }
    if (ctx.status >= 200 && ctx.status < 300) {
      const bodyJson = JSON.stringify(ctx.body);
      await saveIdempotentResponse(db, scope, ctx.status, bodyJson);
      ctx.type = 'application/json';
      ctx.body = bodyJson; // the owner answers the very text every replay will
    } else {
      await releaseIdempotencyKey(db, scope);
    }
  };
}
