/**
 * The ledger's invariants (docs/ledger.md#invariants) under random histories, with fast-check: sequences of payments
 * on three providers, customer successes and declines, expiries and cancels followed by late successes (reconciled,
 * or refunded in full after a cancel), partial refunds that the provider pays, refuses or answers late, and retried
 * writes, each written through the real repository functions into the real PostgreSQL, with the sandbox simulators'
 * own ledger as the provider. After every step: every environment and currency sums to zero, each merchant's balance
 * equals the sum of its balance transactions' `net` and what the model says it is owed, every payment and refund has
 * exactly the journals its state calls for, and each provider's clearing equals what the simulator collected minus
 * what it refunded.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { paymentEvent } from '../../src/activities/events';
import { readBalance } from '../../src/db/ledger';
import {
  insertPaymentWithCreatedEvent,
  insertRefund,
  statusWriteOf,
  updatePaymentStatus,
  updateRefundOutcome,
} from '../../src/db/payments';
import {
  decideSandboxTransaction,
  findSandboxRefund,
  insertSandboxTransaction,
  refundSandboxTransaction,
} from '../../src/db/sandbox-ledger';
import { feeFor } from '../../src/domain/fees';
import { withStatusChange, type PaymentSnapshot } from '../../src/domain/payment';
import { lateSuccessRefundId } from '../../src/domain/payment-steps';
import type { RefundRecord } from '../../src/domain/refund';
import { newId } from '../../src/lib/ids';
import { cardPayment, insertMerchant, mobileMoneyPayment } from '../helpers/fixtures';
import { ledgerProblems } from '../helpers/ledger';
import { getStack } from '../helpers/stack';
import type { Db } from '../../src/db/knex';

type Provider = 'momo' | 'card_gateway' | 'bank_transfer';

type Action =
  | { kind: 'create'; provider: Provider; amount: number }
  | { kind: 'success' | 'decline' | 'expire' | 'cancel' | 'settle_refunds'; index: number }
  | { kind: 'refund'; index: number; percent: number; answer: 'paid' | 'refused' | 'unknown' }
  | { kind: 'retry' };

const index = fc.nat({ max: 7 });
const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({
    kind: fc.constant('create' as const),
    provider: fc.constantFrom<Provider>('momo', 'card_gateway', 'bank_transfer'),
    amount: fc.integer({ min: 1, max: 5_000_000 }),
  }),
  fc.record({
    kind: fc.constantFrom('success' as const, 'decline' as const, 'expire' as const, 'cancel' as const),
    index,
  }),
  fc.record({ kind: fc.constant('settle_refunds' as const), index }),
  fc.record({
    kind: fc.constant('refund' as const),
    index,
    percent: fc.integer({ min: 1, max: 100 }),
    answer: fc.constantFrom('paid' as const, 'refused' as const, 'unknown' as const),
  }),
  fc.record({ kind: fc.constant('retry' as const) }),
);

/** One payment of the model: its snapshot as the workflow holds it, the simulator's reference, its refunds. */
interface Tracked {
  payment: PaymentSnapshot;
  reference: string;
  refunds: RefundRecord[];
  /** True once the provider collected its money (the merchant is owed `amount − fee`). */
  collected: boolean;
}

