/**
 * One run of a payment's workflow (docs/payments.md#workflow): the state, a method per message, and the steps of the
 * main loop. It carries out the table of `domain/payment-table.ts` and decides nothing itself: every change is an
 * event given to {@link PaymentRun.commit}, which applies the table's row and keeps the `PaymentStatus` search
 * attribute current; the row's effects (write, emit, post, ask the provider) run as activities. Money operations and
 * writes run one at a time under a mutex (FIFO), so refunds of one payment are decided one after another and every
 * write carries the next version.
 *
 * Regular activities start only once the workflow task that asked for them is kept in the history; the create's
 * initiation and the writes of what it brought are the exception, local activities in the first workflow task,
 * idempotent by payment id, provider reference and version (docs/payments.md#refunds-happen-once).
 *
 * Deterministic: only `@temporalio/workflow`, a promise-only mutex, domain code, messages and activity contracts.
 */
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  log,
  metricMeter,
  proxyActivities,
  proxyLocalActivities,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { Mutex } from 'async-mutex';
import { isOpen, MAX_POLL_DELAY_MS, nextPollDelayMs, pollDelayAfter, type ProviderOutcome } from '../domain/payment';
import type { PaymentSnapshot } from '../domain/payment';
import {
  answerEvent,
  apply,
  cancelEvent,
  expiryEvent,
  initialPaymentState,
  isFinal,
  lateSuccessRefundId,
  notCancellableMessage,
  notStoredMessage,
  refundAnswerEvent,
  reservedMinor,
  writeOrdersOf,
  type Applied,
  type Decision,
  type PaymentEvent,
  type PaymentState,
  type Refusal,
  type RefundAnswerOutcome,
  type WriteOrders,
} from '../domain/payment-table';
import type { ProviderCapabilities } from '../domain/provider-descriptor';
import { freshAttempt, type AttemptFacts } from '../domain/provider-health';
import type { RefundRecord } from '../domain/refund';
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
  PaymentStatusAttribute,
  PROVIDER_ANSWER_WAIT_MS,
  type CancelUpdateInput,
  type PaymentWorkflowInput,
  type ProviderHint,
  type RefundUpdateInput,
} from './messages';
import type { CheckoutActivities } from './checkout-messages';

/** First wait before asking the provider again about a refund whose answer is unknown, and the longest (ms). */
const REFUND_CHECK_FIRST_MS = 5_000;
const REFUND_CHECK_MAX_MS = 3_600_000;
/** The refund window of runs started without one (docs/payments.md#states: 180 days), in seconds. */
const DEFAULT_REFUND_WINDOW_SECONDS = 180 * 86_400;

/**
 * History length (events) past which a payment still waiting on its provider continues as new: a bank transfer
 * waits 72 h.
 */
export const HISTORY_EVENTS_BEFORE_CONTINUE = 2_000;

const records = proxyActivities<PaymentActivities>(RECORD_OPTIONS);
/** The writes of what initiation brought, in the create's own workflow task like `initiatePayment`. */
const initiationRecords = proxyLocalActivities<PaymentActivities>(INITIATION_RECORD_OPTIONS);
const provider = proxyActivities<PaymentActivities>(PROVIDER_OPTIONS);
const refunds = proxyActivities<PaymentActivities>(REFUND_OPTIONS);
const checkout = proxyActivities<Pick<CheckoutActivities, 'tellCheckoutSession'>>(RECORD_OPTIONS);

type Writer = Pick<PaymentActivities, 'recordPaymentStatus'>;

/** The workflow clock, ISO 8601 UTC. */
function nowIso(): string {
  return new Date(Date.now()).toISOString();
}

function failure(type: string, message: string): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true });
}

/** The Update failure of a refusal of the table: the API maps its type back to the error code (docs/api.md#errors). */
function refused(refusal: Refusal): ApplicationFailure {
  return failure(refusal.code, refusal.message);
}

/**
 * Refuses a cancel's or refund's `reason` that breaks the text rule (docs/limits.md#request-bodies) before the Update
 * is accepted: it is written after the provider acted, where a refused write would leave money moved.
 * @throws ApplicationFailure `validation_error`
 */
function checkReason(reason: string | null | undefined): void {
  const fault = reason ? textFault(reason) : undefined;
  if (fault) throw failure('validation_error', textFaultMessage('reason', fault));
}

/** The type of an activity failure's cause, when it is an ApplicationFailure. */
function causeType(error: ActivityError): string | undefined {
  return applicationCause(error)?.type ?? undefined;
}

