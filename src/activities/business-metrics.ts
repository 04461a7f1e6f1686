/**
 * The worker's business metrics (docs/operations.md#metrics), counted by the activities where each thing happens, on
 * the
 * activity context's metric meter: the worker exports them with the Temporal SDK's metrics on its
 * Prometheus endpoint (WORKER_METRICS_PORT), each tagged by the SDK with `namespace`, `task_queue`
 * and `activity_type`. No table is read to count them. Counters have no `_total` suffix (the SDK
 * exporter's default), histograms are in seconds with the buckets of {@link BUSINESS_HISTOGRAM_BUCKETS}.
 *
 * | metric | kind | labels |
 * |---|---|---|
 * | `paycollect_payments_created` | counter | environment, method, provider |
 * | `paycollect_payments_settled` | counter | environment, method, provider, outcome ({@link SettlementOutcome}) |
 * | `paycollect_payment_settlement_seconds` | histogram | environment, provider, outcome: create → final status |
 * | `paycollect_provider_call_seconds` | histogram | provider, operation, outcome (ok, refused, unsupported, unknown) |
 * | `paycollect_provider_call_errors` | counter | provider, operation, reason (timeout, error): unknown answers |
 * | `paycollect_refunds_settled` | counter | environment, provider, outcome (completed, failed) |
 * | `paycollect_webhook_attempts` | counter | environment, outcome (succeeded, failed, gone), attempt (1–5) |
 * | `paycollect_webhook_delivery_seconds` | histogram | environment: event written → the attempt that succeeded |
 *
 * Late provider answers (`paycollect_late_provider_answers`) and webhook attempts not made are
 * counted by the workflows themselves; activity retries and give-ups by src/activities/retry-metrics.ts.
 * Payments created and settled and refunds settled are also logged, one `info` line each (docs/operations.md#logs).
 * A counter moves once its write committed; an activity whose completion is lost after that (a
 * worker killed in between) and is run again may count twice, so the figures are at least the truth.
 */
import { Context } from '@temporalio/activity';
import type { MetricMeter, MetricTags } from '@temporalio/common';
import type { ProviderCode } from '../domain/catalogue';
import type { PaymentSnapshot } from '../domain/payment';
import type { RefundRecord } from '../domain/refund';
import type { AttemptOutcome } from '../domain/webhooks';
import { classifyAttempt } from '../domain/webhooks';
import { getProcessLogger } from '../logger';

/** Metric names (the Grafana dashboard ops/grafana/paycollect.json queries them). */
export const BUSINESS_METRICS = {
  paymentsCreated: 'paycollect_payments_created',
  paymentsSettled: 'paycollect_payments_settled',
  settlementSeconds: 'paycollect_payment_settlement_seconds',
  providerCallSeconds: 'paycollect_provider_call_seconds',
  providerCallErrors: 'paycollect_provider_call_errors',
  refundsSettled: 'paycollect_refunds_settled',
  webhookAttempts: 'paycollect_webhook_attempts',
  webhookDeliverySeconds: 'paycollect_webhook_delivery_seconds',
} as const;

/**
 * Histogram buckets in seconds, for `telemetryOptions.metrics.prometheus.histogramBucketOverrides`
 * (the SDK's default buckets are for milliseconds). Settlement spans a mobile-money approval (seconds)
 * to a bank transfer (up to 72 h, docs/payments.md#states).
 */
export const BUSINESS_HISTOGRAM_BUCKETS: Record<string, number[]> = {
  [BUSINESS_METRICS.settlementSeconds]: [1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 21_600, 86_400, 259_200],
  [BUSINESS_METRICS.providerCallSeconds]: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  [BUSINESS_METRICS.webhookDeliverySeconds]: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21_600, 86_400],
};

/** Which provider call is timed. */
export type ProviderOperation = 'initiate' | 'fetch_status' | 'poll' | 'cancel' | 'refund' | 'fetch_refund';

/**
 * How a provider call ended: an answer, a definite refusal, a flow it lacks, or no usable answer (time-out, 5xx,
 * network).
 */
export type ProviderCallOutcome = 'ok' | 'refused' | 'unsupported' | 'unknown';

/**
 * How a payment settled: its final status, `expired` for a failure by expiry, `reconciled` for a late success after a
 * failure (docs/payments.md#states).
 */
export type SettlementOutcome = 'completed' | 'failed' | 'expired' | 'cancelled' | 'reconciled';

/** The running activity's meter, or undefined outside an activity (nothing is counted then). */
function activityMeter(): MetricMeter | undefined {
  try {
    return Context.current().metricMeter;
  } catch {
    return undefined;
  }
}

function count(name: string, help: string, tags: MetricTags): void {
  activityMeter()?.createCounter(name, '1', help).add(1, tags);
}

function observe(name: string, help: string, seconds: number, tags: MetricTags): void {
  if (!Number.isFinite(seconds) || seconds < 0) return;
  activityMeter()?.createHistogram(name, 'float', 's', help).record(seconds, tags);
}

/** Seconds from ISO time `from` to ISO time `to` (NaN when either does not parse). */
function secondsBetween(from: string, to: string): number {
  return (Date.parse(to) - Date.parse(from)) / 1000;
}

