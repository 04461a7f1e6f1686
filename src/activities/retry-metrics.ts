/**
 * Worker metrics of activity retries (docs/limits.md#retries), so that no workflow
 * retries unseen: an activity interceptor counts every attempt after the first, and every attempt
 * that failed for a fault and will not be tried again (its policy's attempts or schedule-to-close
 * time spent, or data PostgreSQL refuses). Counted on the activity context's metric meter, which the
 * worker exports with the Temporal SDK's metrics on WORKER_METRICS_PORT (Prometheus).
 */
import type { Context, Info } from '@temporalio/activity';
import {
  ApplicationFailure,
  ApplicationFailureCategory,
  CancelledFailure,
  msOptionalToNumber,
  type MetricCounter,
  type MetricMeter,
} from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { FAILURE_TYPES } from '../workflows/activity-contracts';

/** Counter of activity attempts after the first, by `activityType` (`pollProviderPayment`'s are its polls). */
export const ACTIVITY_RETRIES_METRIC = 'paycollect_activity_retries';

/**
 * Counter of activities that failed for a fault and are not tried again, by `activityType` and `reason` ({@link
 * GiveUpReason}).
 */
export const ACTIVITY_GIVE_UPS_METRIC = 'paycollect_activity_give_ups';

/**
 * Why an activity is not tried again after a fault: `max_attempts` (its policy's `maximumAttempts`
 * reached), `schedule_to_close` (the next attempt would start after its schedule-to-close
 * time-out), `data_error` (PostgreSQL refused its data: non-retryable by design).
 */
export type GiveUpReason = 'max_attempts' | 'schedule_to_close' | 'data_error';

/** Server defaults of a retry policy's fields the activity's info leaves out (milliseconds). */
const DEFAULT_INITIAL_INTERVAL_MS = 1_000;
const DEFAULT_BACKOFF_COEFFICIENT = 2;
const DEFAULT_MAXIMUM_INTERVAL_FACTOR = 100;

/**
 * The failure type Temporal matches against `nonRetryableErrorTypes`: the ApplicationFailure's type, or the error's
 * name.
 */
function failureTypeOf(error: unknown): string | undefined {
  if (error instanceof ApplicationFailure) return error.type ?? undefined;
  return error instanceof Error ? error.name : undefined;
}

/**
 * Why the attempt that failed with `error` is the activity's last, or undefined when it will be
 * tried again or failed by decision (a decline, a benign or non-retryable failure, a cancellation).
 * The schedule-to-close case is judged from the policy's next backoff; an attempt that is cut off by
 * its time-out never reaches here, so that give-up is not counted.
 * @param nowMs the time of the failure, in milliseconds since the epoch
 */
export function giveUpReason(
  error: unknown,
  info: Pick<Info, 'attempt' | 'retryPolicy' | 'scheduledTimestampMs' | 'scheduleToCloseTimeoutMs'>,
  nowMs: number,
): GiveUpReason | undefined {
  const type = failureTypeOf(error);
  if (type === FAILURE_TYPES.dataError || type === FAILURE_TYPES.paymentNotRecorded) return 'data_error';
  if (error instanceof CancelledFailure) return undefined;
  if (
    error instanceof ApplicationFailure &&
    (error.nonRetryable || error.category === ApplicationFailureCategory.BENIGN)
  )
    return undefined;
  const policy = info.retryPolicy;
  if (type !== undefined && policy?.nonRetryableErrorTypes?.includes(type)) return undefined;
  const maximumAttempts = policy?.maximumAttempts ?? 0;
  if (maximumAttempts > 0 && info.attempt >= maximumAttempts) return 'max_attempts';
  if (info.scheduleToCloseTimeoutMs > 0) {
    const initialMs = msOptionalToNumber(policy?.initialInterval) ?? DEFAULT_INITIAL_INTERVAL_MS;
    const maximumMs = msOptionalToNumber(policy?.maximumInterval) ?? initialMs * DEFAULT_MAXIMUM_INTERVAL_FACTOR;
    const backoffMs = Math.min(
      initialMs * (policy?.backoffCoefficient ?? DEFAULT_BACKOFF_COEFFICIENT) ** (info.attempt - 1),
      maximumMs,
    );
    if (nowMs + backoffMs >= info.scheduledTimestampMs + info.scheduleToCloseTimeoutMs) return 'schedule_to_close';
  }
  return undefined;
}

/** The two counters on `meter`, the activity's own. */
function countersOf(meter: MetricMeter): { retries: MetricCounter; giveUps: MetricCounter } {
  return {
    retries: meter.createCounter(
      ACTIVITY_RETRIES_METRIC,
      'attempts',
      'activity attempts after the first, by activity type',
    ),
    giveUps: meter.createCounter(
      ACTIVITY_GIVE_UPS_METRIC,
      'activities',
      'activities that failed for a fault and are not tried again, by activity type and reason',
    ),
  };
}

/**
 * The activity interceptor of the retry metrics (`WorkerOptions.interceptors.activity`). On
 * `ctx.metricMeter`, which tags every value with `namespace`, `taskQueue` and `activityType`, it
 * counts an attempt > 1 in {@link ACTIVITY_RETRIES_METRIC} when it starts, and a failure that ends
 * the activity ({@link giveUpReason}) in {@link ACTIVITY_GIVE_UPS_METRIC}; the activity's result or
 * error passes through unchanged.
 */
export const activityRetryMetrics: ActivityInterceptorsFactory = (ctx: Context) => ({
  inbound: {
    async execute(input, next) {
      const { info } = ctx;
      const counters = countersOf(ctx.metricMeter);
      if (info.attempt > 1) counters.retries.add(1);
      try {
        return await next(input);
      } catch (error) {
        const reason = giveUpReason(error, info, Date.now());
        if (reason) counters.giveUps.add(1, { reason });
        throw error;
      }
    },
  },
});