/** The message of an activity failure's cause, storable: it may end up in the read model after a provider acted. */
function causeMessage(error: ActivityError): string {
  return storableText(applicationCause(error)?.message ?? 'the provider did not answer');
}

/**
 * Counts a provider answer that came after the reconciliation window (docs/payments.md#states), by provider (worker
 * metric `paycollect_late_provider_answers`).
 */
function countLateAnswer(code: string): void {
  metricMeter
    .createCounter('paycollect_late_provider_answers', 'answers', 'provider answers after the reconciliation window')
    .add(1, { provider: code });
}

/**
 * True when the last try of an activity that failed got a usable answer from the provider: its failure (or, after a
 * time-out, the last try's failure under it) is the provider's "still waiting" or its refusal, not a time-out or an
 * unknown answer (docs/availability.md#classification).
 */
function lastTryAnswered(error: ActivityFailure): boolean {
  const answered: string[] = [FAILURE_TYPES.providerStillWaiting, FAILURE_TYPES.providerRejected];
  for (let cause: unknown = error.cause, depth = 0; cause instanceof Error && depth < 5; depth += 1) {
    if (cause instanceof ApplicationFailure) return answered.includes(cause.type ?? '');
    cause = cause.cause;
  }
  return false;
}

/** A payment's run: its state and what each message and each wait does to it (see the module comment). */
export class PaymentRun {
  private state: PaymentState | undefined;
  /** The payment as initiation left it: what the create's Update answers (docs/payments.md#workflow). */
  private initiatedPayment: PaymentSnapshot | undefined;
  /**
   * Whether the create's first step has run in this run: refunds are judged only after it, since a first task thrown
   * away may have written `completed` before this run knows it (docs/payments.md#refunds-happen-once).
   */
  private firstStepDone: boolean;
  /** Set when PostgreSQL refused the new payment's data: nothing was recorded or sent; every Update gets it. */
  private notRecorded: ApplicationFailure | undefined;
  private readonly hints: ProviderHint[] = [];
  /** Refunds whose provider answer is unknown: asked about until final (docs/payments.md#cancel-and-refund). */
  private readonly unknownRefunds = new Set<string>();
  /** Refunds written `pending` in this run: their Update may answer before the provider does. */
  private readonly writtenRefunds = new Set<string>();
  /**
   * The journal causes the table's row that accepted each refund of this run declared (its reservation; with a late
   * success after a cancel, the collection), by refund id: posted with whichever write first stores the refund, which
   * may be its outcome's when its first call was lost (docs/ledger.md#postings). Dropped once the refund is decided.
   */
  private readonly acceptedPosts = new Map<string, string[]>();
  /** Refunds an earlier run decided, by id: an Update of one sent again to this run answers it (a re-opened run). */
  private readonly decidedRefunds = new Map<string, RefundRecord>();
  private readonly mutex = new Mutex();
  /** Outcomes being told to the payment's checkout session (docs/checkout.md#states): the run ends after them. */
  private telling = 0;
  private pollDelayMs: number | undefined;
  /**
   * What the run knows of the provider's collection attempt, for the outcome a final row records
   * (docs/availability.md#classification); undefined until the run asked the provider or was handed it: the attempt
   * then counts from the payment's creation.
   */
  private attempt: AttemptFacts | undefined;
  private refundCheckMs = REFUND_CHECK_FIRST_MS;
  private readonly reconciliationWindowMs: number;
  private readonly refundWindowMs: number;

  constructor(private readonly input: PaymentWorkflowInput) {
    this.state = input.mode === 'reopen' ? undefined : initialPaymentState(input.payment);
    this.initiatedPayment = input.mode === 'continued' ? input.payment : undefined;
    this.firstStepDone = input.mode !== 'create';
    this.pollDelayMs = input.mode === 'continued' ? input.pollDelayMs : undefined;
    this.attempt = input.mode === 'continued' ? input.attempt : undefined;
    this.reconciliationWindowMs = input.reconciliationWindowSeconds * 1000;
    this.refundWindowMs = (input.refundWindowSeconds ?? DEFAULT_REFUND_WINDOW_SECONDS) * 1000;
  }

  // ---- messages ----

  /** `getPayment`: the payment with what its refunds in flight hold (docs/payments.md#cancel-and-refund). */
  snapshot(): PaymentSnapshot {
    return { ...this.current().payment, amountRefundPending: reservedMinor(this.current()) };
  }

