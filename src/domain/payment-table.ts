/**
 * A payment's life as one declared table (docs/payments.md#states, docs/payments.md#cancel-and-refund): each row is
 * (status, event, condition) → (status, effects). {@link apply} is the only code that changes a payment's state or
 * its version; a (status, event) pair that is not a row is refused, and changes nothing. The workflow carries the
 * effects out (ask the provider, write, emit an event, post to the ledger); the API calls {@link apply} for a fast
 * 4xx before it asks the workflow. The states section of docs/payments.md is generated from {@link PAYMENT_TABLE}
 * ({@link stateTableMarkdown}). Pure: safe inside the workflow sandbox.
 */
import type { ProviderCapabilities } from './provider-descriptor';
import type { ReconciliationExceptionKind } from './reconciliation';
import {
  isOpen,
  type FailureCode,
  type NextAction,
  type PaymentSnapshot,
  type PaymentStatus,
  type PendingReason,
} from './payment';
import type { ProviderAnswer, ProviderOutcome } from './payment';
import { refundableAmount, type RefundRecord } from './refund';
import type { AttemptFacts } from './provider-health';
import { describeRefundEffect, refundEffects, type OutcomeEffect } from './refund-table';
import { ANOTHER_ROW, chooseRow, tableMarkdown, describeCommonEffect } from './table-engine';

/** The payment as its workflow holds it, with the refunds accepted and not yet settled (their amounts reserved). */
export interface PaymentState {
  payment: PaymentSnapshot;
  pendingRefunds: RefundRecord[];
}

/** Everything that can happen to a payment: the columns of the table. */
export type PaymentEvent =
  /** The provider took the collection request: its reference and the customer's next step. */
  | { type: 'initiation_accepted'; providerReference: string; nextAction: NextAction | null }
  /** The provider definitely refused the collection request (`reason`: its own, when it named one). */
  | { type: 'initiation_refused'; failureCode: FailureCode; message: string; reason?: string }
  /** The provider gave no usable answer to the collection request for 2 minutes (docs/payments.md#states). */
  | { type: 'initiation_unanswered'; message: string }
  /** The provider says the customer acted and it is settling. */
  | { type: 'provider_processing' }
  /** The provider says it collected the money (`receiptNumber`: its customer-facing id of it, when it names one). */
  | { type: 'provider_success'; receiptNumber?: string }
  /** The provider says the customer or their bank declined (`reason`: its own, when it named one). */
  | { type: 'provider_decline'; failureCode: FailureCode; message: string; reason?: string }
  /** The provider says the collection failed on its side (`reason`: its own, when it named one). */
  | { type: 'provider_error'; message: string; reason?: string }
  /** The provider says it withdrew the request (a customer's cancel at the provider). */
  | { type: 'provider_cancelled' }
  /** The provider says it has not decided yet (`pending`): nothing to act on, unless its last answer was unknown. */
  | { type: 'provider_unknown' }
  /**
   * A question to the provider about the open payment (a callback's confirmation, a cancel) got no usable answer in
   * its 2 minutes of retries (time-outs, 5xx, answers it does not document): the payment is checked with the
   * provider until it answers (docs/payments.md#decision-time). `reconciliationWindowMs`: the window a success it
   * reports after the payment failed is still booked in (docs/payments.md#states).
   */
  | { type: 'provider_unanswered'; reconciliationWindowMs: number }
  /**
   * The provider says it collected the money after the payment closed. `capabilities`: the provider's refund
   * capabilities when the caller knows them (absent: the automatic refund is tried, docs/payments.md#late-successes).
   */
  | {
      type: 'late_success';
      reconciliationWindowMs: number;
      receiptNumber?: string;
      capabilities?: Pick<ProviderCapabilities, 'refund' | 'partialRefund'>;
    }
  /** `expires_at` passed and the provider's last word decided nothing. */
  | { type: 'expiry' }
  /**
   * The merchant's cancel. `capabilities`: the provider's, when the caller knows them; a provider that cannot withdraw
   * its request (`cancel: false`) refuses it (docs/payments.md#cancel-and-refund).
   */
  | { type: 'cancel'; reason: string | null; capabilities?: Pick<ProviderCapabilities, 'cancel'> }
  /**
   * The merchant's refund request (minor units; no amount: the whole rest). `capabilities`: the provider's, when the
   * caller knows them.
   */
  | {
      type: 'refund_accepted';
      refundId: string;
      amount?: number;
      reason: string | null;
      refundWindowMs: number;
      capabilities?: Pick<ProviderCapabilities, 'refund' | 'partialRefund'>;
    }
  /** The provider paid the refund back. */
  | { type: 'refund_completed'; refundId: string; providerReference: string }
  /** The provider definitely refused the refund: nothing was refunded. */
  | { type: 'refund_refused'; refundId: string; message: string }
  /** The provider's answer about the refund is unknown (a time-out, a 5xx). */
  | { type: 'refund_unknown'; refundId: string }
  /**
   * The refund was never sent (its provider cannot take it, or its data cannot be stored) or an earlier run settled
   * it: its reservation goes, without a trace.
   */
  | { type: 'refund_withdrawn'; refundId: string }
  /**
   * The provider refused the automatic refund of a success that came after the merchant's cancel, after it was sent:
   * the money stays collected (docs/payments.md#late-successes).
   */
  | { type: 'late_refund_refused' };

/** The name of an event. */
export type PaymentEventType = PaymentEvent['type'];

/** Every event, in the table's order. */
export const PAYMENT_EVENT_TYPES: readonly PaymentEventType[] = [
  'initiation_accepted',
  'initiation_refused',
  'initiation_unanswered',
  'provider_processing',
  'provider_success',
  'provider_decline',
  'provider_error',
  'provider_cancelled',
  'provider_unknown',
  'provider_unanswered',
  'late_success',
  'expiry',
  'cancel',
  'refund_accepted',
  'refund_completed',
  'refund_refused',
  'refund_unknown',
  'refund_withdrawn',
  'late_refund_refused',
];

