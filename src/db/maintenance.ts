/**
 * Housekeeping of rows that only age out (docs/payments.md#idempotency, docs/limits.md#rate-limits,
 * docs/availability.md#recording): expired rate-limit counters, idempotency keys and operator-health outcomes.
 */
import type { Db } from './knex';
import { deleteProviderOutcomesBefore } from './provider-outcomes';

/** How long an idempotency key is kept (docs/payments.md#idempotency: it replays for 24 h), in milliseconds. */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3600 * 1000;

/**
 * How long a decided attempt's outcome is kept (docs/availability.md#recording: 7 days), in milliseconds: the
 * measurement reads 24 hours of them, and an engineer looking into an incident a week back.
 */
export const PROVIDER_OUTCOME_TTL_MS = 7 * 24 * 3600 * 1000;

/**
 * Deletes rate-limit counters whose window has ended (`expire`, Unix milliseconds, as
 * rate-limiter-flexible stores it), idempotency keys older than 24 h and operator-health outcomes decided more than
 * 7 days before `now`.
 * @returns how many rows of each were deleted
 */
export async function purgeExpiredRows(
  db: Db,
  now: Date,
): Promise<{ rateLimits: number; idempotencyKeys: number; providerOutcomes: number }> {
  const rateLimits = await db('rate_limits').where('expire', '<', now.getTime()).delete();
  const idempotencyKeys = await db('idempotency_keys')
    .where('created_at', '<', new Date(now.getTime() - IDEMPOTENCY_KEY_TTL_MS))
    .delete();
  const providerOutcomes = await deleteProviderOutcomesBefore(db, new Date(now.getTime() - PROVIDER_OUTCOME_TTL_MS));
  return { rateLimits, idempotencyKeys, providerOutcomes };
}