  /** `providerCallback`: a hint, confirmed with the provider by the main loop (docs/payments.md#provider-callbacks). */
  hint(hint: ProviderHint): void {
    this.hints.push(hint);
  }

  /** `initiatePayment`: the payment once recorded and initiated (docs/payments.md#workflow). */
  async initiated(): Promise<PaymentSnapshot> {
    await this.ready();
    return this.initiatedPayment ?? this.current().payment;
  }

  /** `cancelPayment`'s validator: the text rule, and the table's refusal once the payment is known. */
  checkCancel(request: CancelUpdateInput): void {
    checkReason(request.reason);
    const decided = this.state && apply(this.state, this.cancelRequest(request), nowIso());
    if (decided && !decided.ok) throw refused(decided.refusal);
  }

  /**
   * `cancelPayment` (docs/payments.md#cancel-and-refund): asks the provider to withdraw its request where it can,
   * then commits its word; a success or a failure it already reached wins and the cancel is refused.
   */
  async cancel(request: CancelUpdateInput): Promise<PaymentSnapshot> {
    await this.ready();
    let deciding = true;
    const decided = this.mutex.runExclusive(async () => {
      const reason = request.reason ?? null;
      const decided = apply(this.current(), this.cancelRequest(request), nowIso());
      if (!decided.ok) throw refused(decided.refusal);
      let word: ProviderOutcome | 'unsupported' = 'unsupported';
      const { payment } = this.current();
      if (payment.providerReference !== null) {
        try {
          const answer = await provider.cancelProviderPayment(this.providerCall(payment.providerReference));
          word = answer === 'unsupported' ? 'unsupported' : answer.outcome;
        } catch (error) {
          if (!(error instanceof ActivityFailure)) throw error;
          // Whether the provider withdrew its request is unknown: the payment is checked with it from now on.
          await this.commitAndPerform(this.unanswered());
          throw failure('provider_unavailable', causeMessage(error));
        }
      }
      const event = cancelEvent(word, reason);
      const applied = this.commit(event);
      if (!applied.ok) throw refused(applied.refusal); // the provider cannot withdraw its request: nothing changed
      await this.perform(applied);
      const { status } = this.current().payment;
      if (status !== 'cancelled') throw failure('payment_not_cancellable', notCancellableMessage(status));
      return this.current().payment;
    });
    // The provider's word, or after PROVIDER_ANSWER_WAIT_MS the payment as it stands: the cancel goes on in this run,
    // and `payment.cancelled` (or the provider's success) says how it ended (docs/payments.md#cancel-and-refund).
    let answeredEarly = false;
    void decided
      .finally(() => (deciding = false))
      .catch((error) => {
        if (answeredEarly) log.warn('cancel ended after its answer', { error: String(error) });
      });
    if (await condition(() => !deciding, PROVIDER_ANSWER_WAIT_MS)) return decided;
    answeredEarly = true;
    return this.current().payment;
  }

  /** `refundPayment`'s validator: the text rule, and the table's refusal once the payment is known and initiated. */
  checkRefund(request: RefundUpdateInput): void {
    checkReason(request.reason);
    if (!this.state || !this.firstStepDone) return; // a re-opened run reads the payment first; the handler decides
    if (this.madeBefore(request.refundId)) return; // the handler answers it as it stands
    const decided = apply(this.state, this.refundEvent(request), nowIso());
    if (!decided.ok) throw refused(decided.refusal);
  }

  /**
   * `refundPayment` (docs/payments.md#cancel-and-refund): reserves the amount at once, before anything can
   * interleave (many Updates in one activation each see the reservations before them), then sends it in turn.
   */
  async refund(request: RefundUpdateInput): Promise<RefundRecord> {
    if (!this.state || !this.firstStepDone) await condition(() => this.state !== undefined && this.firstStepDone);
    if (this.notRecorded) throw this.notRecorded;
    // An Update sent again after its run closed reaches this run with the same id (Temporal knows an Update id within
    // one run): the refund it made, never a second reservation (docs/payments.md#refunds-happen-once).
    const made = this.madeBefore(request.refundId);
    if (made) return made;
    const accepted = this.commit(this.refundEvent(request));
    if (!accepted.ok) throw refused(accepted.refusal);
    let sending = true;
    let answeredPending = false;
    const sent = this.mutex
      .runExclusive(async () => (await this.perform(accepted)) ?? (accepted.refund as RefundRecord))
      .finally(() => (sending = false));
    // Handled at once (it may fail while this handler waits; the handler then rethrows it by returning it).
    sent.catch((error) => {
      if (answeredPending) log.error('refund send failed after its pending answer', { error: String(error) });
    });
    // The provider's answer, or after PROVIDER_ANSWER_WAIT_MS `pending` once the refund is written: the send goes on
    // in this run, which commits its answer (docs/payments.md#cancel-and-refund).
    if (await condition(() => !sending, PROVIDER_ANSWER_WAIT_MS)) return sent;
    await condition(() => !sending || this.writtenRefunds.has(request.refundId));
    if (!sending) return sent;
    answeredPending = true;
    return accepted.refund as RefundRecord;
  }

