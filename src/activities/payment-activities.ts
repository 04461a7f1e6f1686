/**
 * The payment workflow's activities (`PaymentActivities` in src/workflows/activity-contracts.ts,
 * docs/payments.md#workflow): they ask providers and write what the workflow tells them; what a payment
 * becomes is decided by its table (src/domain/payment-table.ts). Most run as regular activities: one
 * starts only after the workflow task that scheduled it was kept in the history, so no provider call
 * and no write ever happens for a decision the workflow did not keep (docs/payments.md#refunds-happen-once).
 *
 * The create is the exception: `initiatePayment` runs as a local activity in the create's first
 * workflow task, before that task is kept, decides what the provider's word makes of the payment
 * by the table (its acceptance and an answer it gave at once, or its refusal) and writes it in the
 * same activity: one local activity, one write, and the only application of the table for the
 * create (the workflow carries the decision it returns). If the task is thrown away it runs again
 * with the same input and changes nothing twice: the payment and `payment.created` are inserted
 * once (the payment id is the key), the provider gets the same reference or idempotency key
 * (derived from the payment id), and the status write carries the version the table gives it,
 * which a row already holding it ignores (same section). `recordPaymentStatus` writes what
 * initiation left unwritten, as a local activity too.
 */
import { activityInfo, ApplicationFailure, log } from '@temporalio/activity';
import { ApplicationFailureCategory } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import type { ProviderCode } from '../domain/catalogue';
import { initiationRequest } from '../domain/payment';
import type { PaymentSnapshot } from '../domain/payment';
import {
  answerChangesPayment,
  applyInTurn,
  decisionOf,
  initialPaymentState,
  initiationEvents,
  oneWriteOf,
  refundCapabilityRefusal,
  type Decision,
  type InitiationWord,
  type WriteOrders,
} from '../domain/payment-table';
import type { RefundRecord } from '../domain/refund';
import { toRefundWithPaymentView } from '../views/refund';
import { duplicateCheckoutException, lateSuccessException } from '../domain/reconciliation';
import { dataErrorOf } from '../db/errors';
import type { Db } from '../db/knex';
import {
  findPaymentById,
  findPendingRefunds,
  findDecidedRefunds,
  insertPaymentWithCreatedEvent,
  insertRefund,
  statusWriteOf,
  updatePaymentStatus,
  updateRefundOutcome,
  type EventInput,
  type PaymentStatusWrite,
} from '../db/payments';
import { duplicateRefundIdOf } from './checkout-activities';
import { callbackUrlFor } from '../providers/callback-url';
import { ProviderAuthenticationError, providerFailureCause, ProviderUnknownAnswer } from '../providers/http';
import { freshAttempt, type AttemptFacts } from '../domain/provider-health';
import { outcomeInputOf } from './provider-outcomes';
import { ProviderRefusal, ProviderUnsupported, type PaymentProvider, type RefundRequest } from '../providers/provider';
import type { ProviderRegistry } from '../providers/registry';
import {
  FAILURE_TYPES,
  type PaymentActivities,
  type ProviderCall,
  type RefundCall,
} from '../workflows/activity-contracts';
import {
  countPaymentCreated,
  countPaymentSettled,
  countRefundSettled,
  timeProviderCall,
  type ProviderCallOutcome,
  type ProviderOperation,
} from './business-metrics';
import { dataFailure } from './data-errors';
import { storableText } from '../domain/text';
import { paymentEvent } from './events';
import { startWebhookDeliveries } from './webhook-dispatch';

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
  /**
   * Starts the webhook deliveries of the events written here (docs/payments.md#events), on task queue
   * `TEMPORAL_WEBHOOK_TASK_QUEUE` (docs/webhooks.md#isolation).
   */
  temporal: Client;
  config: Pick<Config, 'TEMPORAL_WEBHOOK_TASK_QUEUE'> & Partial<Pick<Config, 'PROVIDER_CALLBACK_BASE_URL'>>;
  /** How long a provider call may take, in milliseconds (default PROVIDER_CALL_TIMEOUT_MS; shorter in tests). */
  providerCallTimeoutMs?: number;
}

/**
 * The refund request a provider gets for `refund` of `payment`: the idempotency key derives from the refund id
 * (docs/providers.md#adapters); the callback URL is the provider's under `callbackBaseUrl`
 * (PROVIDER_CALLBACK_BASE_URL), for a provider that answers refunds by callback only.
 */
