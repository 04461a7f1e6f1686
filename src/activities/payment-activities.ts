/**
 * Activities of the payment workflow (D20, D22): the only code that calls providers and writes the
 * payments read model. Each is idempotent, so Temporal's retries never write or charge twice.
 */
import { activityInfo, ApplicationFailure } from '@temporalio/activity';
import { ApplicationFailureCategory } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import type { ProviderCode } from '../domain/catalogue';
import type { Environment } from '../domain/environment';
import type { Currency } from '../domain/money';
import { eventForStatus, initiationRequest, statusChangeFor, withStatusChange, type PaymentStatus } from '../domain/payment';
import { toGenericPaymentView, type PaymentSnapshot } from '../domain/payment-record';
import { toRefundView, type RefundRecord } from '../domain/refund';
import type { Db } from '../db/knex';
import { insertPaymentWithCreatedEvent, insertRefund, statusChangeOf, updatePaymentStatus, updateRefundOutcome, type EventInput } from '../db/payments';
import { paymentEvent } from '../lib/events';
import { ProviderError, type ProviderAnswer, type RefundAnswer } from '../providers/provider';
import type { ProviderRegistry } from '../providers/registry';
import { startWebhookDeliveries } from '../services/webhook-dispatch';

/** `ApplicationFailure.type` values the workflow and API rely on (never class names, style rule 6). */
export const FAILURE_TYPES = {
  providerUnavailable: 'ProviderUnavailable',
  providerRejected: 'ProviderRejected',
  /** A poll whose answer changes nothing: `pollProviderPayment`'s retry is the next poll (benign). */
  providerStillWaiting: 'ProviderStillWaiting',
} as const;

/**
 * How long `initiatePayment` retries a provider's transient faults (time-outs, 5xx) before the
 * provider counts as not answering, in milliseconds: the provider calls' schedule-to-close of the
 * workflow (2 min).
 */
export const PROVIDER_GIVE_UP_MS = 120_000;

/**
 * How long any provider call waits for the answer, in milliseconds: under the activities' 15 s
 * start-to-close, so a provider that hangs is a transient fault of the call (for `initiatePayment`,
 * one that counts toward PROVIDER_GIVE_UP_MS) rather than a time-out of the whole activity.
 */
export const PROVIDER_CALL_TIMEOUT_MS = 10_000;