  // ---- the main loop's steps ----

  /**
   * The run's first step: a new payment is recorded and initiated, a re-opened one read from the read model.
   * @throws ApplicationFailure `PaymentNotRecorded` (the run ends failed) when PostgreSQL refused the new payment's
   *   data: nothing was recorded or sent, and the create's Update answers 400 (docs/api.md#errors)
   */
  async begin(): Promise<void> {
    if (this.input.mode === 'reopen') {
      const stored = await records.loadPayment(this.input.paymentId);
      this.state = { payment: stored.payment, pendingRefunds: stored.pendingRefunds };
      for (const refund of stored.pendingRefunds) this.unknownRefunds.add(refund.id);
      for (const refund of stored.decidedRefunds ?? []) this.decidedRefunds.set(refund.id, refund);
    } else if (this.input.mode === 'create') {
      try {
        await this.initiate();
      } finally {
        this.firstStepDone = true;
      }
      if (this.notRecorded) {
        await condition(allHandlersFinished);
        throw failure(FAILURE_TYPES.paymentNotRecorded, this.notRecorded.message);
      }
    }
  }

  /**
   * One step of the main loop: confirms a callback, waits for the provider (poll, expiry) while the payment is open,
   * or asks about refunds whose answer is unknown. False when there is nothing left to wait for.
   */
  async step(): Promise<boolean> {
    const hint = this.hints.shift();
    if (hint) await this.confirm(hint);
    else if (isOpen(this.current().payment.status)) await this.waitForProvider();
    else if (this.unknownRefunds.size > 0) await this.checkUnknownRefunds();
    // A refund that answered `pending` before its provider did is still being sent.
    else if (this.mutex.isLocked()) await condition(() => !this.mutex.isLocked() || this.hints.length > 0);
    else if (this.telling > 0) await condition(() => this.telling === 0);
    else return false;
    return true;
  }

  /** The payment as the run ends it (the workflow's result). */
  result(): PaymentSnapshot {
    return this.current().payment;
  }

  /**
   * True once the run may end: final, nothing in flight, no hint left (docs/payments.md#workflow). A refund that
   * answered `pending` before its provider did may already be decided in the state while its writes still run under
   * the lock: the run ends only after them.
   */
  done(): boolean {
    return (
      this.hints.length === 0 &&
      this.unknownRefunds.size === 0 &&
      !this.mutex.isLocked() &&
      this.telling === 0 &&
      isFinal(this.current())
    );
  }

  /** True while an open payment's history grew long and nothing is under way (samples' `shouldContinueAsNew`). */
  shouldContinueAsNew(): boolean {
    const long = workflowInfo().historyLength > HISTORY_EVENTS_BEFORE_CONTINUE || workflowInfo().continueAsNewSuggested;
    return long && isOpen(this.current().payment.status) && this.hints.length === 0 && !this.mutex.isLocked();
  }

  /** The next run's input: the payment as it stands, polling resumed where it was. */
  continuation(): PaymentWorkflowInput {
    return {
      mode: 'continued',
      payment: this.current().payment,
      pollDelayMs: this.pollDelayMs ?? nextPollDelayMs(undefined),
      ...(this.attempt ? { attempt: this.attempt } : {}),
      reconciliationWindowSeconds: this.input.reconciliationWindowSeconds,
      refundWindowSeconds: this.input.refundWindowSeconds,
    };
  }

  // ---- the one place state changes ----

  /**
   * Applies `event` by the table at `at` (ISO 8601, default now) and adopts the result: state, version and the
   * `PaymentStatus` search attribute change here and in {@link take} and nowhere else. A refusal changes nothing.
   */
  private commit(event: PaymentEvent, at: string = nowIso()): Applied {
    const applied = apply(this.current(), event, at);
    if (applied.ok) this.take(applied);
    return applied;
  }

