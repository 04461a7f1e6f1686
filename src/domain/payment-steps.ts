/**
 * What a payment does with each thing that happens to it: a pure reducer over the payment and its
 * refunds in flight (docs/payments.md#states, docs/payments.md#cancel-and-refund), which the payment workflow
 * interprets (it runs the effects as
 * activities and keeps the state). Every decision about money is here, in one place, tested
 * without Temporal: provider answers (with reconciliation of late ones), expiry, cancel, and the
 * refunds' reservations and answers. Pure: safe inside the workflow sandbox.
 */
import {
  RECONCILABLE_FAILURES,
  isOpen,
  statusChangeFor,
  withStatusChange,
  type PaymentStatus,
  type ProviderOutcome,
} from './payment';
import type { PaymentSnapshot } from './payment';
import { checkRefund, type RefundRecord } from './refund';

/** The payment as its workflow holds it, with the refunds accepted and not yet settled. */
export interface PaymentState {
  payment: PaymentSnapshot;
  /**
   * Refunds whose provider answer is not final yet; their amounts stay reserved (docs/payments.md#cancel-and-refund).
   */
  pendingRefunds: RefundRecord[];
}

/** Where a provider answer came from (shown in the payment's timeline and logs). */
export type AnswerSource = 'initiation' | 'callback' | 'poll' | 'expiry' | 'cancel' | 'reconciliation';

/** What the workflow does after a step. */
export type PaymentEffect =
  /** Nothing changed. */
  | { kind: 'none' }
  /** Write the payment's new state (and the event its status emits, docs/payments.md#events). */
  | { kind: 'record' }
  /** A success arrived after the merchant's cancel: refund it in full (docs/payments.md#states). */
  | { kind: 'refund_late_success'; refund: RefundRecord }
  /** A provider answer too late to act on: write it on the payment and count it (docs/payments.md#states). */
  | { kind: 'record_late_answer' };

/** A step's result: the state after it and the effect to run. */
export interface PaymentStep {
  state: PaymentState;
  effect: PaymentEffect;
}

/** The state a workflow starts from: a payment with no refund in flight. */
export function initialPaymentState(payment: PaymentSnapshot): PaymentState {
  return { payment, pendingRefunds: [] };
}

/** Minor units reserved by refunds in flight. */
export function reservedMinor(state: PaymentState): number {
  return state.pendingRefunds.reduce((sum, refund) => sum + refund.amount, 0);
}

/** The refund id of the automatic refund of a late success after a cancel (one per payment). */
export function lateSuccessRefundId(paymentId: string): string {
  return `ref_${paymentId.slice('pay_'.length)}`;
}

/**
 * A provider's answer `outcome` at `at` (ISO 8601). While the payment is open: the status change of
 * docs/payments.md#states (`processing` once, final answers close it; an answer that goes back, like `processing` after
 * `completed`, changes nothing). Once closed, only a success matters: it moves a payment that failed
 * by expiry or provider error to `completed` within `reconciliationWindowMs` of its closing
 * (`reconciledAt` set, a new `payment.completed`), is written down as a late answer outside the
 * window, and is refunded in full after the merchant's cancel (docs/payments.md#states).
 */
export function providerAnswerStep(
  state: PaymentState,
  outcome: ProviderOutcome,
  at: string,
  reconciliationWindowMs: number,
): PaymentStep {
  const { payment } = state;
  if (isOpen(payment.status)) {
    const change = statusChangeFor(payment.status, outcome);
    if (!change) return { state, effect: { kind: 'none' } };
    return { state: { ...state, payment: withStatusChange(payment, change, at) }, effect: { kind: 'record' } };
  }
  if (outcome.status !== 'completed') return { state, effect: { kind: 'none' } };
  if (payment.status === 'cancelled') {
    if (
      payment.amountRefunded >= payment.amount ||
      state.pendingRefunds.some((r) => r.id === lateSuccessRefundId(payment.id))
    ) {
      return { state, effect: { kind: 'none' } };
    }
    const refund = newRefund(payment, lateSuccessRefundId(payment.id), payment.amount, 'late_success_after_cancel', at);
    return {
      state: { ...state, pendingRefunds: [...state.pendingRefunds, refund] },
      effect: { kind: 'refund_late_success', refund },
    };
  }
  const reconcilable =
    payment.status === 'failed' && payment.failureCode !== null && RECONCILABLE_FAILURES.includes(payment.failureCode);
  if (!reconcilable) return { state, effect: { kind: 'none' } };
  if (Date.parse(at) - Date.parse(payment.updatedAt) > reconciliationWindowMs) {
    if (payment.lateAnswer) return { state, effect: { kind: 'none' } };
    const late = {
      ...payment,
      lateAnswer: { status: outcome.status, receivedAt: at },
      version: (payment.version ?? 0) + 1,
    };
    return { state: { ...state, payment: late }, effect: { kind: 'record_late_answer' } };
  }
  const reconciled = { ...withStatusChange(payment, { status: 'completed' }, at), reconciledAt: at };
  return { state: { ...state, payment: reconciled }, effect: { kind: 'record' } };
}

