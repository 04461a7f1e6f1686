/**
 * Rate limits (docs/limits.md#rate-limits): requests per clock minute and clock hour by environment
 * and plan, and the endpoint limits on top. Pure: the middleware counts, this decides.
 */
import type { Environment } from './environment';

/** A fixed window aligned to the clock (docs/limits.md#rate-limits). */
export interface WindowLimit {
  /** Counter name, part of the storage key. */
  name: string;
  /** Window length in seconds (60 or 3600). */
  seconds: number;
  /** Requests allowed in one window. */
  limit: number;
}

/** Plans with published limits (requests per minute and per hour). */
export const PLAN_LIMITS: Readonly<Record<string, { perMinute: number; perHour: number }>> = {
  sandbox: { perMinute: 100, perHour: 1_000 },
  starter: { perMinute: 300, perHour: 5_000 },
  growth: { perMinute: 1_000, perHour: 20_000 },
  enterprise: { perMinute: 1_000, perHour: 20_000 },
};

/** Custom limits an operator set for an enterprise merchant (admin command). */
export interface CustomLimits {
  perMinute: number | null;
  perHour: number | null;
}

/**
 * The minute and hour limits of a caller: sandbox keys always get the sandbox limits; live keys
 * their plan's, or an enterprise merchant's custom ones when set.
 */
export function baseLimits(environment: Environment, plan: string, custom?: CustomLimits): WindowLimit[] {
  const published = environment === 'sandbox' ? PLAN_LIMITS.sandbox : (PLAN_LIMITS[plan] ?? PLAN_LIMITS.starter);
  const perMinute = (environment === 'live' && custom?.perMinute) || published!.perMinute;
  const perHour = (environment === 'live' && custom?.perHour) || published!.perHour;
  return [
    { name: 'minute', seconds: 60, limit: perMinute },
    { name: 'hour', seconds: 3600, limit: perHour },
  ];
}

/**
 * The endpoint limits on top of the base ones (docs/limits.md#rate-limits), per clock minute: login
 * and register count per client IP, creating a payment and sending a webhook test per key. Which
 * request each applies to is the API's to say (src/api/middleware/rate-limit.ts).
 */
export const ENDPOINT_LIMITS = {
  login: { name: 'login', seconds: 60, limit: 10 },
  register: { name: 'register', seconds: 60, limit: 5 },
  createPayment: { name: 'create-payment', seconds: 60, limit: 30 },
  webhookTest: { name: 'webhook-test', seconds: 60, limit: 5 },
} as const satisfies Record<string, WindowLimit>;

/** Start of the clock window containing `nowMs`, in Unix seconds. */
export function windowStart(nowMs: number, seconds: number): number {
  return Math.floor(nowMs / 1000 / seconds) * seconds;
}

/** A counter's state after a request: limit, what is left, and when the window resets (Unix seconds). */
export interface WindowState {
  limit: number;
  remaining: number;
  resetAt: number;
}

/**
 * The window to report in `X-RateLimit-*` (docs/limits.md#rate-limits: the one closest to exhaustion) and, when any is
 * exceeded, the wait in seconds until the last exceeded one resets.
 */
export function decide(
  states: WindowState[],
  nowMs: number,
): { report: WindowState; retryAfterSeconds: number | null } {
  const report = states.reduce((a, b) =>
    b.remaining < a.remaining || (b.remaining === a.remaining && b.resetAt < a.resetAt) ? b : a,
  );
  const exceeded = states.filter((s) => s.remaining < 0);
  const retryAfterSeconds = exceeded.length
    ? Math.max(1, Math.max(...exceeded.map((s) => s.resetAt)) - Math.floor(nowMs / 1000))
    : null;
  return { report: { ...report, remaining: Math.max(0, report.remaining) }, retryAfterSeconds };
}
