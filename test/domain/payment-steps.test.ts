/**
 * The payment reducer (docs/payments.md#states, docs/payments.md#cancel-and-refund): provider answers and their
 * reconciliation, expiry, cancel, and the
 * refunds' reservations — pure, without Temporal.
 */
import { expect } from 'chai';
import { DomainError } from '../../src/domain/errors';
import { callbackMayChange } from '../../src/domain/payment';
import type { PaymentSnapshot } from '../../src/domain/payment';
import {
  acceptRefund,
  cancelStep,
  expiryStep,
  initialPaymentState,
  isSettled,
  lateSuccessRefundId,
  providerAnswerStep,
  refundAnswerStep,
  reservedMinor,
  withdrawRefund,
  type PaymentState,
} from '../../src/domain/payment-steps';
import { mobileMoneyPayment } from '../helpers/fixtures';

const WINDOW_MS = 7 * 86_400_000;
const T0 = '2026-11-23T10:00:00.000Z';
const later = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

function stateOf(overrides: Partial<PaymentSnapshot> = {}): PaymentState {
  return initialPaymentState({
    ...mobileMoneyPayment('mer_x', '+250788000001', { nowMs: Date.parse(T0) }),
    providerReference: 'momo_1',
    version: 1,
    ...overrides,
  });
}

