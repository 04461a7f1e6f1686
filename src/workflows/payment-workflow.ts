/**
 * `paymentWorkflow` (docs/payments.md#workflow): one per payment, id `payment:{pay_id}`. A thin interpreter over the
 * pure
 * reducer in `domain/payment-steps.ts`: it keeps the payment's state, feeds the reducer what
 * happens (provider answers from initiation, callbacks, polls and expiry; the merchant's cancel and
 * refunds) and runs the effects the reducer asks for as regular activities, which start only once
 * the workflow task that asked for them is kept in the history (docs/payments.md#refunds-happen-once).
 *
 * - create: `initiate` records the payment and asks the provider; the API's `initiatePayment`
 *   Update (sent with the start) answers then, with the provider's reference and `next_action`.
 *   Initiation and the write of an answer it brought are the exception: local activities in the
 *   first workflow task, idempotent by payment id, provider reference and version (same section).
 *   Data PostgreSQL refuses (`PaymentNotRecorded`: nothing written, nothing sent) fails that Update
 *   `validation_error` and the run (docs/api.md#errors); activity bounds are in `activity-options.ts`.
 * - open: `waitForProvider` waits for a callback (a hint, confirmed by asking the provider), polls
 *   (2 s doubling to 60 s) and, at `expires_at`, `expire` asks the provider to cancel and takes its
 *   last word (docs/payments.md#states).
 * - settled: the workflow ends once no refund is in flight; cancel, refund and late callbacks
 *   re-open it from the read model (Update- or Signal-with-Start, docs/payments.md#workflow), and `reconcile` applies a
 *   late success (docs/payments.md#states).
 * Money operations and payment writes run one at a time (`exclusive`), so refunds of one payment
 * are decided one after another and every write carries the next version.
 *
 * Deterministic: only `@temporalio/workflow`, domain code, messages and activity contracts are imported.
 */
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  log,
  metricMeter,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { DomainError } from '../domain/errors';
import { isOpen, MAX_POLL_DELAY_MS, nextPollDelayMs, pollDelayAfter, type ProviderOutcome } from '../domain/payment';
import type { PaymentSnapshot } from '../domain/payment';
import {
  acceptRefund,
  cancelStep,
  expiryStep,
  initialPaymentState,
  isSettled,
  notCancellableMessage,
  notStoredMessage,
  providerAnswerStep,
  refundAnswerStep,
  reservedMinor,
  withdrawRefund,
  type AnswerSource,
  type PaymentState,
  type PaymentStep,
  type RefundAnswerOutcome,
} from '../domain/payment-steps';
import { checkRefund, type RefundRecord } from '../domain/refund';
import { storableText, textFault, textFaultMessage } from '../domain/text';
import { FAILURE_TYPES, type PaymentActivities } from './activity-contracts';
import { applicationCause, isActivityError, type ActivityError } from './activity-errors';
import {
  initiationOptions,
  INITIATION_RECORD_OPTIONS,
  pollOptions,
  PROVIDER_OPTIONS,
  RECORD_OPTIONS,
  REFUND_OPTIONS,
} from './activity-options';
import {
  cancelPaymentUpdate,
  getPaymentQuery,
  initiatePaymentUpdate,
  PaymentStatusAttribute,
  providerCallbackSignal,
  refundPaymentUpdate,
  type PaymentWorkflowInput,
  type ProviderHint,
} from './messages';

/** First wait before asking the provider again about a refund whose answer is unknown, and the longest (ms). */
const REFUND_CHECK_FIRST_MS = 5_000;
const REFUND_CHECK_MAX_MS = 3_600_000;

/**
 * History length (events) past which a payment still waiting on its provider continues as new: a
 * bank transfer waits 72 h.
 */
export const HISTORY_EVENTS_BEFORE_CONTINUE = 2_000;

const records = proxyActivities<PaymentActivities>(RECORD_OPTIONS);
/**
 * The write of the answer initiation brought (a sandbox number or a card that settles at once), run
 * in the create's own workflow task like `initiatePayment` (docs/payments.md#refunds-happen-once).
 */