function refundRequestOf(
  payment: PaymentSnapshot,
  refund: RefundRecord,
  callbackBaseUrl: string | undefined,
): RefundRequest {
  return {
    providerReference: payment.providerReference as string,
    idempotencyKey: `refund:${refund.id}`,
    amount: refund.amount,
    paymentAmount: payment.amount,
    currency: payment.currency,
    callbackUrl: callbackUrlFor(callbackBaseUrl, payment.provider),
    receiptNumber: payment.providerReceiptNumber,
  };
}

/**
 * What the last error of an initiation given up on says of the attempt (docs/availability.md#classification): whether
 * it never reached the provider, and `platform` when the provider refused our credentials.
 */
export function unansweredFacts(error: unknown): Pick<AttemptFacts, 'neverReached' | 'side'> {
  if (error instanceof ProviderAuthenticationError) return { neverReached: false, side: 'platform' };
  return { neverReached: error instanceof ProviderUnknownAnswer && error.neverReached };
}

/** The metrics outcome of an error a provider call threw (src/activities/business-metrics.ts). */
function providerCallOutcomeOf(error: unknown): ProviderCallOutcome {
  if (error instanceof ProviderRefusal) return 'refused';
  if (error instanceof ProviderUnsupported) return 'unsupported';
  return 'unknown';
}

/** What the payment activities share: their dependencies, and the helpers that call providers and write. */
interface PaymentActivityKit {
  deps: PaymentActivityDeps;
  providerFor: (call: ProviderCall) => PaymentProvider;
  writePendingRefund: (input: RefundCall, activity: string) => Promise<RefundRecord>;
  callProvider: <T>(provider: ProviderCode, operation: ProviderOperation, work: () => Promise<T>) => Promise<T>;
  startDeliveries: (event: EventInput | undefined, subscribers?: readonly string[]) => Promise<void>;
  recordStatus: (payment: PaymentSnapshot, orders: WriteOrders, decidedAt?: number) => Promise<void>;
  decideWord: (
    payment: PaymentSnapshot,
    word: InitiationWord,
    at: string,
  ) => Promise<{ steps: Decision[]; recorded?: PaymentSnapshot }>;
}

