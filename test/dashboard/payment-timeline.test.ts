/**
 * The payment timeline's reading of what the workflow did (README.md#dashboard, `domain/payment-timeline.ts`): pure.
 */
import { expect } from 'chai';
import {
  providerCheckReason,
  refundChangesOf,
  statusChangesOf,
  type WorkflowFact,
} from '../../src/domain/payment-timeline';
import type { PaymentSnapshot } from '../../src/domain/payment';
import type { RefundRecord } from '../../src/domain/refund';
import { mobileMoneyPayment } from '../helpers/fixtures';

const base: PaymentSnapshot = mobileMoneyPayment('mer_timeline', '+250788123456', {
  nowMs: Date.parse('2026-11-20T10:00:00Z'),
});
const at = (
  payment: PaymentSnapshot,
  status: PaymentSnapshot['status'],
  time: string,
  extra: Partial<PaymentSnapshot> = {},
): PaymentSnapshot => ({ ...payment, status, updatedAt: time, ...extra });
const summary = (facts: WorkflowFact[]) =>
  statusChangesOf(facts).map((change) => `${change.from ?? '∅'}→${change.to} ${change.source}`);

describe('payment timeline (README.md#dashboard)', () => {
  it('reads the creation, then a change after a poll and a change after a callback', () => {
    const facts: WorkflowFact[] = [
      { kind: 'started', mode: 'create', payment: base },
      { kind: 'initiated', payment: at(base, 'pending', '2026-11-20T10:00:01Z') },
      { kind: 'polled' },
      { kind: 'recorded', payment: at(base, 'processing', '2026-11-20T10:00:05Z') },
      { kind: 'callback' },
      { kind: 'recorded', payment: at(base, 'completed', '2026-11-20T10:00:09Z') },
    ];
    const changes = statusChangesOf(facts);
    expect(summary(facts)).to.deep.equal([
      '∅→pending create',
      'pending→processing poll',
      'processing→completed provider_callback',
    ]);
    expect(changes[0]?.at).to.equal(base.createdAt);
    expect(changes[2]?.at).to.equal('2026-11-20T10:00:09Z');
  });

  it('names an answer at initiation the creation, and a refusal there too', () => {
    expect(
      summary([
        { kind: 'started', mode: 'create', payment: base },
        {
          kind: 'initiated',
          payment: at(base, 'failed', '2026-11-20T10:00:01Z', { failureCode: 'declined', failureMessage: 'no' }),
        },
      ]),
    ).to.deep.equal(['∅→pending create', 'pending→failed create']);
  });

  it("tells the merchant's cancel from the expiry, both of which ask the provider to cancel", () => {
    const cancel: WorkflowFact[] = [
      { kind: 'started', mode: 'create', payment: base },
      { kind: 'merchant', action: 'cancel' },
      { kind: 'provider_cancel_asked' },
      { kind: 'recorded', payment: at(base, 'cancelled', '2026-11-20T10:01:00Z') },
    ];
    expect(summary(cancel)).to.deep.equal(['∅→pending create', 'pending→cancelled merchant']);
    const expiry: WorkflowFact[] = [
      { kind: 'started', mode: 'create', payment: base },
      { kind: 'polled' },
      { kind: 'provider_cancel_asked' },
      { kind: 'recorded', payment: at(base, 'completed', '2026-11-20T10:10:00Z') },
    ];
    expect(summary(expiry)).to.deep.equal(['∅→pending create', 'pending→completed expiry']);
    const expired: WorkflowFact[] = [
      { kind: 'started', mode: 'create', payment: base },
      { kind: 'recorded', payment: at(base, 'failed', '2026-11-20T10:10:00Z', { failureCode: 'expired' }) },
    ];
    expect(summary(expired)).to.deep.equal(['∅→pending create', 'pending→failed expiry']);
  });

  it("reads a re-opened run: a late success is a reconciliation, a full refund is the merchant's", () => {
    const facts: WorkflowFact[] = [
      { kind: 'started', mode: 'create', payment: base },
      { kind: 'recorded', payment: at(base, 'failed', '2026-11-20T10:10:00Z', { failureCode: 'expired' }) },
      { kind: 'started', mode: 'reopen' },
      { kind: 'callback' },
      {
        kind: 'recorded',
        payment: at(base, 'completed', '2026-11-20T10:20:00Z', { reconciledAt: '2026-11-20T10:20:00Z' }),
      },
      { kind: 'started', mode: 'reopen' },
      { kind: 'merchant', action: 'refund' },
      { kind: 'recorded', payment: at(base, 'completed', '2026-11-20T10:30:00Z', { amountRefunded: 10 }) },
      { kind: 'merchant', action: 'refund' },
      { kind: 'recorded', payment: at(base, 'refunded', '2026-11-20T10:31:00Z', { amountRefunded: base.amount }) },
    ];
    expect(summary(facts)).to.deep.equal([
      '∅→pending create',
      'pending→failed expiry',
      'failed→completed reconciliation',
      'completed→refunded merchant',
    ]);
  });

  it('shows each refund pending from its request and completed or failed only from when it settled', () => {
    const refund = (
      id: string,
      status: RefundRecord['status'],
      createdAt: string,
      completedAt: string | null,
      extra: Partial<RefundRecord> = {},
    ): RefundRecord => ({
      id,
      paymentId: base.id,
      merchantId: base.merchantId,
      environment: base.environment,
      amount: 700,
      currency: base.currency,
      status,
      reason: null,
      providerReference: null,
      failureMessage: null,
      createdAt,
      completedAt,
      ...extra,
    });
    const changes = refundChangesOf([
      refund('ref_slow', 'completed', '2026-11-20T10:30:00Z', '2026-11-20T10:30:20Z', { reason: 'out of stock' }),
      refund('ref_refused', 'failed', '2026-11-20T10:30:05Z', '2026-11-20T10:30:06Z', {
        failureMessage: 'the provider refused the refund',
      }),
      refund('ref_waiting', 'pending', '2026-11-20T10:31:00Z', null),
    ]);
    expect(changes.map((c) => `${c.at} ${c.refund_id} ${c.status}`)).to.deep.equal([
      '2026-11-20T10:30:00Z ref_slow pending',
      '2026-11-20T10:30:05Z ref_refused pending',
      '2026-11-20T10:30:06Z ref_refused failed',
      '2026-11-20T10:30:20Z ref_slow completed',
      '2026-11-20T10:31:00Z ref_waiting pending',
    ]);
    expect(changes[0]).to.include({ reason: 'out of stock', failure_message: null, amount: 700 });
    expect(changes[2]).to.include({ reason: null, failure_message: 'the provider refused the refund' });
  });

  it("calls a wait that ends at the expiry the expiry, other open waits polls, and a settled payment's refund checks", () => {
    const expires = Date.parse('2026-11-20T10:10:00Z');
    expect(providerCheckReason('pending', expires - 60_000, expires)).to.equal('poll');
    expect(providerCheckReason('processing', expires, expires)).to.equal('expiry');
    expect(providerCheckReason('completed', expires - 60_000, expires)).to.equal('refund_check');
  });
});
