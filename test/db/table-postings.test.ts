/**
 * The ledger's postings are effects of the payment's table (docs/payments.md#states, docs/ledger.md#postings): for
 * each row that moves money, the journals the read-model writes put in PostgreSQL are exactly the `post` effects the
 * row declares, no more and no fewer. Driven through `apply` and the same writes the payment activities make.
 */
import { expect } from 'chai';
import {
  statusWriteOf,
  insertPaymentWithCreatedEvent,
  insertRefund,
  updatePaymentStatus,
  updateRefundOutcome,
} from '../../src/db/payments';
import type { Db } from '../../src/db/knex';
import { paymentEvent } from '../../src/activities/events';
import {
  apply,
  initialPaymentState,
  writeOrdersOf,
  type Applied,
  type PaymentEvent,
  type PaymentState,
} from '../../src/domain/payment-table';
import { newId } from '../../src/lib/ids';
import { insertMerchant, mobileMoneyPayment } from '../helpers/fixtures';
import { ledgerProblems } from '../helpers/ledger';
import { getStack } from '../helpers/stack';

const WINDOW_MS = 180 * 86_400_000;

/** `event` applied to `state`, which the table must accept. */
function step(state: PaymentState, event: PaymentEvent): Extract<Applied, { ok: true }> {
  const applied = apply(state, event, new Date().toISOString());
  if (!applied.ok)
    throw new Error(`the table refused ${event.type} in ${state.payment.status}: ${applied.refusal.message}`);
  return applied;
}

/** A refund request of `amount` minor units, as the table takes it. */
function refundRequest(refundId: string, amount: number): PaymentEvent {
  return { type: 'refund_accepted', refundId, amount, reason: null, refundWindowMs: WINDOW_MS };
}

/** The causes the row declared. */
const declared = (applied: Extract<Applied, { ok: true }>) =>
  applied.effects.flatMap((e) => (e.do === 'post' ? [e.cause] : [])).sort();

/** The causes the row ordered, as the workflow hands them to the write (`WriteOrders.post`). */
const ordered = (applied: Extract<Applied, { ok: true }>) => writeOrdersOf(applied.effects).post;

/** Runs `write` and answers the journal causes it added. */
async function journalsWrittenBy(db: Db, write: () => Promise<unknown>): Promise<string[]> {
  const before = new Set((await db('ledger_journals').select('cause')).map((r) => r.cause as string));
  await write();
  const after = (await db('ledger_journals').select('cause')).map((r) => r.cause as string);
  return after.filter((cause) => !before.has(cause)).sort();
}

