/**
 * Found by the fault suite (worker killed mid-burst): a refund whose first provider call never ran
 * (`refundAtProvider` timed out in the task queue while no worker was up) was later sent by
 * `fetchRefundAtProvider` and recorded by `updateRefundOutcome`, which then only updated a refund
 * row nobody had written. The provider had paid it, `amount_refunded` and `refund.completed` said
 * so, and the refund itself was nowhere (docs/payments.md#cancel-and-refund). The outcome now writes
 * the row when it is missing.
 */
import { expect } from 'chai';
import { createDb, type Db } from '../../src/db/knex';
import {
  insertPaymentWithCreatedEvent,
  statusWriteOf,
  updatePaymentStatus,
  updateRefundOutcome,
} from '../../src/db/payments';
import { apply, initialPaymentState, writeOrdersOf } from '../../src/domain/payment-table';
import { paymentEvent } from '../../src/activities/events';
import { afterEvent, insertMerchant, mobileMoneyPayment } from '../helpers/fixtures';
import { testConfig } from '../helpers/stack';

describe('a refund whose first provider call never ran (fault suite finding, docs/payments.md#cancel-and-refund, docs/payments.md#events)', () => {
  let db: Db;
  before(() => {
    db = createDb(testConfig().DATABASE_URL, 2);
  });
  after(async () => {
    await db.destroy();
  });

  it('is written with its outcome, together with amount_refunded and refund.completed', async () => {
    const now = new Date().toISOString();
    const pending = mobileMoneyPayment(await insertMerchant(db), '+250788000042');
    await insertPaymentWithCreatedEvent(db, pending, paymentEvent(pending, 'payment.created'));
    const completed = afterEvent(pending, { type: 'provider_success' }, now);
    await updatePaymentStatus(db, statusWriteOf(completed, [`payment:${completed.id}:completed`]));
    // The workflow reserved 500, its first call never ran, the re-sent call succeeded.
    const refundId = 'ref_lostcall0000000000000001';
    const accepted = apply(
      initialPaymentState(completed),
      { type: 'refund_accepted', refundId, amount: 500, reason: null, refundWindowMs: 180 * 86_400_000 },
      now,
    );
    if (!accepted.ok) throw new Error(accepted.refusal.message);
    const settled = apply(
      accepted.state,
      { type: 'refund_completed', refundId, providerReference: 'momo_refund_1' },
      now,
    );
    if (!settled.ok) throw new Error(settled.refusal.message);
    expect(settled.refund?.status).to.equal('completed');
    expect(await db('refunds').where({ id: refundId }).first()).to.equal(undefined);

    const event = paymentEvent(settled.state.payment, 'refund.completed', `refund:${refundId}`);
    // The run carries the acceptance's journals with the outcome's while the refund may not be stored yet.
    const post = [...writeOrdersOf(accepted.effects).post, ...writeOrdersOf(settled.effects).post];
    await updateRefundOutcome(db, settled.refund!, statusWriteOf(settled.state.payment, []), event, post);

    const row = await db('refunds').where({ id: refundId }).first();
    expect(row).to.include({
      payment_id: pending.id,
      status: 'completed',
      provider_reference: 'momo_refund_1',
      reason: null,
    });
    expect(Number(row.amount)).to.equal(500);
    expect(Number((await db('payments').where({ id: pending.id }).first('amount_refunded')).amount_refunded)).to.equal(
      500,
    );
    expect(await db('events').where({ id: event.id }).first('type')).to.deep.equal({ type: 'refund.completed' });
    // Its reservation, which the lost call never posted, is posted with it, before its completion.
    const causes = (await db('ledger_journals').where('cause', 'like', `refund:${refundId}:%`).orderBy('created_at'))
      .map((j: { cause: string }) => j.cause)
      .sort();
    expect(causes).to.deep.equal([`refund:${refundId}:completed`, `refund:${refundId}:reserved`]);
  });
});