/**
 * `expires_at` has passed and the provider's last word (after asking it to cancel where it can)
 * is `outcome`: a success or a decline found now wins, otherwise (no answer, still waiting, or
 * cancelled at our request) the payment fails with `expired` (docs/payments.md#states).
 */
export function expiryStep(state: PaymentState, outcome: ProviderOutcome | undefined, at: string): PaymentStep {
  if (!isOpen(state.payment.status)) return { state, effect: { kind: 'none' } };
  const change = outcome ? statusChangeFor(state.payment.status, outcome) : undefined;
  if (change && (change.status === 'completed' || change.status === 'failed')) {
    return { state: { ...state, payment: withStatusChange(state.payment, change, at) }, effect: { kind: 'record' } };
  }
  const expired = withStatusChange(
    state.payment,
    {
      status: 'failed',
      failure: { code: 'expired', message: 'The customer did not complete the payment before it expired' },
    },
    at,
  );
  return { state: { ...state, payment: expired }, effect: { kind: 'record' } };
}

/**
 * The merchant's cancel, after the provider was asked (`providerOutcome`) or could not be
 * (`unsupported`: the provider cannot withdraw its request, so we stop waiting and refund a
 * success that comes later, docs/payments.md#states). The provider's word decides a race with a success: then the
 * payment completes and the cancel is refused.
 * @returns the step, and whether the payment ended cancelled
 */
export function cancelStep(
  state: PaymentState,
  providerOutcome: ProviderOutcome | 'unsupported',
  reason: string | null,
  at: string,
): PaymentStep & { cancelled: boolean } {
  if (!isOpen(state.payment.status)) return { state, effect: { kind: 'none' }, cancelled: false };
  const outcome: ProviderOutcome =
    providerOutcome === 'unsupported' || !isFinalish(providerOutcome) ? { status: 'cancelled' } : providerOutcome;
  const change = statusChangeFor(state.payment.status, outcome);
  if (!change) return { state, effect: { kind: 'none' }, cancelled: false };
  let payment = withStatusChange(state.payment, change, at);
  if (change.status === 'cancelled') payment = { ...payment, cancellationReason: reason };
  return { state: { ...state, payment }, effect: { kind: 'record' }, cancelled: change.status === 'cancelled' };
}

function isFinalish(outcome: ProviderOutcome): boolean {
  return outcome.status === 'completed' || outcome.status === 'failed' || outcome.status === 'cancelled';
}

/** Why a cancel is refused in a payment's status (docs/payments.md#states). */
export function notCancellableMessage(status: PaymentStatus): string {
  return `a ${status} payment cannot be cancelled; only pending and processing payments can`;
}

/**
 * Why a create is refused (400 `validation_error`) when PostgreSQL refused the payment's data: names
 * the SQLSTATE and its condition when known, never the data (docs/api.md#errors).
 */
export function notStoredMessage(refused?: { sqlState?: string; condition?: string }): string {
  const code = refused?.sqlState
    ? ` (SQLSTATE ${refused.sqlState}${refused.condition ? ` ${refused.condition}` : ''})`
    : '';
  return `the payment holds a value that cannot be stored${code}; nothing was created`;
}