/** The helpers the payment activities share, around their dependencies. */
function paymentActivityKit(deps: PaymentActivityDeps): PaymentActivityKit {
  function providerFor(call: ProviderCall): PaymentProvider {
    const provider = deps.providers.get(call.environment, call.provider);
    if (!provider) {
      throw ApplicationFailure.create({
        type: FAILURE_TYPES.providerUnavailable,
        message: `no ${call.environment} adapter is configured for ${call.provider}`,
        nonRetryable: true,
        // Our own set-up, not the provider's failure (docs/availability.md#classification).
        details: [{ neverReached: false, side: 'platform' } satisfies ReturnType<typeof unansweredFacts>],
      });
    }
    return provider;
  }

  /**
   * Writes `input`'s refund `pending`, reason and all, with its reservation, unless its id is known
   * (docs/payments.md#cancel-and-refund): before the provider is asked, so a refund whose data cannot be stored is
   * never sent. The table's own check comes first, with the adapter's capabilities: nothing is written for a refund
   * it cannot take.
   * @returns the refund as stored
   * @throws ApplicationFailure `ProviderUnsupported` or `RefundNotRecorded` (non-retryable), nothing written
   */
  async function writePendingRefund(input: RefundCall, activity: string): Promise<RefundRecord> {
    const { payment, refund } = input;
    const unsupported = refundCapabilityRefusal(payment, refund.amount, providerFor(payment).supports);
    if (unsupported)
      throw ApplicationFailure.create({
        type: FAILURE_TYPES.providerUnsupported,
        message: unsupported.message,
        nonRetryable: true,
      });
    try {
      return await insertRefund(deps.db, refund, input.post);
    } catch (error) {
      const refused = dataErrorOf(error);
      if (refused) throw dataFailure(refused, activity, FAILURE_TYPES.refundNotRecorded);
      throw error;
    }
  }

  /**
   * Runs a provider call within its time-out (PROVIDER_CALL_TIMEOUT_MS), timed as `operation` of
   * `provider` in the worker's metrics (src/activities/business-metrics.ts). A definite refusal becomes
   * the non-retryable `ProviderRejected` (its failure code in the details), a flow the provider
   * lacks `ProviderUnsupported`; any other error is an unknown answer and is rethrown to be retried.
   * The provider's text (answer, refusal message) comes back storable: it is recorded after the
   * provider acted, where a refused write would leave money moved without its record
   * (docs/payments.md#cancel-and-refund).
   */
  async function callProvider<T>(
    provider: ProviderCode,
    operation: ProviderOperation,
    work: () => Promise<T>,
  ): Promise<T> {
    try {
      return storableText(
        await timeProviderCall(
          provider,
          operation,
          () => withinProviderTimeout(work(), deps.providerCallTimeoutMs ?? PROVIDER_CALL_TIMEOUT_MS),
          providerCallOutcomeOf,
        ),
      );
    } catch (error) {
      if (error instanceof ProviderRefusal) {
        throw ApplicationFailure.create({
          type: FAILURE_TYPES.providerRejected,
          message: storableText(error.message),
          nonRetryable: true,
          details: [error.failureCode, error.reason ?? null],
        });
      }
      if (error instanceof ProviderUnsupported) {
        throw ApplicationFailure.create({
          type: FAILURE_TYPES.providerUnsupported,
          message: error.message,
          nonRetryable: true,
        });
      }
      throw error;
    }
  }

  /**
   * After an event row is committed: one webhook delivery per subscribed endpoint (docs/payments.md#events). Safe to
   * repeat. `subscribers` as the write read them; looked up when not given.
   */
  async function startDeliveries(event: EventInput | undefined, subscribers?: readonly string[]): Promise<void> {
    if (event)
      await startWebhookDeliveries(
        { db: deps.db, temporal: deps.temporal, taskQueue: deps.config.TEMPORAL_WEBHOOK_TASK_QUEUE },
        event,
        subscribers,
      );
  }

  /**
   * Writes the payment's state and the event the workflow named (without orders: the one its status emits), with the
   * decided attempt the row recorded (docs/availability.md#classification; decided at `decidedAt`, epoch ms, default
   * the write's `updated_at`), then starts its deliveries.
   */
  async function recordStatus(payment: PaymentSnapshot, orders: WriteOrders, decidedAt?: number): Promise<void> {
    const event = orders.emit ? paymentEvent(payment, orders.emit) : undefined;
    const exception = orders.exception
      ? {
          provider: payment.provider,
          environment: payment.environment,
          draft: lateSuccessException(payment, orders.exception),
        }
      : undefined;
    const outcome = outcomeInputOf(
      payment,
      orders.outcome,
      payment.id,
      decidedAt ?? Date.parse(payment.updatedAt),
      payment.createdAt,
    );
    const write = { ...statusWriteOf(payment, orders.post), exception, ...(outcome ? { outcome } : {}) };
    const subscribers = await updatePaymentStatus(deps.db, write, event);
    await startDeliveries(event, subscribers);
    countPaymentSettled(payment);
  }

  /**
   * Decides what the table makes of the provider's word on initiation (docs/payments.md#workflow): the rows it takes
   * from `payment` at `at`, and writes them in the one write that carries them all. This is the create's only
   * application of the table: the workflow carries the steps returned (kept in its history) and never works them out
   * again, so the two cannot disagree. A failed write is logged and left to the workflow, whose writes retry for days
   * (docs/limits.md#retries), rather than retrying the provider's call with it.
   * @returns the steps; `recorded`: the payment as written, absent when the writes are left to the workflow
   */
  async function decideWord(
    payment: PaymentSnapshot,
    word: InitiationWord,
    at: string,
  ): Promise<{ steps: Decision[]; recorded?: PaymentSnapshot }> {
    const taken = applyInTurn(initialPaymentState(payment), initiationEvents(word), at);
    const steps = taken.map(decisionOf);
    const write = oneWriteOf(taken);
    if (!write) return { steps };
    // The provider answered this very request: its word decides the attempt now, counted from `at`.
    const { outcome } = write.orders;
    const orders = outcome ? { ...write.orders, outcome: { ...outcome, facts: freshAttempt(at) } } : write.orders;
    try {
      await recordStatus(write.payment, orders, Date.now());
      return { steps, recorded: write.payment };
    } catch (error) {
      log.warn("the provider's answer to initiation is left to the workflow to write", {
        paymentId: payment.id,
        error: error instanceof Error ? error.message : String(error),
      });
      return { steps };
    }
  }

  return { deps, providerFor, writePendingRefund, callProvider, startDeliveries, recordStatus, decideWord };
}