describe('ledger postings are the effects of the payment table (docs/ledger.md#postings)', () => {
  it('a success, a refund accepted, completed, and another refused post what their rows declare', async () => {
    const { db } = await getStack();
    const merchantId = await insertMerchant(db);
    const payment = mobileMoneyPayment(merchantId, '+250788000001');
    await insertPaymentWithCreatedEvent(db, payment, paymentEvent(payment, 'payment.created'));

    const success = step(initialPaymentState(payment), { type: 'provider_success' });
    expect(declared(success)).to.deep.equal([`payment:${payment.id}:completed`]);
    const completed = success.state.payment;
    expect(
      await journalsWrittenBy(db, () =>
        updatePaymentStatus(
          db,
          statusWriteOf(completed, ordered(success)),
          paymentEvent(completed, 'payment.completed'),
        ),
      ),
    ).to.deep.equal(declared(success));

    const refundId = newId('ref_');
    const accepted = step(success.state, refundRequest(refundId, 600));
    expect(declared(accepted)).to.deep.equal([`refund:${refundId}:reserved`]);
    expect(await journalsWrittenBy(db, () => insertRefund(db, accepted.refund!, ordered(accepted)))).to.deep.equal(
      declared(accepted),
    );

    const paid = step(accepted.state, { type: 'refund_completed', refundId, providerReference: 'momo-refund-1' });
    expect(declared(paid)).to.deep.equal([`refund:${refundId}:completed`]);
    expect(
      await journalsWrittenBy(db, () =>
        updateRefundOutcome(db, paid.refund!, statusWriteOf(paid.state.payment, []), undefined, ordered(paid)),
      ),
    ).to.deep.equal(declared(paid));

    const secondId = newId('ref_');
    const second = step(paid.state, refundRequest(secondId, 300));
    await insertRefund(db, second.refund!, ordered(second));
    const refused = step(second.state, { type: 'refund_refused', refundId: secondId, message: 'declined' });
    expect(declared(refused)).to.deep.equal([`refund:${secondId}:failed`]);
    expect(
      await journalsWrittenBy(db, () =>
        updateRefundOutcome(db, refused.refund!, statusWriteOf(refused.state.payment, []), undefined, ordered(refused)),
      ),
    ).to.deep.equal(declared(refused));
    expect(await ledgerProblems(db, { merchantIds: [merchantId] })).to.deep.equal([]);
  });

  it('a late success after a cancel posts the collection and the reservation of its automatic refund', async () => {
    const { db } = await getStack();
    const merchantId = await insertMerchant(db);
    const payment = mobileMoneyPayment(merchantId, '+250788000001');
    await insertPaymentWithCreatedEvent(db, payment, paymentEvent(payment, 'payment.created'));
    const cancelled = step(initialPaymentState(payment), { type: 'cancel', reason: null });
    expect(declared(cancelled)).to.deep.equal([]);
    expect(
      await journalsWrittenBy(db, () =>
        updatePaymentStatus(db, statusWriteOf(cancelled.state.payment, ordered(cancelled))),
      ),
    ).to.deep.equal([]);

    const late = step(cancelled.state, { type: 'late_success', reconciliationWindowMs: WINDOW_MS });
    const refund = late.refund!;
    expect(declared(late)).to.deep.equal([`payment:${payment.id}:completed`, `refund:${refund.id}:reserved`].sort());
    expect(await journalsWrittenBy(db, () => insertRefund(db, refund, ordered(late)))).to.deep.equal(declared(late));
    expect(await ledgerProblems(db, { merchantIds: [merchantId] })).to.deep.equal([]);
  });

  it('posts nothing the row did not declare: no collection derived from a completed status, and a cause the refund contradicts refused', async () => {
    const { db } = await getStack();
    const merchantId = await insertMerchant(db);
    const payment = mobileMoneyPayment(merchantId, '+250788000001');
    await insertPaymentWithCreatedEvent(db, payment, paymentEvent(payment, 'payment.created'));
    const success = step(initialPaymentState(payment), { type: 'provider_success' });
    const completed = success.state.payment;
    // The status says completed, but the write was ordered to post nothing: nothing is posted.
    expect(await journalsWrittenBy(db, () => updatePaymentStatus(db, statusWriteOf(completed, [])))).to.deep.equal([]);
    expect((await db('payments').where({ id: payment.id }).first('status')).status).to.equal('completed');
    // A status write is never ordered to post a refund's journal.
    expect(() => statusWriteOf(completed, [`refund:${newId('ref_')}:reserved`])).to.throw('does not post');
    // The write as the row declared it (a retried activity): the collection, once.
    expect(
      await journalsWrittenBy(db, () => updatePaymentStatus(db, statusWriteOf(completed, ordered(success)))),
    ).to.deep.equal(declared(success));

    const refundId = newId('ref_');
    const accepted = step(success.state, refundRequest(refundId, 600));
    await insertRefund(db, accepted.refund!, ordered(accepted));
    const refused = step(accepted.state, { type: 'refund_refused', refundId, message: 'declined' });
    // A completion ordered for a refund the provider refused: refused, and nothing of the outcome written.
    const contradicted = [`refund:${refundId}:completed`];
    const error = await updateRefundOutcome(
      db,
      refused.refund!,
      statusWriteOf(refused.state.payment, []),
      undefined,
      contradicted,
    ).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).to.include('posted for a failed refund');
    expect((await db('refunds').where({ id: refundId }).first('status')).status).to.equal('pending');
    expect(await db('ledger_journals').where({ cause: `refund:${refundId}:completed` })).to.have.length(0);
    // Another payment's collection is no journal of this refund.
    const foreign = [`payment:${newId('pay_')}:completed`];
    const wrongPayment = await insertRefund(db, { ...accepted.refund!, id: newId('ref_') }, foreign).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(wrongPayment?.message).to.include('is not a journal of this refund or its payment');
    // The declared outcome settles it; the books balance.
    await updateRefundOutcome(
      db,
      refused.refund!,
      statusWriteOf(refused.state.payment, []),
      undefined,
      ordered(refused),
    );
    expect(await ledgerProblems(db, { merchantIds: [merchantId] })).to.deep.equal([]);
  });
});