/** The events written for a payment or a refund (docs/payments.md#events). */
export type EmittedEvent =
  'payment.completed' | 'payment.failed' | 'payment.cancelled' | 'refund.completed' | 'refund.failed';

/** What the workflow must do after a row. */
export type Effect =
  /** Write the payment's new state; `apply` gives it the next version. */
  | { do: 'write' }
  /**
   * Record the decided attempt of the payment's collection or of its refund for operator health, with the step's
   * write (docs/availability.md#classification); `reason`, the provider's own reason of a failure, is filled in by
   * `apply` from the event.
   */
  | OutcomeEffect
  /** Write the refund's final outcome, with the payment, in one transaction. */
  | { do: 'write_refund' }
  /** Write this event with the step's write (docs/payments.md#events). */
  | { do: 'emit'; event: EmittedEvent }
  /**
   * Post to the ledger under this cause, with the step's write; `{id}` is the payment's id (`payment:…`) or the
   * refund's (`refund:…`); `apply` hands it back filled in.
   */
  | { do: 'post'; cause: string }
  /** Send the refund to the provider (idempotency key `refund:{refund id}`). */
  | { do: 'ask_provider'; call: 'refund' }
  /** Ask the provider about the refund again later (docs/payments.md#cancel-and-refund). */
  | { do: 'ask_provider_later'; call: 'refund_status' }
  /** Count a provider answer after the reconciliation window (`paycollect_late_provider_answers`). */
  | { do: 'count_late_answer' }
  /**
   * Record a reconciliation exception of this kind for the payment, with the step's write, for an operator to look at
   * (docs/payments.md#late-successes, docs/reconciliation.md#exceptions).
   */
  | { do: 'record_exception'; kind: LateSuccessExceptionKind }
  /**
   * Tell the payment's checkout session, when it is an attempt of one, its final outcome (`completed`, or `failed`
   * for failed and cancelled) by an activity retried until it lands (docs/checkout.md#states); nothing for any other
   * payment.
   */
  | { do: 'tell_checkout' };

/** The reconciliation exceptions the table records itself: a late success booked without a refund. */
export type LateSuccessExceptionKind = Extract<
  ReconciliationExceptionKind,
  'late_success_unrefundable' | 'late_success_after_window' | 'late_success_after_decline'
>;

/** Why an event was refused; `code` is an API error code for the merchant's requests (docs/api.md#errors). */
export interface Refusal {
  code: 'payment_not_cancellable' | 'payment_not_refundable' | 'amount_exceeds_refundable' | 'not_applicable';
  message: string;
}

type Of<T extends PaymentEventType> = Extract<PaymentEvent, { type: T }>;

/** One row of the table: in `from`, on `event`, when `when` allows, go to `to` and do `effects`. */
export interface PaymentRow<T extends PaymentEventType = PaymentEventType> {
  from: PaymentStatus;
  event: T;
  /** The condition in words (docs), and its test: a refusal, or undefined to take the row. */
  when?: { text: string; test: (state: PaymentState, event: Of<T>, at: string) => Refusal | undefined };
  to: PaymentStatus;
  effects: readonly Effect[];
  /** The row records without moving `updatedAt`, from which the reconciliation window counts. */
  keepsUpdatedAt?: true;
  /** The state after the row (status, version and `updatedAt` are set by {@link apply}). */
  next: (state: PaymentState, event: Of<T>, at: string) => PaymentState;
}

const write: Effect = { do: 'write' };
/** The collection's decided attempt: a success, or a failure whose side the writer works out. */
const recordOutcome = (outcome: OutcomeEffect['outcome']): Effect => ({
  do: 'record_outcome',
  operation: 'collection',
  outcome,
});
const emit = (event: EmittedEvent): Effect => ({ do: 'emit', event });
const post = (cause: string): Effect => ({ do: 'post', cause });
const sendRefund: Effect = { do: 'ask_provider', call: 'refund' };
const recordException = (kind: LateSuccessExceptionKind): Effect => ({ do: 'record_exception', kind });
/** The effects of booking a collection: the write, `payment.completed` and the collection's posting. */
const booked: readonly Effect[] = [write, emit('payment.completed'), post('payment:{id}:completed')];

const OPEN: readonly PaymentStatus[] = ['pending', 'processing'];

/** Minor units reserved by refunds in flight. */
export function reservedMinor(state: PaymentState): number {
  return state.pendingRefunds.reduce((sum, refund) => sum + refund.amount, 0);
}

/** The refund id of the automatic refund of a late success after a cancel (one per payment). */
export function lateSuccessRefundId(paymentId: string): string {
  return `ref_${paymentId.slice('pay_'.length)}`;
}

/** Why a cancel is refused in a payment's status (docs/payments.md#states). */
export function notCancellableMessage(status: PaymentStatus): string {
  return `a ${status} payment cannot be cancelled; only pending and processing payments can`;
}

/**
 * Why a cancel of an open payment is refused when its provider cannot withdraw its request
 * (docs/payments.md#cancel-and-refund).
 */
export function notWithdrawableMessage(provider: string): string {
  return (
    `${provider} cannot withdraw a payment request once sent: the customer's prompt stays open, and the payment ` +
    "ends by the customer's answer or at its expiry"
  );
}

/** Why a refund is refused in a payment's status other than `completed` (docs/payments.md#states). */
export function notRefundableMessage(status: PaymentStatus): string {
  return `a ${status} payment cannot be refunded; only completed payments can`;
}