  /**
   * Adopts a row taken by the table (here, or by the create's initiation, which applied it once to the provider's
   * word: docs/payments.md#workflow) and keeps the `PaymentStatus` search attribute current.
   */
  private take(decision: Decision): void {
    const before = this.current().payment.status;
    this.state = decision.state;
    if (decision.state.payment.status !== before) {
      upsertSearchAttributes([{ key: PaymentStatusAttribute, value: decision.state.payment.status }]);
    }
  }

  /**
   * The row's `tell_checkout` effect: tells the payment's checkout session (when it is an attempt of one) its final
   * outcome, `completed` (at once or as a late success), or `failed` once failed or cancelled; the session's run
   * decides what it means (docs/checkout.md#states). The activity is retried until it lands (RECORD_OPTIONS), beside
   * the run's other steps; the run does not end before it did.
   */
  private tellCheckoutSession(payment: PaymentSnapshot): void {
    if (!payment.checkoutSession) return;
    const { status } = payment;
    const outcome =
      status === 'completed' ? 'completed' : status === 'failed' || status === 'cancelled' ? 'failed' : null;
    if (!outcome) return;
    this.telling += 1;
    void checkout
      .tellCheckoutSession({ sessionId: payment.checkoutSession, payment: payment.id, outcome })
      .catch((error: unknown) =>
        log.warn('the checkout session could not be told its attempt outcome', { paymentId: payment.id, error }),
      )
      .finally(() => {
        this.telling -= 1;
      });
  }

  /**
   * Runs a row's effects (lock held): the writes with the event to emit and the ledger causes to post, the provider
   * calls, the late-answer count.
   * @returns the refund as it stands after a provider call the row asked for
   */
  private async perform(applied: Decision, writer: Writer = records): Promise<RefundRecord | undefined> {
    const orders = this.withAttemptFacts(writeOrdersOf(applied.effects));
    const { refund } = applied;
    let after: RefundRecord | undefined;
    for (const effect of applied.effects) {
      if (effect.do === 'write_refund' && refund) {
        const post = [...(this.acceptedPosts.get(refund.id) ?? []), ...orders.post];
        await records.recordRefundOutcome({ refund, payment: this.snapshot(), ...orders, post });
      } else if (effect.do === 'write' && !applied.effects.some((e) => e.do === 'write_refund'))
        await writer.recordPaymentStatus(this.snapshot(), orders);
      else if (effect.do === 'ask_provider' && refund) after = await this.sendRefund(refund, orders.post);
      else if (effect.do === 'ask_provider_later' && refund) this.unknownRefunds.add(refund.id);
      else if (effect.do === 'count_late_answer') {
        countLateAnswer(this.current().payment.provider);
        log.warn('provider answer after the reconciliation window', { paymentId: this.current().payment.id });
      } else if (effect.do === 'record_exception')
        log.warn('late success booked without a refund; reconciliation exception recorded', {
          paymentId: this.current().payment.id,
          kind: effect.kind,
        });
      else if (effect.do === 'tell_checkout') this.tellCheckoutSession(applied.state.payment);
    }
    return after;
  }

  /**
   * `orders` with the run's facts of the collection attempt when they record its outcome (a refund's attempt counts
   * from the refund's creation, known to its writer).
   */
  private withAttemptFacts(orders: WriteOrders): WriteOrders {
    if (orders.outcome?.operation !== 'collection') return orders;
    const facts = this.attempt ?? freshAttempt(this.current().payment.createdAt);
    return { ...orders, outcome: { ...orders.outcome, facts } };
  }

  /** Notes whether the provider's last word about the open payment was a usable answer. */
  private heard(usable: boolean): void {
    this.attempt = { ...(this.attempt ?? freshAttempt(this.current().payment.createdAt)), lastWordUnknown: !usable };
  }

  private async commitAndPerform(event: PaymentEvent, writer?: Writer): Promise<RefundRecord | undefined> {
    const applied = this.commit(event);
    return applied.ok ? this.perform(applied, writer) : undefined;
  }

  // ---- provider calls ----