/** Counts and logs a payment written to the read model for the first time (`initiatePayment`). */
export function countPaymentCreated(
  payment: Pick<PaymentSnapshot, 'id' | 'merchantId' | 'environment' | 'paymentMethod' | 'provider'>,
): void {
  const tags = { environment: payment.environment, method: payment.paymentMethod, provider: payment.provider };
  count(BUSINESS_METRICS.paymentsCreated, 'payments created, by environment, method and provider', tags);
  getProcessLogger().info({ payment_id: payment.id, merchant_id: payment.merchantId, ...tags }, 'payment created');
}

/**
 * How the write of `payment` settled it, or undefined when it does not: an open status, or the
 * write of a late answer, which leaves the status as it was (docs/payments.md#states).
 */
export function settlementOutcomeOf(
  payment: Pick<PaymentSnapshot, 'status' | 'failureCode' | 'reconciledAt' | 'lateAnswer'>,
): SettlementOutcome | undefined {
  if (payment.lateAnswer) return undefined;
  switch (payment.status) {
    case 'completed':
      return payment.reconciledAt ? 'reconciled' : 'completed';
    case 'failed':
      return payment.failureCode === 'expired' ? 'expired' : 'failed';
    case 'cancelled':
      return 'cancelled';
    default:
      return undefined;
  }
}

/**
 * Counts and logs a payment whose final status was just written, and its settlement latency
 * (created → `updatedAt` of the change, in seconds).
 * @returns the outcome, or undefined when the write settled nothing (see {@link settlementOutcomeOf})
 */
export function countPaymentSettled(payment: PaymentSnapshot): SettlementOutcome | undefined {
  const outcome = settlementOutcomeOf(payment);
  if (!outcome) return undefined;
  const tags = { environment: payment.environment, provider: payment.provider, outcome };
  const seconds = secondsBetween(payment.createdAt, payment.updatedAt);
  count(BUSINESS_METRICS.paymentsSettled, 'payments settled, by environment, method, provider and outcome', {
    ...tags,
    method: payment.paymentMethod,
  });
  observe(
    BUSINESS_METRICS.settlementSeconds,
    "seconds from a payment's creation to its final status, by environment, provider and outcome",
    seconds,
    tags,
  );
  getProcessLogger().info(
    {
      payment_id: payment.id,
      merchant_id: payment.merchantId,
      ...tags,
      method: payment.paymentMethod,
      settlement_seconds: seconds,
    },
    'payment settled',
  );
  return outcome;
}

/**
 * Times one provider call and counts its unknown answers.
 * @param classify the outcome of an error the call threw (a refusal, an unsupported flow, else `unknown`)
 * @returns what `work` returns; rethrows what it throws
 */
export async function timeProviderCall<T>(
  provider: ProviderCode,
  operation: ProviderOperation,
  work: () => Promise<T>,
  classify: (error: unknown) => ProviderCallOutcome,
): Promise<T> {
  const startedAt = performance.now();
  let outcome: ProviderCallOutcome = 'ok';
  try {
    return await work();
  } catch (error) {
    outcome = classify(error);
    if (outcome === 'unknown') {
      const reason = error instanceof Error && /did not answer within/.test(error.message) ? 'timeout' : 'error';
      count(
        BUSINESS_METRICS.providerCallErrors,
        'provider calls without a usable answer (time-out, 5xx, network), by provider, operation and reason',
        { provider, operation, reason },
      );
    }
    throw error;
  } finally {
    observe(
      BUSINESS_METRICS.providerCallSeconds,
      'provider call duration in seconds, by provider, operation and outcome',
      (performance.now() - startedAt) / 1000,
      { provider, operation, outcome },
    );
  }
}

/** Counts and logs a refund whose final outcome was just written. */
export function countRefundSettled(
  refund: Pick<RefundRecord, 'id' | 'paymentId' | 'merchantId' | 'status' | 'environment'>,
  provider: ProviderCode,
): void {
  if (refund.status === 'pending') return;
  const tags = { environment: refund.environment, provider, outcome: refund.status };
  count(BUSINESS_METRICS.refundsSettled, 'refunds settled, by environment, provider and outcome', tags);
  getProcessLogger().info(
    { refund_id: refund.id, payment_id: refund.paymentId, merchant_id: refund.merchantId, ...tags },
    'refund settled',
  );
}

/**
 * Counts webhook attempt `attempt` (1-based) by its outcome and, for the one that succeeded, the
 * delivery latency from the event's `created_at`.
 */
export function countWebhookAttempt(input: {
  environment: string;
  attempt: number;
  outcome: Pick<AttemptOutcome, 'statusCode'>;
  eventCreatedAt: string;
}): void {
  const verdict = classifyAttempt(input.outcome);
  count(
    BUSINESS_METRICS.webhookAttempts,
    'webhook delivery attempts, by environment, outcome (succeeded, failed, gone) and attempt number',
    { environment: input.environment, outcome: verdict, attempt: String(input.attempt) },
  );
  if (verdict === 'succeeded') {
    observe(
      BUSINESS_METRICS.webhookDeliverySeconds,
      'seconds from an event being written to its webhook delivered, by environment',
      secondsBetween(input.eventCreatedAt, new Date().toISOString()),
      { environment: input.environment },
    );
  }
}