function newRefund(
  payment: PaymentSnapshot,
  id: string,
  amount: number,
  reason: string | null,
  at: string,
): RefundRecord {
  return {
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
}

/**
 * Accepts a refund request and reserves its amount at once (docs/payments.md#states,
 * docs/payments.md#cancel-and-refund), against what is refunded
 * and what refunds in flight hold, so that many requests decided together can never exceed the
 * rest and nothing beyond it is sent to a provider.
 * @param requested minor units, or undefined for the whole refundable rest
 * @throws DomainError `payment_not_refundable` (409) or `amount_exceeds_refundable` (400)
 */
export function acceptRefund(
  state: PaymentState,
  request: { refundId: string; amount?: number; reason?: string | null },
  at: string,
): { state: PaymentState; refund: RefundRecord } {
  const existing = state.pendingRefunds.find((r) => r.id === request.refundId);
  if (existing) return { state, refund: existing };
  const amount = checkRefund(state.payment, reservedMinor(state), request.amount);
  const refund = newRefund(state.payment, request.refundId, amount, request.reason ?? null, at);
  return { state: { ...state, pendingRefunds: [...state.pendingRefunds, refund] }, refund };
}

/**
 * Drops the refund `refundId` from those in flight without a trace (it was never sent): its reservation is released.
 */
export function withdrawRefund(state: PaymentState, refundId: string): PaymentState {
  return { ...state, pendingRefunds: state.pendingRefunds.filter((r) => r.id !== refundId) };
}

/**
 * A provider's answer about a refund in flight: final, still pending, or a refund the read model already had settled.
 */
export type RefundAnswerOutcome =
  | { status: 'succeeded'; refundReference: string }
  | { status: 'failed'; failureMessage: string }
  | { status: 'pending' }
  /** The read model held this refund already settled (a re-opened run met a refund of an earlier one). */
  | { status: 'already_settled'; refund: RefundRecord };

/**
 * Applies the provider's answer to the refund `refundId` in flight (docs/payments.md#cancel-and-refund): a success adds
 * its amount
 * to `amountRefunded` (the payment becomes `refunded` when nothing is left) and releases the
 * reservation; a refusal releases it; `pending` keeps it (the answer is unknown, the workflow asks
 * again). A refund not in flight changes nothing.
 * @returns the state, the refund as it stands, and `record` when the refund is final
 */
export function refundAnswerStep(
  state: PaymentState,
  refundId: string,
  answer: RefundAnswerOutcome,
  at: string,
): { state: PaymentState; refund: RefundRecord | undefined; effect: PaymentEffect } {
  const refund = state.pendingRefunds.find((r) => r.id === refundId);
  if (!refund) return { state, refund: undefined, effect: { kind: 'none' } };
  if (answer.status === 'pending') return { state, refund, effect: { kind: 'none' } };
  const rest = state.pendingRefunds.filter((r) => r.id !== refundId);
  if (answer.status === 'already_settled')
    return { state: { ...state, pendingRefunds: rest }, refund: answer.refund, effect: { kind: 'none' } };
  if (answer.status === 'failed') {
    const failed: RefundRecord = {
      ...refund,
      status: 'failed',
      failureMessage: answer.failureMessage,
      completedAt: at,
    };
    return { state: { ...state, pendingRefunds: rest }, refund: failed, effect: { kind: 'record' } };
  }
  const { payment } = state;
  const amountRefunded = payment.amountRefunded + refund.amount;
  const status: PaymentStatus =
    payment.status === 'completed' && amountRefunded >= payment.amount ? 'refunded' : payment.status;
  const completed: RefundRecord = {
    ...refund,
    status: 'completed',
    providerReference: answer.refundReference,
    completedAt: at,
  };
  const after: PaymentSnapshot = {
    ...payment,
    amountRefunded,
    status,
    updatedAt: at,
    version: (payment.version ?? 0) + 1,
  };
  return { state: { payment: after, pendingRefunds: rest }, refund: completed, effect: { kind: 'record' } };
}

/**
 * True once the workflow may end (docs/payments.md#workflow): the payment is settled (no longer open) and no refund is
 * in flight. Cancel, refund and late callbacks re-open it later from the read model.
 */
export function isSettled(state: PaymentState): boolean {
  return !isOpen(state.payment.status) && state.pendingRefunds.length === 0;
}
