/**
 * Plans and custom limits (docs/limits.md#rate-limits). A merchant is on `sandbox` until live access is
 * approved (docs/live-access.md#review assigns `starter`); operators move it with the admin command
 * (docs/live-access.md#admin-command). Custom limits are
 * stored for the `enterprise` plan only. Pure.
 */
import { DomainError } from './errors';

/** Every plan a merchant can be on; `sandbox` is the plan before live access. */
export const PLANS = ['sandbox', 'starter', 'growth', 'enterprise'] as const;
/** One plan. */
export type Plan = (typeof PLANS)[number];

/** True when `value` names a plan. */
export function isPlan(value: string): value is Plan {
  return (PLANS as readonly string[]).includes(value);
}

/** Custom rate limits of an enterprise merchant (docs/limits.md#rate-limits), in requests per minute and per hour. */
export interface CustomLimits {
  perMinute: number;
  perHour: number;
}

/** Largest custom limit per minute or per hour (a sanity bound, not a product promise). */
export const MAX_CUSTOM_LIMIT = 10_000_000;

/**
 * Checks custom limits for a merchant on `plan`.
 * @throws DomainError `validation_error` when the plan is not enterprise, a value is not a positive
 *   integer up to {@link MAX_CUSTOM_LIMIT}, or the hourly limit is below the per-minute one
 */
export function checkCustomLimits(plan: string, limits: CustomLimits): CustomLimits {
  if (plan !== 'enterprise') {
    throw new DomainError(
      'validation_error',
      `custom limits apply to the enterprise plan only; the merchant is on ${plan}`,
    );
  }
  for (const [name, value] of [
    ['per-minute', limits.perMinute],
    ['per-hour', limits.perHour],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1 || value > MAX_CUSTOM_LIMIT) {
      throw new DomainError('validation_error', `${name} must be an integer from 1 to ${MAX_CUSTOM_LIMIT}`);
    }
  }
  if (limits.perHour < limits.perMinute)
    throw new DomainError('validation_error', 'per-hour must be at least per-minute');
  return limits;
}