function failedWith(state: PaymentState, code: FailureCode, message: string): PaymentState {
  return { ...state, payment: { ...state.payment, failureCode: code, failureMessage: message } };
}

function cleared(state: PaymentState): PaymentState {
  return { ...state, payment: { ...state.payment, failureCode: null, failureMessage: null } };
}

function newRefund(payment: PaymentSnapshot, id: string, amount: number, reason: string | null, at: string) {
  const refund: RefundRecord = {
    id,
    paymentId: payment.id,
    merchantId: payment.merchantId,
    environment: payment.environment,
    amount,
    currency: payment.currency,
    status: 'pending',
    reason,
    providerReference: null,
    failureMessage: null,
    createdAt: at,
    completedAt: null,
  };
  return refund;
}

function inFlight(state: PaymentState, refundId: string): RefundRecord | undefined {
  return state.pendingRefunds.find((r) => r.id === refundId);
}

function released(state: PaymentState, refundId: string): PaymentState {
  return { ...state, pendingRefunds: state.pendingRefunds.filter((r) => r.id !== refundId) };
}

const refundInFlight = {
  text: 'the refund is in flight',
  test: (state: PaymentState, event: { refundId: string }) =>
    inFlight(state, event.refundId)
      ? undefined
      : { code: 'not_applicable' as const, message: `refund ${event.refundId} is not in flight` },
};

/**
 * Checks a refund request against a completed payment (docs/payments.md#cancel-and-refund): within the refund window
 * counted from its creation, something left to refund, at most that rest, and a provider that refunds (in part).
 */
function refundRequestRefusal(state: PaymentState, event: Of<'refund_accepted'>, at: string): Refusal | undefined {
  const { payment } = state;
  if (inFlight(state, event.refundId)) return undefined; // the same request again: the refund it made
  if (Date.parse(at) - Date.parse(payment.createdAt) > event.refundWindowMs) {
    const days = Math.round(event.refundWindowMs / 86_400_000);
    return {
      code: 'payment_not_refundable',
      message: `payments can be refunded for ${days} days after they were created`,
    };
  }
  const rest = refundableAmount(payment, reservedMinor(state));
  if (rest <= 0) return { code: 'payment_not_refundable', message: 'the payment has been refunded in full' };
  const amount = event.amount ?? rest;
  if (amount > rest)
    return { code: 'amount_exceeds_refundable', message: `amount ${amount} exceeds the refundable rest of ${rest}` };
  return event.capabilities ? refundCapabilityRefusal(payment, amount, event.capabilities) : undefined;
}

/**
 * Why the provider of `payment` cannot take a refund of `amount` minor units with `supports`, or undefined when it
 * can. Also called by the refund activity with the adapter's own capabilities, before anything is written.
 */
export function refundCapabilityRefusal(
  payment: Pick<PaymentSnapshot, 'provider' | 'amount'>,
  amount: number,
  supports: Pick<ProviderCapabilities, 'refund' | 'partialRefund'>,
): Refusal | undefined {
  if (!supports.refund)
    return {
      code: 'payment_not_refundable',
      message: `${payment.provider} payments cannot be refunded through the API`,
    };
  if (!supports.partialRefund && amount !== payment.amount)
    return {
      code: 'payment_not_refundable',
      message: `${payment.provider} payments can only be refunded whole: refund ${payment.amount} (minor units) or nothing`,
    };
  return undefined;
}

function acceptedRefund(state: PaymentState, event: Of<'refund_accepted'>, at: string): PaymentState {
  if (inFlight(state, event.refundId)) return state;
  const amount = event.amount ?? refundableAmount(state.payment, reservedMinor(state));
  const refund = newRefund(state.payment, event.refundId, amount, event.reason, at);
  return { ...state, pendingRefunds: [...state.pendingRefunds, refund] };
}

/** A refund never sent released; the automatic refund of a late success leaves that success untaken again. */
function withdrawn(state: PaymentState, event: Of<'refund_withdrawn'>): PaymentState {
  const after = released(state, event.refundId);
  if (event.refundId !== lateSuccessRefundId(state.payment.id)) return after;
  return { ...after, payment: { ...after.payment, reconciledAt: null } };
}

function refundPaid(state: PaymentState, event: Of<'refund_completed'>): PaymentState {
  const refund = inFlight(state, event.refundId) as RefundRecord;
  const amountRefunded = state.payment.amountRefunded + refund.amount;
  return {
    payment: { ...state.payment, amountRefunded },
    pendingRefunds: released(state, event.refundId).pendingRefunds,
  };
}

const restLeft = (state: PaymentState, event: Of<'refund_completed'>) =>
  state.payment.amountRefunded + (inFlight(state, event.refundId)?.amount ?? 0) < state.payment.amount;