const initiationRecords = proxyLocalActivities<PaymentActivities>(INITIATION_RECORD_OPTIONS);
const provider = proxyActivities<PaymentActivities>(PROVIDER_OPTIONS);
const refunds = proxyActivities<PaymentActivities>(REFUND_OPTIONS);

/**
 * Counts a provider answer that came after the reconciliation window (docs/payments.md#states), by provider (worker
 * metric `paycollect_late_provider_answers`).
 */
function countLateAnswer(provider: string): void {
  metricMeter
    .createCounter('paycollect_late_provider_answers', 'answers', 'provider answers after the reconciliation window')
    .add(1, { provider });
}

/** The workflow clock, ISO 8601 UTC. */
function nowIso(): string {
  return new Date(Date.now()).toISOString();
}

/** Turns a domain refusal into the Update failure the API maps back to its error code (docs/api.md#errors). */
function refusal(error: unknown): never {
  if (error instanceof DomainError)
    throw ApplicationFailure.create({ type: error.code, message: error.message, nonRetryable: true });
  throw error;
}

function failure(type: string, message: string): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true });
}

/**
 * Refuses a cancel's or refund's `reason` that breaks the text rule (docs/limits.md#request-bodies) before the Update
 * is
 * accepted: it is written after the provider acted, where a refused write would leave money moved
 * or a state committed without its record.
 * @throws ApplicationFailure `validation_error`
 */
function checkReason(reason: string | null | undefined): void {
  const fault = reason ? textFault(reason) : undefined;
  if (fault) throw failure('validation_error', textFaultMessage('reason', fault));
}

/**
 * The payment of `state` with what its refunds in flight hold (`amountRefundPending`,
 * docs/payments.md#cancel-and-refund).
 */
function withReservations(state: PaymentState): PaymentSnapshot {
  return { ...state.payment, amountRefundPending: reservedMinor(state) };
}

/** The type of an activity failure's cause, when it is an ApplicationFailure. */
function causeType(error: ActivityError): string | undefined {
  return applicationCause(error)?.type ?? undefined;
}

/**
 * The message of an activity failure's cause, storable: it may end up in the read model (a failure message) after a
 * provider acted.
 */
function causeMessage(error: ActivityError): string {
  return storableText(applicationCause(error)?.message ?? 'the provider did not answer');
}

/**
 * The create's 400 answer when PostgreSQL refused the payment's data: the SQLSTATE, never the data
 * (docs/api.md#errors).
 */
function notRecordedRefusal(error: ActivityError): ApplicationFailure {
  const refused = applicationCause(error)?.details?.[0] as { sqlState?: string; condition?: string } | undefined;
  return failure('validation_error', notStoredMessage(refused));
}