  /**
   * Records the payment and asks the provider to collect it, retried until its expiry (docs/providers.md#adapters),
   * then carries what the table made of the provider's word: `initiatePayment` applied it once, to its acceptance and
   * an answer it gave at once, or to its refusal, at the time it was asked, and wrote it when it could; the run takes
   * those steps as they are (kept in its history, they replay the same whatever table a later worker runs) and writes
   * each itself only when initiation could not. A provider that never answered is the run's own row.
   */
  private async initiate(): Promise<void> {
    const { payment } = this.current();
    const initiation = proxyLocalActivities<PaymentActivities>(
      initiationOptions(Date.parse(payment.expiresAt) - Date.now()),
    );
    const at = nowIso();
    this.attempt = freshAttempt(at);
    let decided: { steps: Decision[]; written: boolean } | undefined;
    let unanswered: PaymentEvent | undefined;
    try {
      const audit = this.input.mode === 'create' ? this.input.audit : undefined;
      const result = await initiation.initiatePayment({ payment, changedAt: at, ...(audit ? { audit } : {}) });
      decided = { steps: result.steps, written: result.recorded !== undefined };
      if ('answer' in result)
        log.info('provider answer', {
          paymentId: payment.id,
          source: 'initiation',
          status: result.answer.outcome.status,
        });
    } catch (error) {
      if (!isActivityError(error)) throw error;
      if (causeType(error) === FAILURE_TYPES.paymentNotRecorded) {
        const refusedData = applicationCause(error)?.details?.[0] as { sqlState?: string; condition?: string };
        this.notRecorded = failure('validation_error', notStoredMessage(refusedData));
        return;
      }
      unanswered = { type: 'initiation_unanswered', message: causeMessage(error) };
      // What the activity's last try said of the provider: never reached, or our credentials refused.
      const facts = applicationCause(error)?.details?.[0] as Pick<AttemptFacts, 'neverReached' | 'side'> | undefined;
      this.attempt = {
        ...this.attempt,
        neverReached: facts?.neverReached === true,
        ...(facts?.side ? { side: facts.side } : {}),
      };
    }
    await this.mutex.runExclusive(async () => {
      if (unanswered) {
        const applied = this.commit(unanswered, at);
        if (applied.ok) await this.perform(applied, initiationRecords);
      }
      for (const step of decided?.steps ?? []) {
        this.take(step);
        this.initiatedPayment ??= this.current().payment;
        if (!decided?.written) await this.perform(step, initiationRecords);
        // Initiation wrote its steps; what they tell the checkout session is the run's to carry out.
        else if (step.effects.some((e) => e.do === 'tell_checkout')) this.tellCheckoutSession(step.state.payment);
      }
      this.initiatedPayment ??= this.current().payment;
    });
  }

  /** Resolves once the payment is known (and, for a create, initiated); throws the data refusal of a create. */
  private async ready(): Promise<void> {
    if (!this.state) await condition(() => this.state !== undefined);
    if (this.input.mode === 'create' && !this.initiatedPayment)
      await condition(() => this.initiatedPayment !== undefined || this.notRecorded !== undefined);
    if (this.notRecorded) throw this.notRecorded;
  }

  /** Commits a provider answer (docs/payments.md#states); initiation's own is committed by {@link initiate}. */
  private async applyAnswer(
    outcome: ProviderOutcome,
    source: string,
    supports?: Pick<ProviderCapabilities, 'refund' | 'partialRefund'>,
  ): Promise<void> {
    await this.mutex.runExclusive(async () => {
      log.info('provider answer', { paymentId: this.current().payment.id, source, status: outcome.status });
      const event = answerEvent(this.current().payment, outcome, this.reconciliationWindowMs, supports);
      await this.commitAndPerform(event);
    });
  }

  /** Confirms a callback by asking the provider (callbacks are hints), then commits the answer. */
  private async confirm(hint: ProviderHint): Promise<void> {
    const { payment } = this.current();
    if (payment.providerReference === null || hint.providerReference !== payment.providerReference) return;
    try {
      const answer = await provider.fetchProviderPaymentStatus(this.providerCall(payment.providerReference));
      if (isOpen(payment.status)) this.heard(true);
      await this.applyAnswer(answer.outcome, isOpen(payment.status) ? 'callback' : 'reconciliation', answer.supports);
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      if (isOpen(this.current().payment.status)) this.heard(false);
      log.warn('callback could not be confirmed with the provider', {
        paymentId: payment.id,
        claimed: hint.claimed,
        error: causeMessage(error),
      });
      // The provider may have decided: an open payment is checked with it (docs/payments.md#decision-time).
      await this.mutex.runExclusive(() => this.commitAndPerform(this.unanswered()));
    }
  }