function openRows(from: PaymentStatus): PaymentRow[] {
  const rows: PaymentRow[] = [
    row({
      from,
      event: 'provider_success',
      to: 'completed',
      effects: [write, emit('payment.completed'), post('payment:{id}:completed'), recordOutcome('success')],
      next: cleared,
    }),
    row({
      from,
      event: 'provider_unanswered',
      to: from,
      effects: [write],
      next: (s) => s,
    }),
    row({
      from,
      event: from === 'pending' ? 'provider_unknown' : 'provider_processing',
      when: {
        text: "the provider's last answer was unknown: it answered again",
        test: (s) => (s.payment.pendingReason === 'checking_with_provider' ? undefined : notApplicable),
      },
      to: from,
      effects: [write],
      next: (s) => s,
    }),
    row({
      from,
      event: 'provider_decline',
      to: 'failed',
      effects: [write, emit('payment.failed'), recordOutcome('failure')],
      next: (s, e) => failedWith(s, e.failureCode, e.message),
    }),
    row({
      from,
      event: 'provider_error',
      to: 'failed',
      effects: [write, emit('payment.failed'), recordOutcome('failure')],
      next: (s, e) => failedWith(s, 'provider_error', e.message),
    }),
    row({
      from,
      event: 'provider_cancelled',
      to: 'cancelled',
      effects: [write, emit('payment.cancelled'), recordOutcome('failure')],
      next: cleared,
    }),
    row({
      from,
      event: 'expiry',
      to: 'failed',
      effects: [write, emit('payment.failed'), recordOutcome('failure')],
      next: (s) => failedWith(s, 'expired', 'The customer did not complete the payment before it expired'),
    }),
    row({
      from,
      event: 'cancel',
      when: {
        text: 'the provider can withdraw its request',
        test: (s, e) =>
          e.capabilities?.cancel === false
            ? { code: 'payment_not_cancellable', message: notWithdrawableMessage(s.payment.provider) }
            : undefined,
      },
      to: 'cancelled',
      effects: [write, emit('payment.cancelled')],
      next: (s, e) => ({ ...s, payment: { ...cleared(s).payment, cancellationReason: e.reason } }),
    }),
  ];
  return rows;
}

function refundRows(from: PaymentStatus): PaymentRow[] {
  const settled = from === 'completed' ? ' (some left to refund)' : '';
  const rows: PaymentRow[] = [
    row({
      from,
      event: 'refund_completed',
      when: {
        text: `the refund is in flight${settled}`,
        test: (s, e) =>
          refundInFlight.test(s, e) ?? (from === 'completed' && !restLeft(s, e) ? notApplicable : undefined),
      },
      to: from,
      effects: [write, ...refundEffects('refund_completed')],
      next: refundPaid,
    }),
  ];
  if (from === 'completed')
    rows.push(
      row({
        from,
        event: 'refund_completed',
        when: {
          text: 'the refund is in flight (nothing left to refund)',
          test: (s, e) => refundInFlight.test(s, e) ?? (restLeft(s, e) ? notApplicable : undefined),
        },
        to: 'refunded',
        effects: [write, ...refundEffects('refund_completed')],
        next: refundPaid,
      }),
    );
  rows.push(
    row({
      from,
      event: 'refund_refused',
      when: refundInFlight,
      to: from,
      effects: refundEffects('refund_refused'),
      next: (s, e) => released(s, e.refundId),
    }),
    row({
      from,
      event: 'refund_unknown',
      when: refundInFlight,
      to: from,
      effects: refundEffects('refund_unknown'),
      next: (s) => s,
    }),
    row({
      from,
      event: 'refund_withdrawn',
      when: refundInFlight,
      to: from,
      effects: refundEffects('refund_withdrawn'),
      next: withdrawn,
    }),
  );
  return rows;
}

const notApplicable: Refusal = ANOTHER_ROW;

/** A row, typed by its event. */
function row<T extends PaymentEventType>(r: PaymentRow<T>): PaymentRow {
  return r as unknown as PaymentRow;
}

/** A late success is booked as the payment's true state: `completed`, reconciled at `at`. */
function lateBooked(state: PaymentState, _event: Of<'late_success'>, at: string): PaymentState {
  return { ...state, payment: { ...cleared(state).payment, reconciledAt: at } };
}

/**
 * A cancelled payment's late success taken already: reconciled (its automatic refund was sent), refunded, or its refund
 * in flight.
 */
function lateRefundRefusal(state: PaymentState, _event: Of<'late_success'>): Refusal | undefined {
  const { payment } = state;
  const taken = payment.reconciledAt != null || payment.amountRefunded >= payment.amount;
  return taken || inFlight(state, lateSuccessRefundId(payment.id)) ? notApplicable : undefined;
}

/** Why the provider cannot refund the whole payment, when the event says so (unknown capabilities: it is tried). */
function wholeRefundRefusal(state: PaymentState, event: Of<'late_success'>): Refusal | undefined {
  return event.capabilities
    ? refundCapabilityRefusal(state.payment, state.payment.amount, event.capabilities)
    : undefined;
}

const reconcilable = (p: PaymentSnapshot) => p.failureCode === 'expired' || p.failureCode === 'provider_error';
const sinceFailedMs = (p: PaymentSnapshot, at: string) => Date.parse(at) - Date.parse(p.updatedAt);

/** The statuses whose arrival a checkout session hears of: an attempt's final outcome (docs/checkout.md#states). */
const CHECKOUT_OUTCOMES: readonly PaymentStatus[] = ['completed', 'failed', 'cancelled'];

/**
 * Every row that brings a payment into an outcome its checkout session hears of, from another status, declares
 * `tell_checkout` last: by construction, so no such row is ever without it.
 */
function withCheckoutTell(rows: readonly PaymentRow[]): readonly PaymentRow[] {
  return rows.map((r) =>
    r.from !== r.to && CHECKOUT_OUTCOMES.includes(r.to)
      ? { ...r, effects: [...r.effects, { do: 'tell_checkout' }] }
      : r,
  );
}

