/**
 * Activity options of the workflows, in one place so every retry is seen bounded
 * (docs/limits.md#retries): each policy ends, by `maximumAttempts` or by a schedule-to-close
 * time-out, and where a step must not be abandoned the bound is long and the worker's metrics
 * (`paycollect_activity_retries`, `paycollect_activity_give_ups`) alert long before it is reached.
 */
import type { ActivityOptions, LocalActivityOptions } from '@temporalio/workflow';
import { MAX_POLL_DELAY_MS } from '../domain/payment';
import { FAILURE_TYPES } from './activity-contracts';

/** Types of activity failures that retrying will not change. */
export const NON_RETRYABLE_TYPES: string[] = [
  FAILURE_TYPES.providerUnavailable,
  FAILURE_TYPES.providerRejected,
  FAILURE_TYPES.providerUnsupported,
  FAILURE_TYPES.notFound,
  FAILURE_TYPES.dataError,
  FAILURE_TYPES.paymentNotRecorded,
];

/**
 * How long a read-model write (payment, refund, delivery log, review) is retried while PostgreSQL
 * fails it before the run gives up and fails: 7 days, past any outage one rides out. The write
 * carries a decision already made, so it is not abandoned early; the retries metric fires within
 * the first minute instead. A run that gave up leaves the read model at its last write; the next
 * Update or callback re-opens a payment from there (docs/payments.md#workflow).
 */
export const READ_MODEL_WRITE_GIVE_UP = '7 days';

/**
 * Read-model writes of the payment workflow and the delivery log: short attempts, retried up to {@link
 * READ_MODEL_WRITE_GIVE_UP}.
 */
export const RECORD_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: READ_MODEL_WRITE_GIVE_UP,
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    nonRetryableErrorTypes: NON_RETRYABLE_TYPES,
  },
};

/**
 * The write of the answer initiation brought, a local activity in the create's workflow task
 * (docs/payments.md#refunds-happen-once): the bounds of {@link RECORD_OPTIONS}; retries past a
 * minute wait on a server timer instead of holding the workflow task.
 */
export const INITIATION_RECORD_OPTIONS: LocalActivityOptions = {
  startToCloseTimeout: RECORD_OPTIONS.startToCloseTimeout,
  scheduleToCloseTimeout: RECORD_OPTIONS.scheduleToCloseTimeout,
  retry: RECORD_OPTIONS.retry,
};

/** One attempt of `initiatePayment`: a write and a provider call (10 s, PROVIDER_CALL_TIMEOUT_MS) and a write. */
export const INITIATION_ATTEMPT_TIMEOUT = '15 seconds';

/**
 * The shortest time `initiatePayment` is retried, in milliseconds (5 min): past the activity's own 2 min provider
 * give-up.
 */
export const INITIATION_MIN_GIVE_UP_MS = 300_000;

/**
 * `initiatePayment`, a local activity in the create's workflow task
 * (docs/payments.md#refunds-happen-once), retried until the payment's expiry (at least
 * {@link INITIATION_MIN_GIVE_UP_MS}): a payment that could not be initiated by then would have
 * expired anyway, and fails
 * `provider_error`. The activity itself stops retrying a provider's unknown answers after 2 minutes
 * (PROVIDER_GIVE_UP_MS) and fails `ProviderUnavailable`.
 * @param untilExpiryMs milliseconds from now (workflow time) to the payment's `expires_at`
 */
export function initiationOptions(untilExpiryMs: number): LocalActivityOptions {
  return {
    startToCloseTimeout: INITIATION_ATTEMPT_TIMEOUT,
    scheduleToCloseTimeout: Math.max(untilExpiryMs, INITIATION_MIN_GIVE_UP_MS),
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '20 seconds',
      nonRetryableErrorTypes: NON_RETRYABLE_TYPES,
    },
  };
}

/** Provider questions (status, cancel, a refund's status): unknown answers retried for 2 minutes. */
export const PROVIDER_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '15 seconds',
  scheduleToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '20 seconds',
    nonRetryableErrorTypes: NON_RETRYABLE_TYPES,
  },
};

/**
 * A refund's call: unknown answers retried for 10 seconds (the same idempotency key), then the
 * refund stays `pending` and reserved and is decided by asking the provider (docs/payments.md#cancel-and-refund), so
 * the merchant
 * hears `pending` instead of waiting on a provider that does not answer.
 */
export const REFUND_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '10 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    nonRetryableErrorTypes: NON_RETRYABLE_TYPES,
  },
};

/** One `pollProviderPayment` attempt: one poll, under the 10 s provider call time-out. */
export const POLL_ATTEMPT_TIMEOUT = '15 seconds';

/**
 * `pollProviderPayment`, whose retries are the later polls (docs/payments.md#workflow): first after `firstDelayMs`,
 * doubling to 60 s, until the payment's expiry, where `expire` takes over.
 * @param firstDelayMs the wait before the second poll, in milliseconds
 * @param untilExpiryMs milliseconds from now (workflow time) to `expires_at`; positive
 */
export function pollOptions(firstDelayMs: number, untilExpiryMs: number): ActivityOptions {
  return {
    startToCloseTimeout: POLL_ATTEMPT_TIMEOUT,
    scheduleToCloseTimeout: untilExpiryMs,
    retry: {
      initialInterval: firstDelayMs,
      backoffCoefficient: 2,
      maximumInterval: MAX_POLL_DELAY_MS,
      nonRetryableErrorTypes: NON_RETRYABLE_TYPES,
    },
  };
}

/** Live access review writes: a decision must not be lost, so retried up to {@link READ_MODEL_WRITE_GIVE_UP}. */
export const REVIEW_RECORD_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '15 seconds',
  scheduleToCloseTimeout: READ_MODEL_WRITE_GIVE_UP,
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: NON_RETRYABLE_TYPES,
  },
};

/** Review e-mail: retried for a day, then given up on (logged), so a dead mail server cannot stall a review. */
export const REVIEW_MAIL_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  scheduleToCloseTimeout: '1 day',
  retry: {
    initialInterval: '5 seconds',
    backoffCoefficient: 2,
    maximumInterval: '15 minutes',
    nonRetryableErrorTypes: NON_RETRYABLE_TYPES,
  },
};

/**
 * The delivery log's own writes (local activities of the webhook delivery workflow): tried for a
 * minute, after which the workflow's own loop waits and tries again (it never drops what happened).
 */
export const DELIVERY_RECORD_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '10 seconds',
  scheduleToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumInterval: '10 seconds',
    nonRetryableErrorTypes: NON_RETRYABLE_TYPES,
  },
};

/**
 * A reconciliation run (docs/reconciliation.md#runs): one attempt may read a provider's statement for
 * minutes; one that fails (the provider answers 500, times out, pages for ever) is retried every few
 * minutes for up to a day, and the run stays `failed` in between.
 */
export const RECONCILIATION_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '10 minutes',
  scheduleToCloseTimeout: '1 day',
  retry: {
    initialInterval: '1 minute',
    backoffCoefficient: 2,
    maximumInterval: '30 minutes',
    // A day that is not one, or data PostgreSQL refuses, stays so however often it is tried.
    nonRetryableErrorTypes: [FAILURE_TYPES.dataError, 'InvalidReconciliationDay'],
  },
};
