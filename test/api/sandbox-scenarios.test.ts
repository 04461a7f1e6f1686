/**
 * The sandbox scenario numbers end to end over HTTP, as a merchant sees them
 * (docs/payments.md#sandbox-scenarios): late success after expiry (0004), duplicate and out-of-order callbacks
 * (0005), refunds refused with `refund.failed` (0006), a refund answer unknown, held in `amount_refund_pending`, then
 * succeeded (0007), an initiation that
 * times out at the provider's door yet was accepted (0008), and `expires_in`.
 */
import { expect } from 'chai';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { startReceiver, verifyDelivery, type ReceivedRequest } from '../helpers/receiver';
import { getStack } from '../helpers/stack';
import { PROVIDER_ANSWER_WAIT_MS } from '../../src/workflows/messages';

const MOBILE = { amount: 1500, currency: 'RWF', payment_method: 'mobile_money' };

describe('sandbox scenarios over HTTP (docs/payments.md#sandbox-scenarios)', function () {
  this.timeout(120_000);
  let developer: TestDeveloper;

  before(async () => {
    developer = await registerDeveloper();
  });

  async function create(body: object) {
    const response = await call('/v1/payments', { key: developer.key, body });
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
    return response.body.data;
  }

  /** A payment to `phone` once the simulator has completed it. */
  async function completed(phone: string) {
    const payment = await create({ ...MOBILE, phone_number: phone });
    await waitForPayment(developer.key, payment.id, (p) => p.status === 'completed', 20_000);
    return payment;
  }

  async function eventTypes(paymentId: string): Promise<string[]> {
    const { db } = await getStack();
    const rows = await db('events')
      .where({ object_id: paymentId })
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .select('type');
    return rows.map((row: { type: string }) => row.type);
  }

  it('answers the create once the provider has the request: pending with the prompt as next_action (docs/payments.md#workflow)', async () => {
    // A payment that stays open: a settled one has no next_action (docs/payments.md#payment-record).
    const payment = await create({ ...MOBILE, phone_number: '+250788000003' });
    expect(payment.status).to.equal('pending');
    expect(payment.next_action).to.deep.include({ type: 'mobile_money_approval' });
    expect(payment.next_action.message).to.be.a('string').and.not.equal('');
    const stored = await call(`/v1/payments/${payment.id}`, { key: developer.key });
    expect(stored.body.data.next_action).to.deep.equal(payment.next_action);
  });

  it('0004: expires, then completes when the late success arrives, with reconciled_at and a new payment.completed (docs/payments.md#states)', async () => {
    const payment = await create({ ...MOBILE, phone_number: '+250788000004', expires_in: 60 });
    const expired = await waitForPayment(developer.key, payment.id, (p) => p.status === 'failed', 75_000);
    expect(expired).to.include({ status: 'failed', failure_code: 'expired', reconciled_at: null });
    const reconciled = await waitForPayment(developer.key, payment.id, (p) => p.status === 'completed', 30_000);
    expect(reconciled).to.include({ status: 'completed', failure_code: null });
    expect(Date.parse(reconciled.reconciled_at)).to.be.greaterThan(Date.parse(expired.updated_at));
    expect(await eventTypes(payment.id)).to.deep.equal(['payment.created', 'payment.failed', 'payment.completed']);
  });

  it('0005: duplicate and out-of-order callbacks leave one completed payment and one payment.completed', async () => {
    const payment = await create({ ...MOBILE, phone_number: '+250788000005' });
    await waitForPayment(developer.key, payment.id, (p) => p.status === 'completed', 20_000);
    const { db } = await getStack();
    // Wait until the simulator has sent all three callbacks (completed, completed again, pending).
    for (let sent = 0; sent < 3;) {
      await new Promise((r) => setTimeout(r, 250));
      const rows = await db('sandbox_provider_callbacks')
        .join('payments', 'payments.provider_reference', 'sandbox_provider_callbacks.provider_reference')
        .where('payments.id', payment.id)
        .whereNotNull('sent_at')
        .count<{ n: number }[]>('sandbox_provider_callbacks.id as n');
      sent = Number(rows[0]?.n ?? 0);
    }
    await new Promise((r) => setTimeout(r, 1_000));
    expect((await call(`/v1/payments/${payment.id}`, { key: developer.key })).body.data.status).to.equal('completed');
    expect(await eventTypes(payment.id)).to.deep.equal(['payment.created', 'payment.completed']);
  });

  it('0006: a refund the provider refuses answers 201 failed, releases its amount and sends refund.failed (docs/payments.md#cancel-and-refund)', async () => {
    const receiver = await startReceiver();
    try {
      const webhook = await call('/v1/developer/webhooks', {
        key: developer.key,
        body: { url: `${receiver.origin}/refunds`, events: ['refund.failed'] },
      });
      expect(webhook.status, JSON.stringify(webhook.body)).to.equal(201);
      const payment = await completed('+250788000006');
      const refund = await call(`/v1/payments/${payment.id}/refund`, {
        key: developer.key,
        body: { amount: 500, reason: 'damaged' },
      });
      expect(refund.status).to.equal(201);
      expect(refund.body.data).to.include({ status: 'failed', amount: 500 });
      expect(refund.body.data.failure_message).to.be.a('string');
      const after = (await call(`/v1/payments/${payment.id}`, { key: developer.key })).body.data;
      expect(after).to.include({ status: 'completed', amount_refunded: 0, amount_refund_pending: 0 });
      expect(await eventTypes(payment.id)).to.deep.equal(['payment.created', 'payment.completed', 'refund.failed']);
      const [delivery] = await receiver.waitFor(1);
      const event = verifyDelivery(delivery as ReceivedRequest, webhook.body.data.secret as string);
      expect(event.event).to.equal('refund.failed');
      expect(event.data).to.include({
        id: refund.body.data.id,
        status: 'failed',
        amount: 500,
        reason: 'damaged',
        failure_message: refund.body.data.failure_message,
      });
      expect(event.data.payment).to.include({ id: payment.id, amount_refunded: 0, amount_refund_pending: 0 });
      // Released: the whole amount is refundable again (and refused again by this provider).
      const whole = await call(`/v1/payments/${payment.id}/refund`, { key: developer.key, body: { amount: 1500 } });
      expect(whole.body.data).to.include({ status: 'failed', amount: 1500 });
    } finally {
      await receiver.close();
    }
  });

  it('0007: a refund whose answer is unknown answers 201 pending by PROVIDER_ANSWER_WAIT_MS, stays reserved, and completes once the provider says so (docs/payments.md#cancel-and-refund)', async () => {
    const payment = await completed('+250788000007');
    const sent = Date.now();
    const refund = await call(`/v1/payments/${payment.id}/refund`, {
      key: developer.key,
      headers: { 'idempotency-key': `refund-${payment.id}` },
      body: { amount: 1000 },
    });
    // Answered once written and reserved, without waiting out the provider's retries (7 s and more before).
    expect(Date.now() - sent).to.be.below(PROVIDER_ANSWER_WAIT_MS + 3_000);
    expect(refund.status).to.equal(201);
    expect(refund.body.data).to.include({ status: 'pending', amount: 1000 });
    // Shown as held while the answer is unknown, in the payment and its list.
    expect((await call(`/v1/payments/${payment.id}`, { key: developer.key })).body.data).to.include({
      amount_refunded: 0,
      amount_refund_pending: 1000,
    });
    const listed = (await call('/v1/payments?limit=100', { key: developer.key })).body.data.payments.find(
      (p: { id: string }) => p.id === payment.id,
    );
    expect(listed).to.include({ amount_refund_pending: 1000 });
    // Reserved: only 500 are left while the answer is unknown.
    const more = await call(`/v1/payments/${payment.id}/refund`, { key: developer.key, body: { amount: 501 } });
    expect(more.status).to.equal(400);
    expect(more.body.error.code).to.equal('amount_exceeds_refundable');
    const settled = await waitForPayment(developer.key, payment.id, (p) => p.amount_refunded === 1000, 60_000);
    expect(settled).to.include({ status: 'completed', amount_refunded: 1000, amount_refund_pending: 0 });
    const { db } = await getStack();
    expect(await db('refunds').where({ id: refund.body.data.id }).first('status')).to.deep.equal({
      status: 'completed',
    });
    expect(await eventTypes(payment.id)).to.deep.equal(['payment.created', 'payment.completed', 'refund.completed']);
    // The same request again with its key: the refund as it now stands, not the first answer's `pending`.
    const replayed = await call(`/v1/payments/${payment.id}/refund`, {
      key: developer.key,
      headers: { 'idempotency-key': `refund-${payment.id}` },
      body: { amount: 1000 },
    });
    expect(replayed.status).to.equal(201);
    expect(replayed.headers.get('idempotent-replayed')).to.equal('true');
    expect(replayed.body.data).to.include({ id: refund.body.data.id, status: 'completed', amount: 1000 });
    expect(replayed.body.message).to.equal('Refund completed');
  });

  it("0008: an initiation that timed out at the provider's door is retried with the same key: one request, pending, completed later", async () => {
    const payment = await create({ ...MOBILE, phone_number: '+250788000008' });
    expect(payment.status).to.equal('pending');
    expect(payment.next_action).to.not.equal(null);
    const completed = await waitForPayment(developer.key, payment.id, (p) => p.status === 'completed', 30_000);
    expect(completed.status).to.equal('completed');
    const { db } = await getStack();
    expect(
      await db('sandbox_provider_transactions')
        .where({ payment_id: payment.id })
        .count<{ n: number }[]>('payment_id as n'),
    ).to.deep.equal([{ n: 1 }]);
  });

  it("expires_in: below 60 or above the method's expiry → 400 naming expires_in, and nothing is created", async () => {
    const { db } = await getStack();
    const before = await db('payments').where({ merchant_id: developer.merchantId }).count<{ n: number }[]>('id as n');
    for (const expiresIn of [59, 601, 0, -5, 90.5, '120']) {
      const response = await call('/v1/payments', {
        key: developer.key,
        body: { ...MOBILE, phone_number: '+250788000003', expires_in: expiresIn },
      });
      expect(response.status, String(expiresIn)).to.equal(400);
      expect(response.body.error.code).to.equal('validation_error');
      expect(response.body.error.message).to.include('expires_in');
    }
    const card = await call('/v1/payments', {
      key: developer.key,
      body: { amount: 2500, currency: 'USD', payment_method: 'card', expires_in: 86_401 },
    });
    expect(card.status).to.equal(400);
    expect(
      await db('payments').where({ merchant_id: developer.merchantId }).count<{ n: number }[]>('id as n'),
    ).to.deep.equal(before);
    const shortened = await create({ ...MOBILE, phone_number: '+250788000003', expires_in: 60 });
    expect(Date.parse(shortened.expires_at) - Date.parse(shortened.created_at)).to.equal(60_000);
  });
});