/** The table (docs/payments.md#states): the only transitions a payment has. */
export const PAYMENT_TABLE: readonly PaymentRow[] = withCheckoutTell([
  row({
    from: 'pending',
    event: 'initiation_accepted',
    to: 'pending',
    effects: [write],
    next: (s, e) => ({
      ...s,
      payment: { ...s.payment, providerReference: e.providerReference, nextAction: e.nextAction },
    }),
  }),
  row({
    from: 'pending',
    event: 'initiation_refused',
    to: 'failed',
    effects: [write, emit('payment.failed'), recordOutcome('failure')],
    next: (s, e) => failedWith(s, e.failureCode, e.message),
  }),
  row({
    from: 'pending',
    event: 'initiation_unanswered',
    to: 'failed',
    effects: [write, emit('payment.failed'), recordOutcome('failure')],
    next: (s, e) => failedWith(s, 'provider_error', e.message),
  }),
  row({ from: 'pending', event: 'provider_processing', to: 'processing', effects: [write], next: cleared }),
  ...openRows('pending'),
  ...openRows('processing'),
  row({
    from: 'completed',
    event: 'refund_accepted',
    when: {
      text: 'within the refund window, at most the refundable rest, a provider that refunds (in part)',
      test: refundRequestRefusal,
    },
    to: 'completed',
    effects: refundEffects('refund_accepted'),
    next: acceptedRefund,
  }),
  ...refundRows('completed'),
  row({
    from: 'failed',
    event: 'late_success',
    when: {
      text: 'failed by expiry or provider error, within the reconciliation window',
      test: (s, e, at) =>
        reconcilable(s.payment) && sinceFailedMs(s.payment, at) <= e.reconciliationWindowMs ? undefined : notApplicable,
    },
    to: 'completed',
    effects: [write, emit('payment.completed'), post('payment:{id}:completed')],
    next: (s, _e, at) => ({ ...s, payment: { ...cleared(s).payment, reconciledAt: at } }),
  }),
  row({
    from: 'failed',
    event: 'late_success',
    when: {
      text: 'failed by expiry or provider error, after the reconciliation window',
      test: (s, e, at) =>
        reconcilable(s.payment) && sinceFailedMs(s.payment, at) > e.reconciliationWindowMs ? undefined : notApplicable,
    },
    to: 'completed',
    // The provider did collect: booked as any completion, counted, and shown to an operator.
    effects: [...booked, { do: 'count_late_answer' }, recordException('late_success_after_window')],
    next: lateBooked,
  }),
  row({
    from: 'failed',
    event: 'late_success',
    when: {
      text: 'failed otherwise (declined, refused): the provider changed its word',
      test: (s) => (reconcilable(s.payment) ? notApplicable : undefined),
    },
    to: 'completed',
    effects: [...booked, recordException('late_success_after_decline')],
    next: lateBooked,
  }),
  row({
    from: 'cancelled',
    event: 'late_success',
    when: {
      text: 'not refunded yet, a provider that refunds the whole payment: a full refund, reason `late_success_after_cancel`',
      test: (s, e) => lateRefundRefusal(s, e) ?? (wholeRefundRefusal(s, e) ? notApplicable : undefined),
    },
    to: 'cancelled',
    // The provider did collect: the collection is posted with the reservation that pays it back.
    effects: [sendRefund, post('payment:{id}:completed'), post('refund:{id}:reserved')],
    // `reconciledAt` marks the success taken: a second report of it, once its refund settled, changes nothing.
    next: (s, _e, at) => {
      const refund = newRefund(s.payment, lateSuccessRefundId(s.payment.id), s.payment.amount, LATE_REFUND_REASON, at);
      return { payment: { ...s.payment, reconciledAt: at }, pendingRefunds: [...s.pendingRefunds, refund] };
    },
  }),
  row({
    from: 'cancelled',
    event: 'late_success',
    when: {
      text: 'not refunded yet, a provider that cannot refund the whole payment: booked as collected',
      test: (s, e) => lateRefundRefusal(s, e) ?? (wholeRefundRefusal(s, e) ? undefined : notApplicable),
    },
    to: 'completed',
    effects: [...booked, recordException('late_success_unrefundable')],
    next: lateBooked,
  }),
  ...refundRows('cancelled'),
  row({
    from: 'cancelled',
    event: 'late_refund_refused',
    when: {
      text: 'the automatic refund of its late success was refused and nothing was refunded: booked as collected',
      test: (s) =>
        s.payment.reconciledAt != null &&
        s.payment.amountRefunded === 0 &&
        !inFlight(s, lateSuccessRefundId(s.payment.id))
          ? undefined
          : notApplicable,
    },
    to: 'completed',
    // The collection was posted with the refund's reservation, which the refusal released: the money is the merchant's.
    effects: [write, emit('payment.completed'), recordException('late_success_unrefundable')],
    next: (s) => cleared(s),
  }),
]);

/** The reason of the automatic refund of a success that came after the merchant's cancel. */
export const LATE_REFUND_REASON = 'late_success_after_cancel';

/** The result of {@link apply}: the state after the row, its effects (causes filled in) and the refund concerned. */
export type Applied =
  | { ok: true; state: PaymentState; effects: Effect[]; refund?: RefundRecord; row: PaymentRow }
  | { ok: false; refusal: Refusal };

/** A row {@link apply} took: the state after it, its effects and the refund concerned. */
export type Taken = Extract<Applied, { ok: true }>;

/**
 * A row taken, as it is carried from where the table was applied to where its effects are performed: the state after
 * it, its effects (causes filled in) and the refund concerned. Plain data (no functions), so it can be an activity's
 * result kept in a workflow's history (docs/payments.md#workflow: the create decides once).
 */
export type Decision = Pick<Taken, 'state' | 'effects' | 'refund'>;

/** `taken` as a {@link Decision}: without its row. */
export function decisionOf(taken: Taken): Decision {
  return { state: taken.state, effects: taken.effects, ...(taken.refund ? { refund: taken.refund } : {}) };
}

/** Why `event` has no row in `status`. */
function noRow(status: PaymentStatus, event: PaymentEvent): Refusal {
  if (event.type === 'cancel') return { code: 'payment_not_cancellable', message: notCancellableMessage(status) };
  if (event.type === 'refund_accepted')
    return { code: 'payment_not_refundable', message: notRefundableMessage(status) };
  return { code: 'not_applicable', message: `a ${status} payment takes no ${event.type}` };
}