/**
 * The create's activities: the payment's first write with its provider's first word, and the run's own writes and
 * reads (docs/payments.md#workflow).
 */
function initiationActivities(
  kit: PaymentActivityKit,
): Pick<PaymentActivities, 'initiatePayment' | 'recordPaymentStatus' | 'loadPayment'> {
  const { deps, providerFor, callProvider, startDeliveries, recordStatus, decideWord } = kit;
  return {
    async initiatePayment(input) {
      const { payment } = input;
      const created = paymentEvent(payment, 'payment.created');
      let webhookIds: string[];
      let inserted: boolean;
      try {
        ({ webhookIds, inserted } = await insertPaymentWithCreatedEvent(deps.db, payment, created, input.audit));
      } catch (error) {
        const refused = dataErrorOf(error);
        if (refused) throw dataFailure(refused, 'initiatePayment', FAILURE_TYPES.paymentNotRecorded);
        throw error;
      }
      // Once per payment: the write that inserted it, or a first attempt that found it inserted by a run whose
      // task was thrown away (docs/payments.md#workflow).
      if (inserted || activityInfo().attempt === 1) countPaymentCreated(payment);
      await startDeliveries(created, webhookIds);
      const provider = providerFor(payment);
      let word: InitiationWord;
      try {
        const answer = await callProvider(payment.provider, 'initiate', () =>
          provider.initiate({
            ...initiationRequest(payment),
            callbackUrl: callbackUrlFor(deps.config.PROVIDER_CALLBACK_BASE_URL, payment.provider),
          }),
        );
        word = { answer };
      } catch (error) {
        if (error instanceof ApplicationFailure && error.type === FAILURE_TYPES.providerRejected) {
          const failureCode = (error.details?.[0] as NonNullable<PaymentSnapshot['failureCode']>) ?? 'provider_error';
          const reason = error.details?.[1];
          word = {
            refused: { failureCode, message: error.message, ...(typeof reason === 'string' ? { reason } : {}) },
          };
        } else if (
          error instanceof ApplicationFailure ||
          Date.now() - activityInfo().scheduledTimestampMs < PROVIDER_GIVE_UP_MS
        )
          throw error;
        else {
          // What the provider last did (a time-out, a 404, an undocumented body), redacted and bounded: the
          // payment's failure_message.
          const cause = providerFailureCause(error);
          log.warn('provider given up after 2 minutes without a usable answer', {
            paymentId: payment.id,
            provider: payment.provider,
            cause,
          });
          throw ApplicationFailure.create({
            type: FAILURE_TYPES.providerUnavailable,
            message: `no usable answer from the provider within 2 minutes; last: ${cause}`,
            nonRetryable: true,
            details: [unansweredFacts(error)],
          });
        }
      }
      return { payment, ...word, ...(await decideWord(payment, word, input.changedAt)) };
    },

    async recordPaymentStatus(payment, orders) {
      await recordStatus(payment, orders);
      return payment;
    },

    async loadPayment(paymentId) {
      const payment = await findPaymentById(deps.db, paymentId);
      if (!payment)
        throw ApplicationFailure.create({
          type: FAILURE_TYPES.notFound,
          message: `no payment with id ${paymentId}`,
          nonRetryable: true,
        });
      return {
        payment,
        pendingRefunds: await findPendingRefunds(deps.db, paymentId),
        decidedRefunds: await findDecidedRefunds(deps.db, paymentId),
      };
    },
  };
}

/**
 * The provider's word on an open payment: its status, asked or polled, and the cancel at the provider
 * (docs/payments.md#states).
 */
function providerActivities(
  kit: PaymentActivityKit,
): Pick<PaymentActivities, 'fetchProviderPaymentStatus' | 'pollProviderPayment' | 'cancelProviderPayment'> {
  const { deps, providerFor, callProvider } = kit;
  return {
    async fetchProviderPaymentStatus(input) {
      const provider = providerFor(input);
      const answer = await callProvider(input.provider, 'fetch_status', () =>
        provider.fetchStatus(input.providerReference),
      );
      const { refund, partialRefund } = provider.supports;
      return { ...answer, supports: { refund, partialRefund } };
    },

    async pollProviderPayment(input) {
      const provider = providerFor(input);
      const answer = storableText(
        await timeProviderCall(
          input.provider,
          'poll',
          () =>
            withinProviderTimeout(
              provider.fetchStatus(input.providerReference),
              deps.providerCallTimeoutMs ?? PROVIDER_CALL_TIMEOUT_MS,
            ),
          providerCallOutcomeOf,
        ),
      );
      const { attempt } = activityInfo();
      if (answerChangesPayment(input.status, answer.outcome)) return { answer, attempt };
      throw ApplicationFailure.create({
        type: FAILURE_TYPES.providerStillWaiting,
        message: `the provider still says ${answer.outcome.status} (poll ${attempt})`,
        category: ApplicationFailureCategory.BENIGN,
      });
    },

    async cancelProviderPayment(input) {
      const provider = providerFor(input);
      if (!provider.supports.cancel) return 'unsupported';
      return callProvider(input.provider, 'cancel', () => provider.cancel(input.providerReference));
    },
  };
}