function refusedWith(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('payment steps: provider answers (docs/payments.md#states)', () => {
  it('moves pending to processing once, then to completed, each with a new version', () => {
    const processing = providerAnswerStep(stateOf(), { status: 'processing' }, later(1000), WINDOW_MS);
    expect(processing.effect.kind).to.equal('record');
    expect(processing.state.payment).to.include({ status: 'processing', version: 2 });
    expect(providerAnswerStep(processing.state, { status: 'processing' }, later(2000), WINDOW_MS).effect.kind).to.equal(
      'none',
    );
    const completed = providerAnswerStep(processing.state, { status: 'completed' }, later(3000), WINDOW_MS);
    expect(completed.state.payment).to.include({ status: 'completed', version: 3 });
  });

  it('never lets an earlier answer overwrite a final one (processing after completed, completed twice)', () => {
    const completed = providerAnswerStep(stateOf(), { status: 'completed' }, later(1000), WINDOW_MS).state;
    expect(providerAnswerStep(completed, { status: 'processing' }, later(2000), WINDOW_MS)).to.deep.equal({
      state: completed,
      effect: { kind: 'none' },
    });
    expect(providerAnswerStep(completed, { status: 'completed' }, later(3000), WINDOW_MS)).to.deep.equal({
      state: completed,
      effect: { kind: 'none' },
    });
  });

  it('reconciles a late success of an expired payment within the window: completed with reconciledAt', () => {
    const expired = stateOf({ status: 'failed', failureCode: 'expired', failureMessage: 'expired', updatedAt: T0 });
    const step = providerAnswerStep(expired, { status: 'completed' }, later(5000), WINDOW_MS);
    expect(step.effect.kind).to.equal('record');
    expect(step.state.payment).to.include({
      status: 'completed',
      failureCode: null,
      reconciledAt: later(5000),
      version: 2,
    });
  });

  it('reconciles a late success after a provider error, but never after a decline', () => {
    const providerError = stateOf({ status: 'failed', failureCode: 'provider_error', failureMessage: 'x' });
    expect(
      providerAnswerStep(providerError, { status: 'completed' }, later(1000), WINDOW_MS).state.payment.status,
    ).to.equal('completed');
    const declined = stateOf({ status: 'failed', failureCode: 'declined', failureMessage: 'x' });
    expect(providerAnswerStep(declined, { status: 'completed' }, later(1000), WINDOW_MS).effect.kind).to.equal('none');
  });

  it('records a late success outside the window on the payment without completing it, once', () => {
    const expired = stateOf({ status: 'failed', failureCode: 'expired', failureMessage: 'expired', updatedAt: T0 });
    const step = providerAnswerStep(expired, { status: 'completed' }, later(WINDOW_MS + 1), WINDOW_MS);
    expect(step.effect.kind).to.equal('record_late_answer');
    expect(step.state.payment).to.include({ status: 'failed' });
    expect(step.state.payment.lateAnswer).to.deep.equal({ status: 'completed', receivedAt: later(WINDOW_MS + 1) });
    expect(
      providerAnswerStep(step.state, { status: 'completed' }, later(WINDOW_MS + 2), WINDOW_MS).effect.kind,
    ).to.equal('none');
  });

  it("refunds a success that comes after the merchant's cancel in full, once", () => {
    const cancelled = stateOf({ status: 'cancelled' });
    const step = providerAnswerStep(cancelled, { status: 'completed' }, later(1000), WINDOW_MS);
    expect(step.effect.kind).to.equal('refund_late_success');
    expect(step.state.pendingRefunds).to.have.length(1);
    expect(step.state.pendingRefunds[0]).to.include({
      id: lateSuccessRefundId(cancelled.payment.id),
      amount: 1500,
      reason: 'late_success_after_cancel',
      status: 'pending',
    });
    expect(providerAnswerStep(step.state, { status: 'completed' }, later(2000), WINDOW_MS).effect.kind).to.equal(
      'none',
    );
    expect(lateSuccessRefundId(cancelled.payment.id)).to.match(/^ref_[0-9A-Za-z]{24}$/);
  });

  it('tells which callbacks may change a payment: any while open, only a success once closed and reconcilable', () => {
    expect(callbackMayChange({ status: 'pending', failureCode: null }, 'processing')).to.equal(true);
    expect(callbackMayChange({ status: 'completed', failureCode: null }, 'completed')).to.equal(false);
    expect(callbackMayChange({ status: 'failed', failureCode: 'expired' }, 'completed')).to.equal(true);
    expect(callbackMayChange({ status: 'failed', failureCode: 'expired' }, 'failed')).to.equal(false);
    expect(callbackMayChange({ status: 'failed', failureCode: 'declined' }, 'completed')).to.equal(false);
    expect(callbackMayChange({ status: 'cancelled', failureCode: null }, 'completed')).to.equal(true);
  });
});

describe('payment steps: expiry and cancel (docs/payments.md#states, docs/payments.md#cancel-and-refund)', () => {
  it('expires an open payment when the provider has no final word', () => {
    for (const lastWord of [
      undefined,
      { status: 'pending' as const },
      { status: 'processing' as const },
      { status: 'cancelled' as const },
    ]) {
      const step = expiryStep(stateOf(), lastWord, later(600_000));
      expect(step.state.payment).to.include({ status: 'failed', failureCode: 'expired' });
    }
  });

  it('lets a success or a decline found at expiry win', () => {
    expect(expiryStep(stateOf(), { status: 'completed' }, later(1)).state.payment.status).to.equal('completed');
    const declined = expiryStep(
      stateOf(),
      { status: 'failed', failureCode: 'declined', failureMessage: 'no' },
      later(1),
    ).state.payment;
    expect(declined).to.include({ status: 'failed', failureCode: 'declined' });
  });

  it('cancels with the reason when the provider cancelled or cannot cancel; loses to a success', () => {
    const atProvider = cancelStep(stateOf(), { status: 'cancelled' }, 'changed mind', later(1));
    expect(atProvider.cancelled).to.equal(true);
    expect(atProvider.state.payment).to.include({ status: 'cancelled', cancellationReason: 'changed mind' });
    expect(cancelStep(stateOf(), 'unsupported', null, later(1)).state.payment.status).to.equal('cancelled');
    const lost = cancelStep(stateOf(), { status: 'completed' }, null, later(1));
    expect(lost.cancelled).to.equal(false);
    expect(lost.state.payment.status).to.equal('completed');
  });
});

describe('payment steps: refunds (docs/payments.md#states, docs/payments.md#cancel-and-refund)', () => {
  const completed = () => stateOf({ status: 'completed' });

  it('reserves each accepted refund at once, so twenty requests of 100 on 1500 accept exactly 15', () => {
    let state = completed();
    let accepted = 0;
    const refusals: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      try {
        ({ state } = acceptRefund(state, { refundId: `ref_${i}`, amount: 100 }, later(i)));
        accepted += 1;
      } catch (error) {
        refusals.push((error as DomainError).code);
      }
    }
    expect(accepted).to.equal(15);
    expect(reservedMinor(state)).to.equal(1500);
    expect(new Set(refusals)).to.deep.equal(new Set(['payment_not_refundable']));
  });

  it('refuses more than the rest (amount_exceeds_refundable) and refunds of payments that are not completed', () => {
    expect(refusedWith(() => acceptRefund(completed(), { refundId: 'ref_a', amount: 1501 }, T0))).to.equal(
      'amount_exceeds_refundable',
    );
    expect(refusedWith(() => acceptRefund(stateOf(), { refundId: 'ref_a' }, T0))).to.equal('payment_not_refundable');
  });

  it('adds a completed refund to amountRefunded and releases its reservation; the last one makes the payment refunded', () => {
    let { state } = acceptRefund(completed(), { refundId: 'ref_a', amount: 500 }, T0);
    ({ state } = acceptRefund(state, { refundId: 'ref_b' }, T0));
    const first = refundAnswerStep(state, 'ref_a', { status: 'succeeded', refundReference: 'rf_a' }, later(1));
    expect(first.refund).to.include({ status: 'completed', providerReference: 'rf_a', completedAt: later(1) });
    expect(first.state.payment).to.include({ status: 'completed', amountRefunded: 500 });
    expect(reservedMinor(first.state)).to.equal(1000);
    const second = refundAnswerStep(first.state, 'ref_b', { status: 'succeeded', refundReference: 'rf_b' }, later(2));
    expect(second.state.payment).to.include({ status: 'refunded', amountRefunded: 1500 });
    expect(isSettled(second.state)).to.equal(true);
  });

  it('keeps an unknown refund pending and reserved; a definite refusal releases it', () => {
    const { state } = acceptRefund(completed(), { refundId: 'ref_a', amount: 700 }, T0);
    const unknown = refundAnswerStep(state, 'ref_a', { status: 'pending' }, later(1));
    expect(unknown.effect.kind).to.equal('none');
    expect(reservedMinor(unknown.state)).to.equal(700);
    expect(isSettled(unknown.state)).to.equal(false);
    expect(refusedWith(() => acceptRefund(unknown.state, { refundId: 'ref_b', amount: 801 }, T0))).to.equal(
      'amount_exceeds_refundable',
    );
    const refused = refundAnswerStep(unknown.state, 'ref_a', { status: 'failed', failureMessage: 'refused' }, later(2));
    expect(refused.refund).to.include({ status: 'failed', failureMessage: 'refused' });
    expect(refused.state.payment.amountRefunded).to.equal(0);
    expect(reservedMinor(refused.state)).to.equal(0);
  });

  it('adopts a refund an earlier run already settled without counting it twice, and withdraws a refund never sent', () => {
    const { state } = acceptRefund(completed(), { refundId: 'ref_a', amount: 300 }, T0);
    const stored = { ...state.pendingRefunds[0]!, status: 'completed' as const };
    const adopted = refundAnswerStep(state, 'ref_a', { status: 'already_settled', refund: stored }, later(1));
    expect(adopted.state.payment.amountRefunded).to.equal(0);
    expect(adopted.refund).to.equal(stored);
    expect(reservedMinor(withdrawRefund(state, 'ref_a'))).to.equal(0);
  });

  it('answers a repeated refund id with the refund in flight instead of reserving twice', () => {
    const { state } = acceptRefund(completed(), { refundId: 'ref_a', amount: 300 }, T0);
    const again = acceptRefund(state, { refundId: 'ref_a', amount: 300 }, T0);
    expect(reservedMinor(again.state)).to.equal(300);
  });
});