/** Runs one history for a fresh merchant, checking the invariants after each step. */
async function runHistory(db: Db, actions: Action[]): Promise<void> {
  const merchantId = await insertMerchant(db);
  const tracked: Tracked[] = [];
  let lastWrite: (() => Promise<unknown>) | undefined;
  const now = () => new Date().toISOString();
  const bump = (t: Tracked, change: Partial<PaymentSnapshot>) => {
    t.payment = { ...t.payment, ...change, updatedAt: now(), version: (t.payment.version ?? 0) + 1 };
  };
  const write = async (fn: () => Promise<unknown>) => {
    lastWrite = fn;
    await fn();
  };
  const setStatus = async (t: Tracked, next: PaymentSnapshot) => {
    t.payment = next;
    const snapshot = next;
    const event = next.status === 'completed' ? paymentEvent(next, 'payment.completed') : undefined;
    await write(() => updatePaymentStatus(db, statusWriteOf(snapshot), event));
  };
  const settleRefund = async (t: Tracked, refund: RefundRecord, status: 'completed' | 'failed') => {
    refund.status = status;
    refund.completedAt = now();
    if (status === 'completed') {
      const refunded = t.payment.amountRefunded + refund.amount;
      const whole = refunded === t.payment.amount && t.payment.status === 'completed';
      bump(t, { amountRefunded: refunded, ...(whole ? { status: 'refunded' as const } : {}) });
    } else bump(t, {});
    const settled = { ...refund };
    const payment = statusWriteOf(t.payment);
    await write(() => updateRefundOutcome(db, settled, payment));
  };
  const newRefund = (t: Tracked, id: string, amount: number, reason: string | null): RefundRecord => ({
    id,
    paymentId: t.payment.id,
    merchantId,
    environment: 'sandbox',
    amount,
    currency: t.payment.currency,
    status: 'pending',
    reason,
    providerReference: null,
    failureMessage: null,
    createdAt: now(),
    completedAt: null,
  });

  for (const step of actions) {
    const t = 'index' in step ? tracked[step.index % Math.max(tracked.length, 1)] : undefined;
    if (step.kind === 'create') {
      const base =
        step.provider === 'card_gateway'
          ? cardPayment(merchantId)
          : { ...mobileMoneyPayment(merchantId, '+250788123456'), provider: step.provider };
      const payment: PaymentSnapshot = { ...base, amount: step.amount, feeAmount: feeFor(step.amount, step.provider) };
      await insertPaymentWithCreatedEvent(db, payment, paymentEvent(payment, 'payment.created'));
      const reference = `${step.provider}_${newId('')}`;
      await insertSandboxTransaction(db, {
        provider_reference: reference,
        provider: step.provider,
        idempotency_key: `payment:${payment.id}:initiate`,
        payment_id: payment.id,
        customer: payment.id,
        amount: payment.amount,
        currency: payment.currency,
        status: 'pending',
        failure_code: null,
        failure_message: null,
        settle_at: null,
      });
      tracked.push({ payment, reference, refunds: [], collected: false });
    } else if (step.kind === 'retry') {
      if (lastWrite) await lastWrite();
    } else if (!t) {
      continue;
    } else if (step.kind === 'success') {
      const decided = await decideSandboxTransaction(db, t.reference, { status: 'succeeded' }, new Date());
      if (decided?.status !== 'succeeded' || t.collected) continue;
      t.collected = true;
      if (t.payment.status === 'pending')
        await setStatus(t, withStatusChange(t.payment, { status: 'completed' }, now()));
      else if (t.payment.status === 'failed')
        await setStatus(t, { ...withStatusChange(t.payment, { status: 'completed' }, now()), reconciledAt: now() });
      else if (t.payment.status === 'cancelled') {
        // The late success after a cancel is refunded in full at once (docs/payments.md#states).
        const refund = newRefund(t, lateSuccessRefundId(t.payment.id), t.payment.amount, 'late_success_after_cancel');
        t.refunds.push(refund);
        await write(() => insertRefund(db, { ...refund }));
        await refundSandboxTransaction(db, t.reference, `refund:${refund.id}`, refund.amount);
        await settleRefund(t, refund, 'completed');
      }
    } else if (step.kind === 'decline') {
      if (t.payment.status !== 'pending') continue;
      const decided = await decideSandboxTransaction(
        db,
        t.reference,
        { status: 'failed', failureCode: 'declined' },
        new Date(),
      );
      if (decided?.status !== 'failed') continue;
      await setStatus(
        t,
        withStatusChange(t.payment, { status: 'failed', failure: { code: 'declined', message: 'x' } }, now()),
      );
    } else if (step.kind === 'expire' || step.kind === 'cancel') {
      if (t.payment.status !== 'pending') continue;
      // The provider's request stays open: a success may still come (docs/payments.md#states).
      const next =
        step.kind === 'expire'
          ? withStatusChange(t.payment, { status: 'failed', failure: { code: 'expired', message: 'x' } }, now())
          : withStatusChange(t.payment, { status: 'cancelled' }, now());
      await setStatus(t, next);
    } else if (step.kind === 'refund') {
      if (t.payment.status !== 'completed') continue;
      const reserved = t.refunds.filter((r) => r.status === 'pending').reduce((s, r) => s + r.amount, 0);
      const refundable = t.payment.amount - t.payment.amountRefunded - reserved;
      if (refundable <= 0) continue;
      const refund = newRefund(t, newId('ref_'), Math.max(1, Math.floor((refundable * step.percent) / 100)), null);
      t.refunds.push(refund);
      await write(() => insertRefund(db, { ...refund }));
      if (step.answer === 'refused') await settleRefund(t, refund, 'failed');
      else {
        const decideAt = step.answer === 'unknown' ? new Date(Date.now() + 3_600_000) : null;
        await refundSandboxTransaction(db, t.reference, `refund:${refund.id}`, refund.amount, decideAt);
        if (step.answer === 'paid') await settleRefund(t, refund, 'completed');
      }
    } else if (step.kind === 'settle_refunds') {
      for (const refund of t.refunds.filter((r) => r.status === 'pending')) {
        await db('sandbox_provider_refunds')
          .where({ idempotency_key: `refund:${refund.id}` })
          .update({ decide_at: new Date() });
        const known = await findSandboxRefund(db, `refund:${refund.id}`, new Date());
        if (known?.status === 'succeeded') await settleRefund(t, refund, 'completed');
      }
    }

    expect(
      await ledgerProblems(db, { merchantIds: [merchantId], againstSimulators: true }),
      JSON.stringify(step),
    ).to.deep.equal([]);
    const owed = new Map<string, number>();
    for (const p of tracked) {
      const collected = p.collected ? p.payment.amount - p.payment.feeAmount : 0;
      const refunded = p.refunds.filter((r) => r.status !== 'failed').reduce((s, r) => s + r.amount, 0);
      owed.set(p.payment.currency, (owed.get(p.payment.currency) ?? 0) + collected - refunded);
    }
    const balance = await readBalance(db, { merchantId, environment: 'sandbox' }, new Date());
    for (const [currency, amount] of owed) {
      const available = balance.available.find((b) => b.currency === currency)?.amount ?? 0;
      const pending = balance.pending.find((b) => b.currency === currency)?.amount ?? 0;
      expect(available + pending, `${currency} owed after ${JSON.stringify(step)}`).to.equal(amount);
    }
  }
}

describe('ledger invariants under random histories (docs/ledger.md#invariants)', function () {
  this.timeout(300_000);

  it('hold after every step of 40 random histories of payments, refunds, refusals, unknown answers and late successes', async () => {
    const { db } = await getStack();
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 5, maxLength: 30 }), (actions) => runHistory(db, actions)),
      { numRuns: 40 },
    );
  });
});
