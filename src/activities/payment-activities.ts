/**
 * Activities of the payment workflow (docs/providers.md#adapters, docs/payments.md#workflow, docs/payments.md#events): the only code that calls providers and writes
 * the payments read model. All run as regular activities: one starts only after the workflow task
 * that scheduled it was kept in the history, so no provider call and no write ever happens for a
 * decision the workflow did not keep (docs/payments.md, "Refunds happen once"). Each is idempotent
 * (provider idempotency keys derived from the payment or refund id, writes keyed and versioned), so
 * Temporal's retries never charge, refund or write twice.
 */
import { activityInfo, ApplicationFailure } from '@temporalio/activity';
import { ApplicationFailureCategory } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import type { ProviderCode } from '../domain/catalogue';
import type { Environment } from '../domain/environment';
import { eventForStatus, initiationRequest, withStatusChange, statusChangeFor, type PaymentStatus, type ProviderOutcome } from '../domain/payment';
import { toGenericPaymentView, type PaymentSnapshot } from '../domain/payment-record';
import type { RefundAnswerOutcome } from '../domain/payment-steps';
import { toRefundView, type RefundRecord } from '../domain/refund';
import { dataErrorOf } from '../db/errors';
import type { Db } from '../db/knex';
import {
  findPaymentById,
  findPendingRefunds,
  insertPaymentWithCreatedEvent,
  insertRefund,
  statusChangeOf,
  updatePaymentStatus,
  updateRefundOutcome,
  type EventInput,
} from '../db/payments';
import { paymentEvent } from '../lib/events';
import { callbackUrlFor } from '../providers/callback-url';
import { ProviderRefusal, ProviderUnsupported, type PaymentProvider, type ProviderAnswer, type RefundRequest } from '../providers/provider';
import type { ProviderRegistry } from '../providers/registry';
import { startWebhookDeliveries } from '../services/webhook-dispatch';
import { countPaymentCreated, countPaymentSettled, countRefundSettled, timeProviderCall, type ProviderCallOutcome, type ProviderOperation } from './business-metrics';
import { dataFailure } from './data-errors';

/** `ApplicationFailure.type` values the workflow and API rely on (never class names, style rule 6). */
export const FAILURE_TYPES = {
  /** No adapter serves the payment, or the provider did not answer for PROVIDER_GIVE_UP_MS. */
  providerUnavailable: 'ProviderUnavailable',
  /** The provider definitely refused (details carry the failure code). */
  providerRejected: 'ProviderRejected',
  /** The provider does not offer the flow (cancel, refund). */
  providerUnsupported: 'ProviderUnsupported',
  /** A poll whose answer changes nothing: `pollProviderPayment`'s retry is the next poll (benign). */
  providerStillWaiting: 'ProviderStillWaiting',
  /**
   * `initiatePayment` could not record the payment at all: PostgreSQL refused its data (SQLSTATE
   * class 22), so nothing was written and the provider was not asked (non-retryable).
   */
  paymentNotRecorded: 'PaymentNotRecorded',
} as const;

/**
 * How long `initiatePayment` retries a provider's unknown answers (time-outs, 5xx) before the
 * provider counts as not answering, in milliseconds (2 min).
 */
export const PROVIDER_GIVE_UP_MS = 120_000;

/**
 * How long any provider call waits for the answer, in milliseconds: under the activities' 15 s
 * start-to-close, so a provider that hangs is an unknown answer of the call, retried.
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
  /** Starts the webhook deliveries of the events written here (docs/payments.md#events), on task queue `TEMPORAL_TASK_QUEUE`. */
  temporal: Client;
  config: Pick<Config, 'TEMPORAL_TASK_QUEUE'> & Partial<Pick<Config, 'PROVIDER_CALLBACK_BASE_URL'>>;
  /** How long a provider call may take, in milliseconds (default PROVIDER_CALL_TIMEOUT_MS; shorter in tests). */
  providerCallTimeoutMs?: number;
}

/** Which provider call an activity makes. */
export interface ProviderCall {
  environment: Environment;
  provider: ProviderCode;
}

/** What `initiatePayment` returns: the payment as recorded, and the provider's word to apply next. */
export interface InitiationResult {
  /** `pending` with the provider's reference and next action, or `failed` when refused outright. */
  payment: PaymentSnapshot;
  /** The provider's current answer (e.g. `completed` at once), applied by the workflow afterwards; absent after a refusal. */
  outcome?: ProviderOutcome;
}