/**
 * A refund's activities: its pending write with its reservation, the provider's call and its outcome's write
 * (docs/payments.md#cancel-and-refund).
 */
function refundActivities(
  kit: PaymentActivityKit,
): Pick<
  PaymentActivities,
  'recordRefundPending' | 'refundAtProvider' | 'fetchRefundAtProvider' | 'recordRefundOutcome'
> {
  const { deps, providerFor, writePendingRefund, callProvider, startDeliveries } = kit;
  return {
    async recordRefundPending(input) {
      return writePendingRefund(input, 'recordRefundPending');
    },

    async refundAtProvider(input) {
      const { payment, refund } = input;
      const stored = await writePendingRefund(input, 'refundAtProvider');
      if (stored.status !== 'pending') return { status: 'already_decided', refund: stored };
      const provider = providerFor(payment);
      return callProvider(payment.provider, 'refund', () =>
        provider.refund(refundRequestOf(payment, refund, deps.config.PROVIDER_CALLBACK_BASE_URL)),
      );
    },

    async fetchRefundAtProvider(input) {
      const provider = providerFor(input.payment);
      const request = refundRequestOf(input.payment, input.refund, deps.config.PROVIDER_CALLBACK_BASE_URL);
      const known = await callProvider(input.payment.provider, 'fetch_refund', () => provider.fetchRefund(request));
      if (known.status !== 'not_received') return known;
      // Written `pending` first, as `refundAtProvider` does: its first call may never have run.
      await insertRefund(deps.db, input.refund, input.post);
      return callProvider(input.payment.provider, 'refund', () => provider.refund(request));
    },

    async recordRefundOutcome(input) {
      const { refund, payment } = input;
      // One final event per refund, its id derived from the refund (docs/payments.md#events).
      const event = input.emit
        ? {
            ...paymentEvent(payment, input.emit, `refund:${refund.id}`),
            createdAt: refund.completedAt ?? payment.updatedAt,
            data: toRefundWithPaymentView(refund, payment),
          }
        : undefined;
      const decidedAt = Date.parse(refund.completedAt ?? payment.updatedAt);
      const outcome = outcomeInputOf(payment, input.outcome, refund.id, decidedAt, refund.createdAt);
      const write = { ...statusWriteOf(payment, []), exception: duplicateLeftCollected(refund, payment) };
      await updateRefundOutcome(deps.db, refund, write, event, input.post, outcome);
      await startDeliveries(event);
      countRefundSettled(refund, payment.provider);
    },
  };
}

/**
 * The exception `duplicate_checkout_payment` when `refund` is the failed refund of a checkout session's duplicate
 * `payment` (docs/checkout.md#states: the payer stays charged twice, and an operator must hear of it); otherwise
 * undefined. The session's settlement records it too when the refund was refused at once; the key makes it one.
 */
function duplicateLeftCollected(refund: RefundRecord, payment: PaymentSnapshot): PaymentStatusWrite['exception'] {
  if (refund.status !== 'failed' || !payment.checkoutSession) return undefined;
  if (refund.id !== duplicateRefundIdOf(payment.id)) return undefined;
  return {
    provider: payment.provider,
    environment: payment.environment,
    draft: duplicateCheckoutException(payment, payment.checkoutSession),
  };
}

/**
 * Builds the payment activities around their dependencies (samples' `createActivities(deps)`), feature by feature:
 * the create's, the provider's word on an open payment, and refunds'.
 */
export function createPaymentActivities(deps: PaymentActivityDeps): PaymentActivities {
  const kit = paymentActivityKit(deps);
  return { ...initiationActivities(kit), ...providerActivities(kit), ...refundActivities(kit) };
}
