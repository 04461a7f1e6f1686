/**
 * The single-statement payment writes against a real PostgreSQL (db/payments): the insert of a
 * payment with its event and audit entry, and a status change with its event. Both must change
 * nothing on a missing or repeated row, and report the event's subscribed webhooks (docs/payments.md#events).
 */
import { expect } from 'chai';
import {
  insertPaymentWithCreatedEvent,
  listEventsForObject,
  statusWriteOf,
  updatePaymentStatus,
  findPayment,
} from '../../src/db/payments';
import { paymentEvent } from '../../src/activities/events';
import { afterEvent, insertMerchant, mobileMoneyPayment } from '../helpers/fixtures';
import { getStack } from '../helpers/stack';
import { insertWebhook } from '../helpers/webhooks';

describe('payment writes in one statement (docs/payments.md#events)', () => {
  it('refuses a status change for a payment not in the read model, writing no event', async () => {
    const { db } = await getStack();
    const missing = afterEvent(mobileMoneyPayment(await insertMerchant(db), '+250788000001'), {
      type: 'provider_success',
    });
    const event = paymentEvent(missing, 'payment.completed');
    const error = await updatePaymentStatus(
      db,
      statusWriteOf(missing, [`payment:${missing.id}:completed`]),
      event,
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(Error);
    expect((error as Error).message).to.include('is not in the read model yet');
    expect(await db('events').where({ id: event.id }).first()).to.equal(undefined);
  });

  it('inserts once, ignores an older status write, and reports the subscribed webhooks', async () => {
    const { db } = await getStack();
    const merchantId = await insertMerchant(db);
    const payment = mobileMoneyPayment(merchantId, '+250788000001');
    const created = paymentEvent(payment, 'payment.created');
    const { id: webhookId } = await insertWebhook(db, merchantId, 'https://example.com/hooks', {
      events: ['payment.created', 'payment.completed'],
    });
    // A disabled webhook subscribed to the same events is told nothing (docs/webhooks.md#retries).
    await insertWebhook(db, merchantId, 'https://example.com/off', {
      events: ['payment.created', 'payment.completed'],
      status: 'disabled',
    });

    expect(await insertPaymentWithCreatedEvent(db, payment, created)).to.deep.equal({
      inserted: true,
      webhookIds: [webhookId],
    });
    expect(await insertPaymentWithCreatedEvent(db, payment, created)).to.deep.equal({
      inserted: false,
      webhookIds: [webhookId],
    });

    const processing = afterEvent(payment, { type: 'provider_processing' });
    const completed = afterEvent(processing, { type: 'provider_success' });
    expect(
      await updatePaymentStatus(
        db,
        statusWriteOf(completed, [`payment:${completed.id}:completed`]),
        paymentEvent(completed, 'payment.completed'),
      ),
    ).to.deep.equal([webhookId]);
    // The older write lands late: the row keeps the newer version.
    expect(await updatePaymentStatus(db, statusWriteOf(processing, []))).to.deep.equal([]);
    expect(await findPayment(db, payment, payment.id)).to.include({ status: 'completed', version: 2 });
    expect((await listEventsForObject(db, payment.id)).map((e) => e.event))
      .to.have.members(['payment.created', 'payment.completed'])
      .and.have.length(2);
  });
});