/** `answer`, or an error once `timeoutMs` have passed without it. */
async function withinProviderTimeout<T>(answer: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the provider did not answer within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    return await Promise.race([answer, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Dependencies of the payment activities. */
export interface PaymentActivityDeps {
  db: Db;
  providers: ProviderRegistry;
  /** Starts the webhook deliveries of the events written here (D22), on task queue `TEMPORAL_TASK_QUEUE`. */
  temporal: Client;
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE'>;
  /** How long a provider call may take, in milliseconds (default PROVIDER_CALL_TIMEOUT_MS; shorter in tests). */
  providerCallTimeoutMs?: number;
}

/** Which provider call an activity makes. */
export interface ProviderCall {
  environment: Environment;
  provider: ProviderCode;
}

/** Input of `initiateProviderPayment`; `idempotencyKey` is derived from the workflow id (style rule 2). */
export interface InitiateInput extends ProviderCall {
  paymentId: string;
  idempotencyKey: string;
  amount: number;
  currency: Currency;
  customer: string;
}

/** What `pollProviderPayment` returns: the provider's answer that changes the payment, and the poll (attempt, from 1) that saw it. */
export interface PollResult {
  answer: ProviderAnswer;
  attempt: number;
}

/** Builds the payment activities around their dependencies (samples' `createActivities(deps)`). */
export function createPaymentActivities(deps: PaymentActivityDeps) {
  function providerFor(call: ProviderCall) {
    const provider = deps.providers.get(call.environment, call.provider);
    if (!provider) {
      throw ApplicationFailure.create({
        type: FAILURE_TYPES.providerUnavailable,
        message: `no ${call.environment} adapter is configured for ${call.provider}`,
        nonRetryable: true,
      });
    }
    return provider;
  }

  /** Runs a provider call within its time-out (PROVIDER_CALL_TIMEOUT_MS); a permanent refusal becomes `ProviderRejected`. */
  async function callProvider<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await withinProviderTimeout(work(), deps.providerCallTimeoutMs ?? PROVIDER_CALL_TIMEOUT_MS);
    } catch (error) {
      if (error instanceof ProviderError) {
        throw ApplicationFailure.create({ type: FAILURE_TYPES.providerRejected, message: error.message, nonRetryable: true });
      }
      throw error;
    }
  }

  /**
   * After an event row is committed: one webhook delivery per subscribed endpoint (D22). Safe to
   * repeat. `subscribers` as the write read them; looked up when not given.
   */
  async function startDeliveries(event: EventInput | undefined, subscribers?: readonly string[]): Promise<void> {
    if (event) await startWebhookDeliveries({ db: deps.db, temporal: deps.temporal, taskQueue: deps.config.TEMPORAL_TASK_QUEUE }, event, subscribers);
  }

  /** Writes the payment and `payment.created` unless present, then starts that event's deliveries. */
  async function recordCreated(payment: PaymentSnapshot): Promise<void> {
    const event = paymentEvent(payment, 'payment.created');
    const { webhookIds } = await insertPaymentWithCreatedEvent(deps.db, payment, event);
    await startDeliveries(event, webhookIds);
  }

  /** Writes the payment's status change and the event its status emits, then starts its deliveries. */
  async function recordStatus(payment: PaymentSnapshot): Promise<void> {
    const eventName = eventForStatus(payment.status);
    const event = eventName ? paymentEvent(payment, eventName) : undefined;
    const subscribers = await updatePaymentStatus(deps.db, statusChangeOf(payment), event);
    await startDeliveries(event, subscribers);
  }

  return {
    /**
     * Writes the payment row and its `payment.created` event unless present (the API wrote them
     * already unless it failed after starting this workflow), then starts the event's webhook
     * deliveries (D22): this activity is where `payment.created` deliveries start.
     */
    async recordPaymentCreated(payment: PaymentSnapshot): Promise<void> {
      await recordCreated(payment);
    },

    /**
     * Writes a status change of the payment and the event its new status emits, then starts that
     * event's webhook deliveries (D11, D22).
     * @throws a retryable error while the row is missing
     */
    async recordPaymentStatus(payment: PaymentSnapshot): Promise<void> {
      await recordStatus(payment);
    },

    /**
     * The payment's first step in one local activity (workflow patch
     * `payment-initiation-in-one-step`): writes the payment and `payment.created` unless present
     * and starts that event's deliveries, asks the provider to collect it (idempotency key derived
     * from the payment id), and writes the status change the answer calls for with its event (D11,
     * D16, D22). Every part is idempotent, so a retry repeats nothing. Read-model faults are retried
     * without end; the provider's transient faults only for {@link PROVIDER_GIVE_UP_MS}, after which
     * the provider counts as not answering.
     * @param input.payment the payment as created (status `pending`)
     * @param input.changedAt the workflow's time (ISO 8601) for the status change, so the payment's
     *   times follow the workflow clock like its other changes
     * @returns the payment after the provider's answer (with its provider reference)
     * @throws ApplicationFailure `ProviderUnavailable` or `ProviderRejected` (non-retryable)
     */
    async initiatePayment(input: { payment: PaymentSnapshot; changedAt: string }): Promise<PaymentSnapshot> {
      const { payment } = input;
      await recordCreated(payment);
      const provider = providerFor(payment);
      let answer: ProviderAnswer;
      try {
        answer = await callProvider(() => provider.initiate(initiationRequest(payment)));
      } catch (error) {
        if (error instanceof ApplicationFailure || Date.now() - activityInfo().scheduledTimestampMs < PROVIDER_GIVE_UP_MS) throw error;
        throw ApplicationFailure.create({ type: FAILURE_TYPES.providerUnavailable, message: 'the provider did not answer', nonRetryable: true });
      }
      const initiated = { ...payment, providerReference: answer.providerReference };
      const change = statusChangeFor(initiated.status, answer.outcome);
      if (!change) return initiated;
      const changed = withStatusChange(initiated, change, input.changedAt);
      await recordStatus(changed);
      return changed;
    },

    /**
     * Asks the provider to collect the payment (D16).
     * @throws ApplicationFailure `ProviderUnavailable` or `ProviderRejected` (non-retryable)
     */
    async initiateProviderPayment(input: InitiateInput): Promise<ProviderAnswer> {
      const provider = providerFor(input);
      return callProvider(() =>
        provider.initiate({
          paymentId: input.paymentId,
          idempotencyKey: input.idempotencyKey,
          amount: input.amount,
          currency: input.currency,
          customer: input.customer,
        }),
      );
    },

    /**
     * Asks the provider to stop collecting (D11, D12); the answer is the provider's final word.
     * @throws ApplicationFailure as above
     */
    async cancelProviderPayment(input: ProviderCall & { providerReference: string }): Promise<ProviderAnswer> {
      const provider = providerFor(input);
      return callProvider(() => provider.cancel(input.providerReference));
    },

    /**
     * Refunds at the provider; idempotent on the refund id (D12).
     * @throws ApplicationFailure as above
     */
    async refundProviderPayment(input: ProviderCall & { providerReference: string; refundId: string; amount: number }): Promise<RefundAnswer> {
      const provider = providerFor(input);
      return callProvider(() =>
        provider.refund({ providerReference: input.providerReference, idempotencyKey: `refund:${input.refundId}`, amount: input.amount }),
      );
    },

    /** Writes a pending refund unless it exists (D12). */
    async recordRefundCreated(refund: RefundRecord): Promise<void> {
      await insertRefund(deps.db, refund);
    },

    /**
     * Writes a refund's outcome, the payment it changed and, when it completed, the
     * `refund.completed` event whose data is the refund with the payment after it, then starts that
     * event's webhook deliveries (D22).
     */
    async recordRefundOutcome(input: { refund: RefundRecord; payment: PaymentSnapshot }): Promise<void> {
      const { refund, payment } = input;
      const event =
        refund.status === 'completed'
          ? { ...paymentEvent(payment, 'refund.completed', `refund:${refund.id}`), data: { ...toRefundView(refund), payment: toGenericPaymentView(payment) } }
          : undefined;
      await updateRefundOutcome(deps.db, refund, statusChangeOf(payment), event);
      await startDeliveries(event);
    },

    /**
     * Polls the provider until its answer changes the payment (workflow patch
     * `provider-polls-as-activity-retries`, D16, D20): each attempt is one poll, and the workflow's
     * retry policy (2 s doubling to 60 s, until `expires_at`) schedules the next one on the server,
     * so a payment waiting on its provider costs no workflow task per poll. An answer that changes
     * nothing fails the attempt with the benign `ProviderStillWaiting` (logged at debug level, no
     * failure metric); a provider fault or time-out (PROVIDER_CALL_TIMEOUT_MS) fails it too and is
     * retried alike, so a provider outage delays polls but never ends the payment before it expires.
     * @param input.status the payment's status now (`pending` or `processing`)
     * @returns the answer that changes the payment and the attempt that saw it
     * @throws ApplicationFailure `ProviderStillWaiting` (retryable), `ProviderUnavailable` (no adapter, non-retryable)
     */
    async pollProviderPayment(input: ProviderCall & { providerReference: string; status: PaymentStatus }): Promise<PollResult> {
      const provider = providerFor(input);
      const answer = await withinProviderTimeout(provider.fetchStatus(input.providerReference), deps.providerCallTimeoutMs ?? PROVIDER_CALL_TIMEOUT_MS);
      const { attempt } = activityInfo();
      if (statusChangeFor(input.status, answer.outcome)) return { answer, attempt };
      throw ApplicationFailure.create({
        type: FAILURE_TYPES.providerStillWaiting,
        message: `the provider still says ${answer.outcome.status} (poll ${attempt})`,
        category: ApplicationFailureCategory.BENIGN,
      });
    },

    /** Polls the provider for its current answer (D16, D20). @throws ApplicationFailure as above */
    async fetchProviderPaymentStatus(input: ProviderCall & { providerReference: string }): Promise<ProviderAnswer> {
      const provider = providerFor(input);
      return callProvider(() => provider.fetchStatus(input.providerReference));
    },
  };
}

/** The payment activities' type, imported by the workflow as a type only. */
export type PaymentActivities = ReturnType<typeof createPaymentActivities>;