  /**
   * While the payment is open, one wait: expiry when due, else the next poll delay (2 s doubling to 60 s), cut short
   * by a hint or a change, then polls through `pollProviderPayment` until the provider's answer changes the payment.
   */
  private async waitForProvider(): Promise<void> {
    const expiresAtMs = Date.parse(this.current().payment.expiresAt);
    const untilExpiryMs = expiresAtMs - Date.now();
    if (untilExpiryMs <= 0) return this.expire();
    const woken = () => this.hints.length > 0 || !isOpen(this.current().payment.status);
    this.pollDelayMs = nextPollDelayMs(this.pollDelayMs);
    if (await condition(woken, Math.min(this.pollDelayMs, untilExpiryMs))) return;
    if (Date.now() >= expiresAtMs || this.current().payment.providerReference === null) return;
    const answered = await this.pollUntilAnswered(this.pollDelayMs, expiresAtMs, woken);
    if (answered) {
      this.heard(true);
      this.pollDelayMs = answered.delayMs;
      await this.applyAnswer(answered.outcome, 'poll');
    } else if (!woken()) {
      this.pollDelayMs = MAX_POLL_DELAY_MS; // the polls ended: at most one more wait, cut at expires_at
    }
  }

  /**
   * Polls, the activity's retries being the later polls, starting after `delayMs` doubled (docs/payments.md#workflow).
   * Undefined when woken first (the polls are then cancelled) or when the polls ended without an answer.
   */
  private async pollUntilAnswered(
    delayMs: number,
    expiresAtMs: number,
    woken: () => boolean,
  ): Promise<{ outcome: ProviderOutcome; delayMs: number } | undefined> {
    const { payment } = this.current();
    const { pollProviderPayment } = proxyActivities<PaymentActivities>(
      pollOptions(nextPollDelayMs(delayMs), expiresAtMs - Date.now()),
    );
    const scope = new CancellationScope();
    try {
      return await scope.run(async () => {
        const answered = pollProviderPayment({
          ...this.providerCall(payment.providerReference as string),
          status: payment.status,
        }).then((polled) => ({ outcome: polled.answer.outcome, delayMs: pollDelayAfter(delayMs, polled.attempt - 1) }));
        return await Promise.race([answered, condition(woken).then(() => undefined)]);
      });
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      // The polls ended: their last try tells whether the provider still answered (still waiting, a refusal).
      this.heard(lastTryAnswered(error));
      return undefined;
    } finally {
      scope.cancel();
    }
  }

  /** At `expires_at`: asks the provider to cancel where it can, else for its status, and commits its last word. */
  private async expire(): Promise<void> {
    await this.mutex.runExclusive(async () => {
      const { payment } = this.current();
      if (!isOpen(payment.status)) return;
      let lastWord: ProviderOutcome | undefined;
      if (payment.providerReference !== null) {
        const call = this.providerCall(payment.providerReference);
        try {
          const cancelled = await provider.cancelProviderPayment(call);
          lastWord =
            cancelled === 'unsupported' ? (await provider.fetchProviderPaymentStatus(call)).outcome : cancelled.outcome;
        } catch (error) {
          if (!(error instanceof ActivityFailure)) throw error;
          log.warn('no last word from the provider at expiry', { paymentId: payment.id, error: causeMessage(error) });
        }
      }
      await this.commitAndPerform(expiryEvent(lastWord));
    });
  }

  /**
   * Sends a reserved refund to the provider and commits its answer (lock held): completed, refused, or unknown (still
   * reserved); a refund it cannot take, or whose data cannot be stored, is withdrawn and the Update refused.
   */
  private async sendRefund(refund: RefundRecord, post: string[]): Promise<RefundRecord> {
    this.acceptedPosts.set(refund.id, post);
    let answer: RefundAnswerOutcome;
    try {
      const stored = await records.recordRefundPending({ payment: this.current().payment, refund, post });
      this.writtenRefunds.add(refund.id);
      answer =
        stored.status === 'pending'
          ? await refunds.refundAtProvider({ payment: this.current().payment, refund, post })
          : { status: 'already_decided', refund: stored };
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      const type = causeType(error);
      if (type === FAILURE_TYPES.providerUnsupported || type === FAILURE_TYPES.refundNotRecorded) {
        this.commit({ type: 'refund_withdrawn', refundId: refund.id });
        if (refund.id === lateSuccessRefundId(refund.paymentId))
          return this.bookUnrefunded(refund, causeMessage(error));
        if (type === FAILURE_TYPES.providerUnsupported) throw failure('payment_not_refundable', causeMessage(error));
        throw failure('validation_error', `${causeMessage(error)}; nothing was refunded`);
      }
      answer =
        type === FAILURE_TYPES.providerRejected
          ? { status: 'failed', failureMessage: causeMessage(error) }
          : { status: 'pending' };
    }
    return (await this.decideRefund(refund, answer)) ?? refund;
  }