/**
 * How long the provider is given for a word the workflow waits on before it decides without it, in milliseconds
 * (3 min): a question is retried for 2 minutes (the create's initiation, and at `expires_at` the cancel or status
 * question), and its last try (up to 15 s after a wait of up to 20 s) and the write of the outcome fit in the third.
 */
export const PROVIDER_WORD_WITHIN_MS = 180_000;

/**
 * Why `payment` (its status set by the row `event` took) waits (docs/payments.md#decision-time): null once final;
 * `checking_with_provider` after a question the provider left unanswered; `awaiting_provider` while it settles;
 * `provider_unreachable` until it acknowledged the request (no provider reference yet); then the customer's step,
 * `awaiting_callback` for a bank transfer, whose bank reports the transfer, else `awaiting_customer`.
 */
export function pendingReasonOf(payment: PaymentSnapshot, event?: PaymentEvent): PendingReason | null {
  if (!isOpen(payment.status)) return null;
  if (event?.type === 'provider_unanswered') return 'checking_with_provider';
  if (payment.status === 'processing') return 'awaiting_provider';
  if (payment.providerReference === null) return 'provider_unreachable';
  return payment.kind === 'bank_transfer' ? 'awaiting_callback' : 'awaiting_customer';
}

/**
 * The latest time a payment waiting for `reason` will be final, decided at `at` (docs/payments.md#decision-time), ISO
 * 8601 UTC: null for none; otherwise its expiry (or `at` when that has passed) plus the provider's last word
 * ({@link PROVIDER_WORD_WITHIN_MS}), and for `checking_with_provider` the reconciliation window
 * (`reconciliationWindowMs`) after that, in which a success the provider reports late still completes it. For
 * `provider_unreachable` the expiry counts as no earlier than initiation's give-up, {@link PROVIDER_WORD_WITHIN_MS}
 * after the creation: a provider that takes the request by then is waited for as any other.
 */
export function decisionExpectedBy(
  payment: Pick<PaymentSnapshot, 'createdAt' | 'expiresAt'>,
  reason: PendingReason | null,
  at: string,
  reconciliationWindowMs = 0,
): string | null {
  if (reason === null) return null;
  const givenUp = reason === 'provider_unreachable' ? Date.parse(payment.createdAt) + PROVIDER_WORD_WITHIN_MS : 0;
  const expiry = Math.max(Date.parse(payment.expiresAt), Date.parse(at), givenUp) + PROVIDER_WORD_WITHIN_MS;
  return new Date(expiry + (reason === 'checking_with_provider' ? reconciliationWindowMs : 0)).toISOString();
}

/**
 * `payment` with why it waits and until when, as a row taking `event` at `at` leaves it (a new one: no event, `at` its
 * creation).
 */
export function withDecisionTime(
  payment: PaymentSnapshot,
  event: PaymentEvent | undefined,
  at: string,
): PaymentSnapshot {
  const reason = pendingReasonOf(payment, event);
  const windowMs = event?.type === 'provider_unanswered' ? event.reconciliationWindowMs : 0;
  return { ...payment, pendingReason: reason, decisionExpectedBy: decisionExpectedBy(payment, reason, at, windowMs) };
}

/**
 * Applies `event` at `at` (ISO 8601) to `state` by the table: the first row of (status, event) whose condition holds
 * gives the next state; a row that writes the payment gives it the next version and `updatedAt: at`, and a status
 * change drops the customer's next step once the payment leaves `pending` (docs/payments.md#payment-record); it sets
 * why the payment waits and until when, null once final ({@link withDecisionTime}).
 * @returns the state, the effects and the refund concerned; or the refusal (of the first row's condition, or of no
 *   row: `payment_not_cancellable`, `payment_not_refundable`, `not_applicable`), which changes nothing
 */
export function apply(state: PaymentState, event: PaymentEvent, at: string): Applied {
  const chosen = chooseRow(PAYMENT_TABLE, state.payment.status, state, event, at, noRow);
  if (!chosen.ok) return chosen;
  const r = chosen.row;
  const after = withReceipt(r.next(state, event, at), event);
  const changed = r.to !== state.payment.status;
  const writes = r.effects.some((e) => e.do === 'write');
  const payment: PaymentSnapshot = writes
    ? withDecisionTime(
        {
          ...after.payment,
          status: r.to,
          nextAction: changed && r.to !== 'pending' ? null : after.payment.nextAction,
          updatedAt: r.keepsUpdatedAt ? after.payment.updatedAt : at,
          version: (state.payment.version ?? 0) + 1,
        },
        event,
        at,
      )
    : after.payment;
  const refundId = 'refundId' in event ? event.refundId : lateSuccessRefundId(payment.id);
  const concernsRefund = 'refundId' in event || event.type === 'late_success';
  const refund = concernsRefund ? refundAfter(state, { ...after, payment }, event, refundId, at) : undefined;
  const reason = 'reason' in event ? event.reason : undefined;
  const effects = r.effects.map((e): Effect => {
    if (e.do === 'post') return { do: 'post', cause: e.cause.replace('{id}', causeId(e.cause, payment, refundId)) };
    if (e.do === 'record_outcome' && e.outcome === 'failure' && reason) return { ...e, reason };
    return e;
  });
  return { ok: true, state: { ...after, payment }, effects, refund, row: r };
}

/**
 * `state` with the receipt number a provider's success names kept on the payment (docs/payments.md#payment-record
 * `provider_receipt_number`), whatever row takes the success; the first one kept stays.
 */
function withReceipt(state: PaymentState, event: PaymentEvent): PaymentState {
  if (event.type !== 'provider_success' && event.type !== 'late_success') return state;
  if (!event.receiptNumber || state.payment.providerReceiptNumber) return state;
  return { ...state, payment: { ...state.payment, providerReceiptNumber: event.receiptNumber } };
}