/** What `pollProviderPayment` returns: the provider's answer that changes the payment, and the poll (attempt, from 1) that saw it. */
export interface PollResult {
  answer: ProviderAnswer;
  attempt: number;
}

/** The refund request a provider gets for `refund` of `payment`: the idempotency key derives from the refund id (docs/providers.md#adapters). */
function refundRequestOf(payment: PaymentSnapshot, refund: RefundRecord): RefundRequest {
  return { providerReference: payment.providerReference as string, idempotencyKey: `refund:${refund.id}`, amount: refund.amount, paymentAmount: payment.amount, currency: payment.currency };
}

/** The metrics outcome of an error a provider call threw (src/activities/business-metrics.ts). */
function providerCallOutcomeOf(error: unknown): ProviderCallOutcome {
  if (error instanceof ProviderRefusal) return 'refused';
  if (error instanceof ProviderUnsupported) return 'unsupported';
  return 'unknown';
}

/** Builds the payment activities around their dependencies (samples' `createActivities(deps)`). */
export function createPaymentActivities(deps: PaymentActivityDeps) {
  function providerFor(call: ProviderCall): PaymentProvider {
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

  /**
   * Runs a provider call within its time-out (PROVIDER_CALL_TIMEOUT_MS), timed as `operation` of
   * `provider` in the worker's metrics (src/activities/business-metrics.ts). A definite refusal becomes
   * the non-retryable `ProviderRejected` (its failure code in the details), a flow the provider
   * lacks `ProviderUnsupported`; any other error is an unknown answer and is rethrown to be retried.
   */
  async function callProvider<T>(provider: ProviderCode, operation: ProviderOperation, work: () => Promise<T>): Promise<T> {
    try {
      return await timeProviderCall(provider, operation, () => withinProviderTimeout(work(), deps.providerCallTimeoutMs ?? PROVIDER_CALL_TIMEOUT_MS), providerCallOutcomeOf);
    } catch (error) {
      if (error instanceof ProviderRefusal) {
        throw ApplicationFailure.create({ type: FAILURE_TYPES.providerRejected, message: error.message, nonRetryable: true, details: [error.failureCode] });
      }
      if (error instanceof ProviderUnsupported) {
        throw ApplicationFailure.create({ type: FAILURE_TYPES.providerUnsupported, message: error.message, nonRetryable: true });
      }
      throw error;
    }
  }

  /**
   * After an event row is committed: one webhook delivery per subscribed endpoint (docs/payments.md#events). Safe to
   * repeat. `subscribers` as the write read them; looked up when not given.
   */
  async function startDeliveries(event: EventInput | undefined, subscribers?: readonly string[]): Promise<void> {
    if (event) await startWebhookDeliveries({ db: deps.db, temporal: deps.temporal, taskQueue: deps.config.TEMPORAL_TASK_QUEUE }, event, subscribers);
  }

  /** Writes the payment's state and the event its new status emits, then starts its deliveries. */
  async function recordStatus(payment: PaymentSnapshot): Promise<void> {
    const eventName = eventForStatus(payment.status);
    const event = eventName ? paymentEvent(payment, eventName) : undefined;
    const subscribers = await updatePaymentStatus(deps.db, statusChangeOf(payment), event);
    await startDeliveries(event, subscribers);
    countPaymentSettled(payment);
  }

  return {
    /**
     * The payment's first step (docs/payments.md#states, docs/providers.md#adapters, docs/payments.md#workflow): writes the payment and `payment.created` unless
     * present and starts that event's deliveries, asks the provider to collect it (idempotency key
     * derived from the payment id, so a retry after a crash finds the same request), and writes
     * what the provider gave: its reference and `next_action` on the `pending` payment, or the
     * outright refusal as `failed`. Unknown answers are retried (the same request) for
     * {@link PROVIDER_GIVE_UP_MS}; read-model faults by the workflow's policy (docs/limits.md#retries).
     * @param input.changedAt the workflow's time (ISO 8601) for the write
     * @returns the payment as recorded and the provider's current answer
     * @throws ApplicationFailure `ProviderUnavailable` (no adapter, or no answer for 2 min; non-retryable);
     *   `PaymentNotRecorded` (non-retryable) when PostgreSQL refuses the payment's data, before anything
     *   is written or sent; `DataError` (non-retryable) when it refuses a later write
     */
    async initiatePayment(input: { payment: PaymentSnapshot; changedAt: string }): Promise<InitiationResult> {
      const { payment } = input;
      const created = paymentEvent(payment, 'payment.created');
      let webhookIds: string[];
      let inserted: boolean;
      try {
        ({ webhookIds, inserted } = await insertPaymentWithCreatedEvent(deps.db, payment, created));
      } catch (error) {
        const refused = dataErrorOf(error);
        if (refused) throw dataFailure(refused, 'initiatePayment', FAILURE_TYPES.paymentNotRecorded);
        throw error;
      }
      // Once per payment: the write that inserted it, or the first attempt when the API wrote it first (docs/payments.md#workflow).
      if (inserted || activityInfo().attempt === 1) countPaymentCreated(payment);
      await startDeliveries(created, webhookIds);
      const provider = providerFor(payment);
      let answer: ProviderAnswer;
      try {
        answer = await callProvider(payment.provider, 'initiate', () => provider.initiate({ ...initiationRequest(payment), callbackUrl: callbackUrlFor(deps.config.PROVIDER_CALLBACK_BASE_URL, payment.provider) }));
      } catch (error) {
        if (error instanceof ApplicationFailure && error.type === FAILURE_TYPES.providerRejected) {
          const failureCode = (error.details?.[0] as NonNullable<PaymentSnapshot['failureCode']>) ?? 'provider_error';
          const failed = withStatusChange(payment, { status: 'failed', failure: { code: failureCode, message: error.message } }, input.changedAt);
          await recordStatus(failed);
          return { payment: failed };
        }
        if (error instanceof ApplicationFailure || Date.now() - activityInfo().scheduledTimestampMs < PROVIDER_GIVE_UP_MS) throw error;
        throw ApplicationFailure.create({ type: FAILURE_TYPES.providerUnavailable, message: 'the provider did not answer', nonRetryable: true });
      }
      const accepted: PaymentSnapshot = {
        ...payment,
        providerReference: answer.providerReference,
        nextAction: answer.nextAction ?? null,
        updatedAt: input.changedAt,
        version: (payment.version ?? 0) + 1,
      };
      await recordStatus(accepted);
      return { payment: accepted, outcome: answer.outcome };
    },

    /**
     * Writes the payment's state (status change, reconciliation, late answer) and the event its
     * status emits, then starts that event's webhook deliveries (docs/payments.md#states, docs/payments.md#events). Idempotent and ordered
     * by the payment's version.
     * @throws a retryable error while the row is missing
     */
    async recordPaymentStatus(payment: PaymentSnapshot): Promise<void> {
      await recordStatus(payment);
    },

    /**
     * The payment as the read model holds it, for a workflow re-opened after it closed (docs/payments.md#workflow), with
     * the refunds still pending there (normally none: a run closes only when none is in flight).
     * @throws ApplicationFailure `not_found` (non-retryable) when there is no such payment
     */
    async loadPayment(paymentId: string): Promise<{ payment: PaymentSnapshot; pendingRefunds: RefundRecord[] }> {
      const payment = await findPaymentById(deps.db, paymentId);
      if (!payment) throw ApplicationFailure.create({ type: 'not_found', message: `no payment with id ${paymentId}`, nonRetryable: true });
      return { payment, pendingRefunds: await findPendingRefunds(deps.db, paymentId) };
    },

    /**
     * The provider's current answer about the payment (docs/payments.md#provider-callbacks): confirms a callback, and is the last
     * word at expiry. Unknown answers are retried.
     * @throws ApplicationFailure `ProviderRejected` for a reference the provider does not know
     */
    async fetchProviderPaymentStatus(input: ProviderCall & { providerReference: string }): Promise<ProviderAnswer> {
      const provider = providerFor(input);
      return callProvider(input.provider, 'fetch_status', () => provider.fetchStatus(input.providerReference));
    },

    /**
     * Polls the provider until its answer changes the payment (docs/providers.md#adapters, docs/payments.md#workflow): each attempt is one poll,
     * and the workflow's retry policy (2 s doubling to 60 s, until `expires_at`) schedules the next
     * one on the server, so a payment waiting on its provider costs no workflow task per poll. An
     * answer that changes nothing fails the attempt with the benign `ProviderStillWaiting`; a
     * provider fault or time-out fails it too and is retried alike.
     * @param input.status the payment's status now (`pending` or `processing`)
     * @returns the answer that changes the payment and the attempt that saw it
     * @throws ApplicationFailure `ProviderStillWaiting` (retryable), `ProviderUnavailable` (no adapter, non-retryable)
     */
    async pollProviderPayment(input: ProviderCall & { providerReference: string; status: PaymentStatus }): Promise<PollResult> {
      const provider = providerFor(input);
      const answer = await timeProviderCall(input.provider, 'poll', () => withinProviderTimeout(provider.fetchStatus(input.providerReference), deps.providerCallTimeoutMs ?? PROVIDER_CALL_TIMEOUT_MS), providerCallOutcomeOf);
      const { attempt } = activityInfo();
      if (statusChangeFor(input.status, answer.outcome)) return { answer, attempt };
      throw ApplicationFailure.create({
        type: FAILURE_TYPES.providerStillWaiting,
        message: `the provider still says ${answer.outcome.status} (poll ${attempt})`,
        category: ApplicationFailureCategory.BENIGN,
      });
    },

    /**
     * Asks the provider to stop collecting (docs/payments.md#states, docs/payments.md#cancel-and-refund). The answer is the provider's final word, or
     * `unsupported` when the provider cannot withdraw its request (mobile money).
     * @throws ApplicationFailure `ProviderRejected`; unknown answers are retried
     */
    async cancelProviderPayment(input: ProviderCall & { providerReference: string }): Promise<ProviderAnswer | 'unsupported'> {
      const provider = providerFor(input);
      if (!provider.supports.cancel) return 'unsupported';
      return callProvider(input.provider, 'cancel', () => provider.cancel(input.providerReference));
    },

    /**
     * Sends a refund to the provider (docs/payments.md#cancel-and-refund): first writes it `pending` unless its id is known (then
     * answers `already_settled` with the stored refund when an earlier run settled it, and sends
     * nothing), then asks the provider with the idempotency key `refund:{refund id}`, so a retried
     * or repeated call never refunds twice. `pending` when the provider took it without deciding.
     * @throws ApplicationFailure `ProviderUnsupported` (non-retryable) before anything is written
     *   when the provider has no refunds; unknown answers are retried, then left to `fetchRefundAtProvider`
     */
    async refundAtProvider(input: { payment: PaymentSnapshot; refund: RefundRecord }): Promise<RefundAnswerOutcome> {
      const { payment, refund } = input;
      const provider = providerFor(payment);
      if (!provider.supports.refund) {
        throw ApplicationFailure.create({ type: FAILURE_TYPES.providerUnsupported, message: `${payment.provider} does not support refunds`, nonRetryable: true });
      }
      const stored = await insertRefund(deps.db, refund);
      if (stored.status !== 'pending') return { status: 'already_settled', refund: stored };
      return callProvider(payment.provider, 'refund', () => provider.refund(refundRequestOf(payment, refund)));
    },

    /**
     * Asks the provider what became of a refund whose answer was unknown (docs/payments.md#cancel-and-refund). A refund the
     * provider never received (the call was lost, or our worker died before making it) is written
     * `pending` when it is not yet and sent now, with the same idempotency key: a refund accepted by the workflow is never failed for a
     * fault of ours, and never made twice.
     * @returns its answer (`pending` while the provider has not decided)
     * @throws on an unknown answer (retried by the workflow's schedule)
     */
    async fetchRefundAtProvider(input: { payment: PaymentSnapshot; refund: RefundRecord }): Promise<RefundAnswerOutcome> {
      const provider = providerFor(input.payment);
      const request = refundRequestOf(input.payment, input.refund);
      const known = await callProvider(input.payment.provider, 'fetch_refund', () => provider.fetchRefund(request));
      if (known.status !== 'not_received') return known;
      // Written `pending` first, as `refundAtProvider` does: its first call may never have run.
      await insertRefund(deps.db, input.refund);
      return callProvider(input.payment.provider, 'refund', () => provider.refund(request));
    },

    /**
     * Writes a refund's final outcome, the payment it changed and, when it completed, the
     * `refund.completed` event whose data is the refund with the payment after it, in one
     * transaction, then starts that event's webhook deliveries (docs/payments.md#cancel-and-refund, docs/payments.md#events).
     */
    async recordRefundOutcome(input: { refund: RefundRecord; payment: PaymentSnapshot }): Promise<void> {
      const { refund, payment } = input;
      const event =
        refund.status === 'completed'
          ? { ...paymentEvent(payment, 'refund.completed', `refund:${refund.id}`), data: { ...toRefundView(refund), payment: toGenericPaymentView(payment) } }
          : undefined;
      await updateRefundOutcome(deps.db, refund, statusChangeOf(payment), event);
      await startDeliveries(event);
      countRefundSettled(refund, payment.provider);
    },
  };
}

/** The payment activities' type, imported by the workflow as a type only. */
export type PaymentActivities = ReturnType<typeof createPaymentActivities>;