/** Runs one payment until it is settled (see module comment). */
export async function paymentWorkflow(input: PaymentWorkflowInput): Promise<PaymentSnapshot> {
  const reconciliationWindowMs = input.reconciliationWindowSeconds * 1000;
  let state: PaymentState | undefined = input.mode === 'reopen' ? undefined : initialPaymentState(input.payment);
  /** The payment as initiation left it: what the create's Update answers (docs/payments.md#workflow). */
  let initiated: PaymentSnapshot | undefined = input.mode === 'continued' ? input.payment : undefined;
  /**
   * Whether the create's first step (initiation and the write of the answer it brought) has run in
   * this run. Refunds are judged only after it: a first task thrown away may have written
   * `completed` to the read model before this run knows it (docs/payments.md#refunds-happen-once).
   */
  let firstStepDone = input.mode !== 'create';
  const hints: ProviderHint[] = [];
  /** Refunds whose provider answer is unknown: asked about until final (docs/payments.md#cancel-and-refund). */
  const unknownRefunds = new Set<string>();

  /** The state, once the payment is known (a re-opened run reads it first). */
  function current(): PaymentState {
    if (!state) throw new Error('the payment is not loaded yet');
    return state;
  }
  const loaded = () => state !== undefined;
  /**
   * Set when PostgreSQL refused the new payment's data: nothing was recorded or sent, and every Update is refused with
   * it.
   */
  let notRecorded: ApplicationFailure | undefined;
  const ready = async () => {
    if (!state) await condition(loaded);
    if (input.mode === 'create' && !initiated)
      await condition(() => initiated !== undefined || notRecorded !== undefined);
    if (notRecorded) throw notRecorded;
    return current();
  };

  // One money operation or payment write at a time, in the order asked (FIFO hand-over).
  let busy = false;
  const waiting: (() => void)[] = [];
  async function exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (busy) await new Promise<void>((resolve) => waiting.push(resolve));
    else busy = true;
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else busy = false;
    }
  }

  /** Adopts a step's state, keeps the PaymentStatus search attribute current and runs its effect (lock held). */
  async function commit(
    step: PaymentStep,
    writer: Pick<PaymentActivities, 'recordPaymentStatus'> = records,
  ): Promise<void> {
    const before = current().payment.status;
    state = step.state;
    if (state.payment.status !== before)
      upsertSearchAttributes([{ key: PaymentStatusAttribute, value: state.payment.status }]);
    switch (step.effect.kind) {
      case 'record':
        await writer.recordPaymentStatus(withReservations(state));
        break;
      case 'record_late_answer':
        countLateAnswer(state.payment.provider);
        log.warn('provider answer after the reconciliation window', {
          paymentId: state.payment.id,
          lateAnswer: state.payment.lateAnswer,
        });
        await writer.recordPaymentStatus(withReservations(state));
        break;
      case 'refund_late_success':
        await refundInLock(step.effect.refund);
        break;
      case 'none':
        break;
    }
  }

  /** Applies a provider answer (docs/payments.md#states): status change, or reconciliation once closed. */
  async function applyAnswer(outcome: ProviderOutcome, source: AnswerSource): Promise<void> {
    await exclusive(async () => {
      log.info('provider answer', { paymentId: current().payment.id, source, status: outcome.status });
      // Initiation's own answer is written in the create's workflow task, like initiation itself.
      await commit(
        providerAnswerStep(current(), outcome, nowIso(), reconciliationWindowMs),
        source === 'initiation' ? initiationRecords : records,
      );
    });
  }

  /** Adopts the provider's answer about refund `refundId` and writes it when final (lock held). */
  async function settleRefund(refundId: string, answer: RefundAnswerOutcome): Promise<RefundRecord | undefined> {
    const before = current().payment.status;
    const step = refundAnswerStep(current(), refundId, answer, nowIso());
    state = step.state;
    if (state.payment.status !== before)
      upsertSearchAttributes([{ key: PaymentStatusAttribute, value: state.payment.status }]);
    if (step.effect.kind === 'record' && step.refund)
      await records.recordRefundOutcome({ refund: step.refund, payment: withReservations(state) });
    if (answer.status === 'pending') unknownRefunds.add(refundId);
    else unknownRefunds.delete(refundId);
    return step.refund;
  }

  /**
   * Sends a reserved refund to the provider and settles it by the answer (lock held): completed,
   * failed on a definite refusal, or `pending` (still reserved) when the answer is unknown
   * (docs/payments.md#cancel-and-refund).
   */
  async function refundInLock(refund: RefundRecord): Promise<RefundRecord> {
    let answer: RefundAnswerOutcome;
    try {
      answer = await refunds.refundAtProvider({ payment: current().payment, refund });
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      if (causeType(error) === FAILURE_TYPES.providerUnsupported) {
        state = withdrawRefund(current(), refund.id);
        throw failure('payment_not_refundable', causeMessage(error));
      }
      if (causeType(error) === FAILURE_TYPES.refundNotRecorded) {
        // Its data cannot be stored: nothing was written or sent, so it is withdrawn (docs/api.md#errors).
        state = withdrawRefund(current(), refund.id);
        throw failure('validation_error', `${causeMessage(error)}; nothing was refunded`);
      }
      answer =
        causeType(error) === FAILURE_TYPES.providerRejected
          ? { status: 'failed', failureMessage: causeMessage(error) }
          : { status: 'pending' };
    }
    return (await settleRefund(refund.id, answer)) ?? refund;
  }

  /**
   * Asks the provider about refunds whose answer was unknown, with backoff, until each is final
   * (docs/payments.md#cancel-and-refund).
   */
  async function settleUnknownRefunds(waitMs: number): Promise<void> {
    if (await condition(() => hints.length > 0, waitMs)) return;
    for (const refundId of [...unknownRefunds]) {
      await exclusive(async () => {
        const refund = current().pendingRefunds.find((r) => r.id === refundId);
        if (!refund) {
          unknownRefunds.delete(refundId);
          return;
        }
        try {
          await settleRefund(refundId, await provider.fetchRefundAtProvider({ payment: current().payment, refund }));
        } catch (error) {
          if (!(error instanceof ActivityFailure)) throw error;
          log.warn('refund status still unknown', { refundId, error: causeMessage(error) });
        }
      });
    }
  }

  /**
   * Confirms a callback by asking the provider (callbacks are hints, docs/payments.md#provider-callbacks), then applies
   * the answer.
   */
  async function confirmHint(hint: ProviderHint): Promise<void> {
    const { payment } = current();
    if (payment.providerReference === null || hint.providerReference !== payment.providerReference) return;
    try {
      const answer = await provider.fetchProviderPaymentStatus({
        environment: payment.environment,
        provider: payment.provider,
        providerReference: payment.providerReference,
      });
      await applyAnswer(answer.outcome, isOpen(payment.status) ? 'callback' : 'reconciliation');
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      log.warn('callback could not be confirmed with the provider', {
        paymentId: payment.id,
        claimed: hint.claimed,
        error: causeMessage(error),
      });
    }
  }

  setHandler(getPaymentQuery, () => withReservations(current()));
  setHandler(providerCallbackSignal, (hint) => void hints.push(hint));
  setHandler(initiatePaymentUpdate, async () => {
    await ready();
    return initiated ?? current().payment;
  });

  setHandler(
    cancelPaymentUpdate,
    async (request) => {
      await ready();
      return exclusive(async () => {
        const { payment } = current();
        if (!isOpen(payment.status)) throw failure('payment_not_cancellable', notCancellableMessage(payment.status));
        let answer: ProviderOutcome | 'unsupported' = 'unsupported';
        if (payment.providerReference !== null) {
          try {
            const cancelled = await provider.cancelProviderPayment({
              environment: payment.environment,
              provider: payment.provider,
              providerReference: payment.providerReference,
            });
            answer = cancelled === 'unsupported' ? 'unsupported' : cancelled.outcome;
          } catch (error) {
            if (!(error instanceof ActivityFailure)) throw error;
            throw failure('provider_unavailable', causeMessage(error));
          }
        }
        const step = cancelStep(current(), answer, request.reason ?? null, nowIso());
        await commit(step);
        // The provider's word decides a race with a success (docs/payments.md#states): then the cancel loses.
        if (!step.cancelled) throw failure('payment_not_cancellable', notCancellableMessage(current().payment.status));
        return current().payment;
      });
    },
    {
      validator: (request) => {
        checkReason(request.reason);
        if (state && !isOpen(state.payment.status))
          throw failure('payment_not_cancellable', notCancellableMessage(state.payment.status));
      },
    },
  );

  setHandler(
    refundPaymentUpdate,
    async (request) => {
      if (!state || !firstStepDone) await condition(() => loaded() && firstStepDone);
      if (notRecorded) throw notRecorded;
      // Reserve at once, before anything can interleave (docs/payments.md#states): many Updates in one activation
      // each see the reservations of those before them.
      let refund: RefundRecord;
      try {
        ({ state, refund } = acceptRefund(current(), request, nowIso()));
      } catch (error) {
        refusal(error);
      }
      return exclusive(() => refundInLock(refund));
    },
    {
      validator: (request) => {
        checkReason(request.reason);
        // a re-opened run reads the payment first, a new one initiates it; the handler decides
        if (!state || !firstStepDone) return;
        try {
          checkRefund(state.payment, reservedMinor(state), request.amount);
        } catch (error) {
          refusal(error);
        }
      },
    },
  );

  /**
   * Records the payment and asks the provider to collect it (docs/providers.md#adapters, docs/payments.md#workflow),
   * retried until its expiry.
   * When PostgreSQL refuses the payment's data nothing was written or sent: `notRecorded` is set.
   */
  async function initiate(): Promise<void> {
    try {
      await initiateOnce();
    } finally {
      firstStepDone = true;
    }
  }

  /** {@link initiate} itself. */
  async function initiateOnce(): Promise<void> {
    const { payment } = current();
    try {
      const initiation = proxyLocalActivities<PaymentActivities>(
        initiationOptions(Date.parse(payment.expiresAt) - Date.now()),
      );
      const result = await initiation.initiatePayment({ payment, changedAt: nowIso() });
      state = { ...current(), payment: result.payment };
      if (result.payment.status !== payment.status)
        upsertSearchAttributes([{ key: PaymentStatusAttribute, value: result.payment.status }]);
      initiated = result.payment;
      if (result.outcome) await applyAnswer(result.outcome, 'initiation');
    } catch (error) {
      if (!isActivityError(error)) throw error;
      if (causeType(error) === FAILURE_TYPES.paymentNotRecorded) {
        notRecorded = notRecordedRefusal(error);
        return;
      }
      const failed: PaymentStep = {
        state: {
          ...current(),
          payment: {
            ...payment,
            status: 'failed',
            failureCode: 'provider_error',
            failureMessage: causeMessage(error),
            updatedAt: nowIso(),
            version: (payment.version ?? 0) + 1,
          },
        },
        effect: { kind: 'record' },
      };
      await exclusive(() => commit(failed, initiationRecords));
      initiated = current().payment;
    }
  }

  /**
   * At `expires_at`: asks the provider to cancel where it can, else for its status, and takes its last word
   * (docs/payments.md#states).
   */
  async function expire(): Promise<void> {
    await exclusive(async () => {
      const { payment } = current();
      if (!isOpen(payment.status)) return;
      let lastWord: ProviderOutcome | undefined;
      if (payment.providerReference !== null) {
        const call = {
          environment: payment.environment,
          provider: payment.provider,
          providerReference: payment.providerReference,
        };
        try {
          const cancelled = await provider.cancelProviderPayment(call);
          lastWord =
            cancelled === 'unsupported' ? (await provider.fetchProviderPaymentStatus(call)).outcome : cancelled.outcome;
        } catch (error) {
          if (!(error instanceof ActivityFailure)) throw error;
          log.warn('no last word from the provider at expiry', { paymentId: payment.id, error: causeMessage(error) });
        }
      }
      await commit(expiryStep(current(), lastWord, nowIso()));
    });
  }

  /**
   * Polls through `pollProviderPayment`, whose retries are the later polls, starting after `delayMs`
   * doubled (docs/payments.md#workflow) until the provider's answer changes the payment or `expires_at`. Resolves with
   * that answer and the poll delay then reached; undefined when woken first (the polls are then
   * cancelled) or when the polls ended without an answer.
   */
  async function pollUntilAnswered(
    delayMs: number,
    expiresAtMs: number,
    woken: () => boolean,
  ): Promise<{ outcome: ProviderOutcome; delayMs: number } | undefined> {
    const { payment } = current();
    const { pollProviderPayment } = proxyActivities<PaymentActivities>(
      pollOptions(nextPollDelayMs(delayMs), expiresAtMs - Date.now()),
    );
    const scope = new CancellationScope();
    try {
      return await scope.run(async () => {
        const answered = pollProviderPayment({
          environment: payment.environment,
          provider: payment.provider,
          providerReference: payment.providerReference as string,
          status: payment.status,
        }).then((polled) => ({ outcome: polled.answer.outcome, delayMs: pollDelayAfter(delayMs, polled.attempt - 1) }));
        return await Promise.race([answered, condition(woken).then(() => undefined)]);
      });
    } catch (error) {
      if (error instanceof ActivityFailure) return undefined;
      throw error;
    } finally {
      scope.cancel();
    }
  }

  /** While the payment is open: callbacks, polls and expiry (docs/payments.md). */
  async function waitForProvider(resumedDelayMs: number | undefined): Promise<void> {
    const expiresAtMs = Date.parse(current().payment.expiresAt);
    const woken = () => hints.length > 0 || !isOpen(current().payment.status);
    let delayMs = resumedDelayMs;
    while (isOpen(current().payment.status)) {
      const longHistory =
        workflowInfo().historyLength > HISTORY_EVENTS_BEFORE_CONTINUE || workflowInfo().continueAsNewSuggested;
      if (longHistory && hints.length === 0 && !busy) {
        // Keep the history short while waiting on the provider; the next run resumes the polling.
        await condition(allHandlersFinished);
        await continueAsNew<typeof paymentWorkflow>({
          mode: 'continued',
          payment: current().payment,
          pollDelayMs: delayMs ?? nextPollDelayMs(undefined),
          reconciliationWindowSeconds: input.reconciliationWindowSeconds,
        });
      }
      const hint = hints.shift();
      if (hint) {
        await confirmHint(hint);
        continue;
      }
      const untilExpiryMs = expiresAtMs - Date.now();
      if (untilExpiryMs <= 0) {
        await expire();
        continue;
      }
      delayMs = nextPollDelayMs(delayMs);
      if (await condition(woken, Math.min(delayMs, untilExpiryMs))) continue;
      if (Date.now() >= expiresAtMs || current().payment.providerReference === null) continue;
      const answered = await pollUntilAnswered(delayMs, expiresAtMs, woken);
      if (answered) {
        delayMs = answered.delayMs;
        await applyAnswer(answered.outcome, 'poll');
      } else if (!woken()) {
        delayMs = MAX_POLL_DELAY_MS; // the polls ended: at most one more wait, cut at expires_at
      }
    }
  }

  if (input.mode === 'reopen') {
    const stored = await records.loadPayment(input.paymentId);
    state = { payment: stored.payment, pendingRefunds: stored.pendingRefunds };
    for (const refund of stored.pendingRefunds) unknownRefunds.add(refund.id);
  } else if (input.mode === 'create') {
    await initiate();
    if (notRecorded) {
      // Bad data changes nothing (docs/api.md#errors): the create's Update answers 400, and the run ends failed,
      // visibly, instead of retrying a write that can never succeed.
      await condition(allHandlersFinished);
      throw ApplicationFailure.create({
        type: FAILURE_TYPES.paymentNotRecorded,
        message: notRecorded.message,
        nonRetryable: true,
      });
    }
  }

  let refundCheckMs = REFUND_CHECK_FIRST_MS;
  for (;;) {
    if (isOpen(current().payment.status)) {
      await waitForProvider(input.mode === 'continued' ? input.pollDelayMs : undefined);
      continue;
    }
    const hint = hints.shift();
    if (hint) {
      await confirmHint(hint);
      continue;
    }
    if (unknownRefunds.size > 0) {
      await settleUnknownRefunds(refundCheckMs);
      refundCheckMs = Math.min(refundCheckMs * 2, REFUND_CHECK_MAX_MS);
      continue;
    }
    await condition(allHandlersFinished);
    if (hints.length === 0 && isSettled(current()) && unknownRefunds.size === 0) break;
  }
  return current().payment;
}