function causeId(cause: string, payment: PaymentSnapshot, refundId: string): string {
  return cause.startsWith('refund:') ? refundId : payment.id;
}

/** The refund `event` concerns, as it stands after it (final outcomes carry their provider's word). */
function refundAfter(
  before: PaymentState,
  after: PaymentState,
  event: PaymentEvent,
  refundId: string,
  at: string,
): RefundRecord | undefined {
  const held = inFlight(before, refundId) ?? inFlight(after, refundId);
  if (!held) return undefined;
  if (event.type === 'refund_completed')
    return { ...held, status: 'completed', providerReference: event.providerReference, completedAt: at };
  if (event.type === 'refund_refused')
    return { ...held, status: 'failed', failureMessage: event.message, completedAt: at };
  return held;
}

/**
 * The state a workflow starts from: a payment with no refund in flight; one that does not say why it waits yet (a new
 * payment) gets it from its creation ({@link withDecisionTime}).
 */
export function initialPaymentState(payment: PaymentSnapshot): PaymentState {
  const decided = payment.pendingReason !== undefined;
  return { payment: decided ? payment : withDecisionTime(payment, undefined, payment.createdAt), pendingRefunds: [] };
}

/**
 * True once the workflow may end (docs/payments.md#workflow): the payment is no longer open and no refund is in
 * flight. Cancel, refund and late callbacks re-open it later from the read model.
 */
export function isFinal(state: PaymentState): boolean {
  return !isOpen(state.payment.status) && state.pendingRefunds.length === 0;
}

/** The event of a provider's answer `outcome` about `payment` (a success once it closed is a late one). */
export function answerEvent(
  payment: Pick<PaymentSnapshot, 'status'>,
  outcome: ProviderOutcome,
  reconciliationWindowMs: number,
  capabilities?: Pick<ProviderCapabilities, 'refund' | 'partialRefund'>,
): PaymentEvent {
  switch (outcome.status) {
    case 'completed': {
      const receipt = outcome.receiptNumber ? { receiptNumber: outcome.receiptNumber } : {};
      if (OPEN.includes(payment.status)) return { type: 'provider_success', ...receipt };
      return { type: 'late_success', reconciliationWindowMs, ...receipt, ...(capabilities ? { capabilities } : {}) };
    }
    case 'processing':
      return { type: 'provider_processing' };
    case 'cancelled':
      return { type: 'provider_cancelled' };
    case 'failed': {
      const reason = outcome.reason ? { reason: outcome.reason } : {};
      return outcome.failureCode === 'provider_error'
        ? { type: 'provider_error', message: outcome.failureMessage, ...reason }
        : { type: 'provider_decline', failureCode: outcome.failureCode, message: outcome.failureMessage, ...reason };
    }
    default:
      return { type: 'provider_unknown' };
  }
}

/** The provider's word on a payment's initiation: its answer (reference, next step, current word) or its refusal. */
export type InitiationWord =
  { answer: ProviderAnswer } | { refused: { failureCode: FailureCode; message: string; reason?: string } };

/**
 * The events of the provider's word on initiation, in order (docs/payments.md#workflow): its refusal; or its
 * acceptance, then the answer it gave at once (which no row takes while the provider still says `pending`). The
 * payment is open then, so no answer is a late one and no reconciliation window applies.
 */
export function initiationEvents(word: InitiationWord): PaymentEvent[] {
  if ('refused' in word) return [{ type: 'initiation_refused', ...word.refused }];
  const { providerReference, nextAction, outcome } = word.answer;
  return [
    { type: 'initiation_accepted', providerReference, nextAction: nextAction ?? null },
    answerEvent({ status: 'pending' }, outcome, 0),
  ];
}

/** The rows {@link apply} takes for `events` in turn from `state` at `at`; an event no row takes is skipped. */
export function applyInTurn(state: PaymentState, events: readonly PaymentEvent[], at: string): Taken[] {
  const taken: Taken[] = [];
  let current = state;
  for (const event of events) {
    const applied = apply(current, event, at);
    if (!applied.ok) continue;
    taken.push(applied);
    current = applied.state;
  }
  return taken;
}

/**
 * The one write that records rows taken one after another (docs/payments.md#workflow): the state after the last, its
 * version past them all, with the last row's event and postings. Only when each row before the last asks for its
 * write alone and the last for nothing but its write, its event and its postings (and a checkout tell, which the run
 * carries out after the write); undefined otherwise (each row's effects are then carried out in turn).
 */
export function oneWriteOf(taken: readonly Taken[]): { payment: PaymentSnapshot; orders: WriteOrders } | undefined {
  const last = taken[taken.length - 1];
  if (!last) return undefined;
  const writesAlone = (effects: readonly Effect[]) => effects.length === 1 && effects[0]?.do === 'write';
  // What the one write carries; `tell_checkout` is the run's to carry out after it.
  const carried = (effect: Effect) =>
    effect.do === 'write' ||
    effect.do === 'emit' ||
    effect.do === 'post' ||
    effect.do === 'record_outcome' ||
    effect.do === 'tell_checkout';
  if (!taken.slice(0, -1).every((t) => writesAlone(t.effects))) return undefined;
  if (!last.effects.some((e) => e.do === 'write') || !last.effects.every(carried)) return undefined;
  return { payment: last.state.payment, orders: writeOrdersOf(last.effects) };
}

/**
 * The event at `expires_at` given the provider's last word (after it was asked to cancel where it can): a success or a
 * decline found then wins; anything else (no answer, still waiting, cancelled at our request) is the expiry
 * (docs/payments.md#states).
 */