  /**
   * The automatic refund of a late success after a cancel could not be sent (its provider refused it at send time, or
   * its data could not be stored): nothing was refunded or posted, and the collection is booked instead, with a
   * reconciliation exception, by the table's row for a provider that cannot refund (lock held;
   * docs/payments.md#late-successes). Never throws a refusal: the workflow holds money the provider collected.
   */
  private async bookUnrefunded(refund: RefundRecord, why: string): Promise<RefundRecord> {
    log.error('the late success could not be refunded; booked as completed', { paymentId: refund.paymentId, why });
    const unrefundable = { refund: false, partialRefund: false };
    await this.commitAndPerform({ type: 'late_success', reconciliationWindowMs: 0, capabilities: unrefundable });
    return { ...refund, status: 'failed', failureMessage: why };
  }

  /** Commits the provider's answer about a refund in flight (lock held); the refund as it stands after it. */
  private async decideRefund(refund: RefundRecord, answer: RefundAnswerOutcome): Promise<RefundRecord | undefined> {
    if (answer.status !== 'pending') this.unknownRefunds.delete(refund.id);
    const applied = this.commit(refundAnswerEvent(refund.id, answer));
    if (!applied.ok) return undefined;
    await this.perform(applied);
    if (answer.status !== 'pending') this.acceptedPosts.delete(refund.id);
    const decided = answer.status === 'already_decided' ? answer.refund : applied.refund;
    if (decided && decided.status !== 'pending') this.decidedRefunds.set(decided.id, decided);
    // The late success's automatic refund refused: the payment is booked as what it is, collected
    // (docs/payments.md#late-successes).
    if (answer.status === 'failed' && refund.id === lateSuccessRefundId(refund.paymentId))
      await this.commitAndPerform({ type: 'late_refund_refused' });
    return decided;
  }

  /** Asks the provider about refunds whose answer was unknown, after a wait (5 s doubling to hourly). */
  private async checkUnknownRefunds(): Promise<void> {
    const waitMs = this.refundCheckMs;
    this.refundCheckMs = Math.min(this.refundCheckMs * 2, REFUND_CHECK_MAX_MS);
    if (await condition(() => this.hints.length > 0, waitMs)) return;
    for (const refundId of [...this.unknownRefunds]) {
      await this.mutex.runExclusive(async () => {
        const refund = this.current().pendingRefunds.find((r) => r.id === refundId);
        if (!refund) return void this.unknownRefunds.delete(refundId);
        try {
          const post = this.acceptedPosts.get(refund.id) ?? [];
          const answer = await provider.fetchRefundAtProvider({ payment: this.current().payment, refund, post });
          await this.decideRefund(refund, answer);
        } catch (error) {
          if (!(error instanceof ActivityFailure)) throw error;
          log.warn('refund status still unknown', { refundId, error: causeMessage(error) });
        }
      });
    }
  }

  /** The refund `refundId` as an earlier run left it (decided, or pending and asked about), if it made one. */
  private madeBefore(refundId: string): RefundRecord | undefined {
    const pending = this.unknownRefunds.has(refundId)
      ? this.state?.pendingRefunds.find((r) => r.id === refundId)
      : undefined;
    return this.decidedRefunds.get(refundId) ?? pending;
  }

  private current(): PaymentState {
    if (!this.state) throw new Error('the payment is not loaded yet');
    return this.state;
  }

  private providerCall(providerReference: string) {
    const { environment, provider: code } = this.current().payment;
    return { environment, provider: code, providerReference };
  }

  /** A question about the open payment the provider left unanswered (docs/payments.md#decision-time). */
  private unanswered(): PaymentEvent {
    return { type: 'provider_unanswered', reconciliationWindowMs: this.reconciliationWindowMs };
  }

  /** The merchant's cancel as the table takes it, with the capabilities the API's adapter stated. */
  private cancelRequest(request: CancelUpdateInput): PaymentEvent {
    const { capabilities } = request;
    return { type: 'cancel', reason: request.reason ?? null, ...(capabilities ? { capabilities } : {}) };
  }

  private refundEvent(request: RefundUpdateInput): PaymentEvent {
    return {
      type: 'refund_accepted',
      refundId: request.refundId,
      amount: request.amount,
      reason: request.reason ?? null,
      refundWindowMs: this.refundWindowMs,
      capabilities: request.capabilities,
    };
  }
}
