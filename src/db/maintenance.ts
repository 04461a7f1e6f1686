/**
 * Housekeeping of rows that only age out (docs/payments.md#idempotency, docs/limits.md#rate-limits): expired rate-limit
 * counters and idempotency keys.
 */
import type { Db } from './knex';

/** How long an idempotency key is kept (docs/payments.md#idempotency: it replays for 24 h), in milliseconds. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3600 * 1000;

/**
 * Deletes rate-limit counters whose window has ended (`expire`, Unix milliseconds, as
 * rate-limiter-flexible stores it) and idempotency keys older than 24 h, as of `now`.
 * @returns how many rows of each were deleted
 */
export async function purgeExpiredRows(db: Db, now: Date): Promise<{ rateLimits: number; idempotencyKeys: number }> {
  const rateLimits = await db('rate_limits').where('expire', '<', now.getTime()).delete();
  const idempotencyKeys = await db('idempotency_keys')
    .where('created_at', '<', new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS))
    .delete();
  return { rateLimits, idempotencyKeys };
}