export function expiryEvent(lastWord: ProviderOutcome | undefined): PaymentEvent {
  if (lastWord?.status === 'completed' || lastWord?.status === 'failed')
    return answerEvent({ status: 'pending' }, lastWord, 0);
  return { type: 'expiry' };
}

/**
 * The event of the merchant's cancel once the provider was asked (`unsupported`: it cannot withdraw its request, and
 * the table refuses the cancel, docs/payments.md#cancel-and-refund). A success or a failure it already reached wins:
 * then the cancel is refused (docs/payments.md#states).
 */
export function cancelEvent(providerWord: ProviderOutcome | 'unsupported', reason: string | null): PaymentEvent {
  if (providerWord === 'unsupported') return { type: 'cancel', reason, capabilities: { cancel: false } };
  if (providerWord.status === 'completed' || providerWord.status === 'failed')
    return answerEvent({ status: 'pending' }, providerWord, 0);
  return { type: 'cancel', reason };
}

/** True when a provider answer changes an open payment in `status` (a poll that changes nothing is retried). */
export function answerChangesPayment(status: PaymentStatus, outcome: ProviderOutcome): boolean {
  const event = answerEvent({ status }, outcome, 0);
  return PAYMENT_TABLE.some((r) => r.from === status && r.event === event.type && !r.when);
}

/**
 * Why a create is refused (400 `validation_error`) when PostgreSQL refused the payment's data: names the SQLSTATE and
 * its condition when known, never the data (docs/api.md#errors).
 */
export function notStoredMessage(refused?: { sqlState?: string; condition?: string }): string {
  const code = refused?.sqlState
    ? ` (SQLSTATE ${refused.sqlState}${refused.condition ? ` ${refused.condition}` : ''})`
    : '';
  return `the payment holds a value that cannot be stored${code}; nothing was created`;
}

/**
 * The create's check of `expires_in` (docs/payments.md#sandbox-scenarios): at most the method's own expiry.
 * @returns the field problem, or undefined when it is allowed
 */
export function expiresInProblem(
  expiresInSeconds: number | undefined,
  longestSeconds: number,
  method: string,
): { field: 'expires_in'; message: string } | undefined {
  if (expiresInSeconds === undefined || expiresInSeconds <= longestSeconds) return undefined;
  return { field: 'expires_in', message: `expires_in must be at most ${longestSeconds} seconds for ${method}` };
}

function describeEffect(effect: Effect): string {
  switch (effect.do) {
    case 'write':
    case 'emit':
    case 'post':
      return describeCommonEffect(effect);
    case 'write_refund':
    case 'ask_provider':
    case 'ask_provider_later':
    case 'record_outcome':
      return describeRefundEffect(effect);
    case 'count_late_answer':
      return 'count late answer';
    case 'record_exception':
      return `reconciliation exception \`${effect.kind}\``;
    case 'tell_checkout':
      return 'tell its checkout session';
  }
}

/** The table as Markdown, as docs/payments.md#states shows it (a test keeps the two equal). */
export function stateTableMarkdown(): string {
  return tableMarkdown(PAYMENT_TABLE, describeEffect, 'release the reservation');
}

/**
 * A provider's answer about a refund in flight: final, still pending, or a refund the read model already had final
 * (a re-opened run met a refund of an earlier one; `already_decided` is that *already final*).
 */
export type RefundAnswerOutcome =
  | { status: 'succeeded'; refundReference: string }
  | { status: 'failed'; failureMessage: string }
  | { status: 'pending' }
  | { status: 'already_decided'; refund: RefundRecord };

/** The event of the provider's answer about refund `refundId`. */
export function refundAnswerEvent(refundId: string, answer: RefundAnswerOutcome): PaymentEvent {
  switch (answer.status) {
    case 'succeeded':
      return { type: 'refund_completed', refundId, providerReference: answer.refundReference };
    case 'failed':
      return { type: 'refund_refused', refundId, message: answer.failureMessage };
    case 'pending':
      return { type: 'refund_unknown', refundId };
    case 'already_decided':
      return { type: 'refund_withdrawn', refundId };
  }
}

/**
 * What the workflow hands a write activity from a row's effects: the event to write with it, and the ledger causes
 * to post in its transaction (docs/payments.md#events).
 */
export interface WriteOrders {
  emit: EmittedEvent | null;
  post: string[];
  /** A reconciliation exception to record with the write (only present when the row records one). */
  exception?: LateSuccessExceptionKind;
  /**
   * The decided attempt to record with the write (only present when the row records one,
   * docs/availability.md#classification); the run adds the attempt's facts before it hands the orders on.
   */
  outcome?: OutcomeOrder;
}

/** A row's `record_outcome` effect as a write carries it: with the attempt's facts once the run added them. */
export type OutcomeOrder = Omit<OutcomeEffect, 'do'> & { facts?: AttemptFacts };

/** `effect` as the write carries it: without its `do`. */
function outcomeOrderOf(effect: OutcomeEffect): OutcomeOrder {
  const { do: _do, ...order } = effect;
  return order;
}

/** The write orders of `effects` (causes as {@link apply} filled them in). */
export function writeOrdersOf(effects: readonly Effect[]): WriteOrders {
  const emitted = effects.find((e) => e.do === 'emit');
  const exception = effects.find((e) => e.do === 'record_exception');
  const outcome = effects.find((e) => e.do === 'record_outcome');
  return {
    emit: emitted?.do === 'emit' ? emitted.event : null,
    post: effects.flatMap((e) => (e.do === 'post' ? [e.cause] : [])),
    ...(exception?.do === 'record_exception' ? { exception: exception.kind } : {}),
    ...(outcome?.do === 'record_outcome' ? { outcome: outcomeOrderOf(outcome) } : {}),
  };
}
