/**
 * End to end (real app, real worker, real dev server, real PostgreSQL): a merchant's receiver on
 * 127.0.0.1 gets `payment.created` and `payment.completed` of a real payment, verifies every
 * delivery with the npm `standardwebhooks` library (unchanged) and with the hex scheme, and
 * de-duplicates on `webhook-id` as docs/webhooks.md#signatures asks (docs/webhooks.md#retries).
 */
import { expect } from 'chai';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { startReceiver, verifyDelivery, type Receiver } from '../helpers/receiver';

describe('webhook deliveries of real payments, verified as a merchant would (docs/webhooks.md#signatures)', function () {
  this.timeout(60_000);
  let receiver: Receiver;
  let developer: TestDeveloper;
  let webhook: { id: string; secret: string };
  /** What the merchant processed: each event id once, whatever arrives twice. */
  const processed = new Map<string, { id: string; event: string; created_at: string; data: any }>();
  let rejected = 0;

  before(async () => {
    receiver = await startReceiver();
    developer = await registerDeveloper();
    const created = await call('/v1/developer/webhooks', {
      key: developer.key,
      body: { url: `${receiver.origin}/merchant/hooks`, events: ['payment.created', 'payment.completed'] },
    });
    expect(created.status).to.equal(201);
    webhook = created.body.data;
    // The merchant's handler: verify both signatures, then process each event id once.
    receiver.respond((request) => {
      try {
        const payload = verifyDelivery(request, webhook.secret);
        if (!processed.has(payload.id)) processed.set(payload.id, payload);
        return { status: 200, body: 'ok' };
      } catch {
        rejected += 1;
        return { status: 400, body: 'bad signature' };
      }
    });
  });

  after(async () => {
    await receiver.close();
  });

  function requestsFor(paymentId: string) {
    return receiver.requests.filter((r) => JSON.parse(r.body).data.id === paymentId);
  }

  async function deliveredEvents(paymentId: string, count: number): Promise<string[]> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const events = [...processed.values()].filter((p) => p.data.id === paymentId).map((p) => p.event);
      if (events.length >= count || Date.now() > deadline) return events;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('delivers payment.created and payment.completed of a generic payment once each, both signatures verifying', async () => {
    const response = await call('/v1/payments', {
      key: developer.key,
      body: {
        amount: 1500,
        currency: 'RWF',
        payment_method: 'mobile_money',
        phone_number: '+250788000001',
        description: 'Order 42',
      },
    });
    expect(response.status).to.equal(201);
    const paymentId = response.body.data.id as string;
    await waitForPayment(developer.key, paymentId, (p) => p.status === 'completed');
    expect(await deliveredEvents(paymentId, 2)).to.have.members(['payment.created', 'payment.completed']);
    expect(rejected).to.equal(0);

    const payloads = [...processed.values()].filter((p) => p.data.id === paymentId);
    for (const payload of payloads) {
      expect(Object.keys(payload).sort()).to.deep.equal(['created_at', 'data', 'event', 'id']);
      expect(payload.id).to.match(/^evt_[0-9A-Za-z]{24}$/);
      expect(payload.data).to.include({
        id: paymentId,
        amount: 1500,
        currency: 'RWF',
        payment_method: 'mobile_money',
        phone_number: '+250788000001',
      });
    }
    const completed = payloads.find((p) => p.event === 'payment.completed')!;
    expect(completed.data.status).to.equal('completed');
    // The ids are those of the events API (docs/payments.md#events).
    const shown = await call(`/v1/developer/events/${completed.id}`, { key: developer.key });
    expect(shown.body.data).to.include({ id: completed.id, event: 'payment.completed' });

    // The API and the workflow both write payment.created; it is still sent once.
    await new Promise((r) => setTimeout(r, 500));
    const sent = requestsFor(paymentId).map((r) => r.headers['webhook-id']);
    expect(sent).to.have.length(2);
    expect(new Set(sent).size).to.equal(2);
  });

  it('lists the deliveries as succeeded, and a retried delivery repeats the event id, which the merchant de-duplicates', async () => {
    const response = await call('/v1/payments', {
      key: developer.key,
      body: { amount: 2500, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' },
    });
    const paymentId = response.body.data.id as string;
    await deliveredEvents(paymentId, 2);
    const completedId = [...processed.values()].find(
      (p) => p.data.id === paymentId && p.event === 'payment.completed',
    )!.id;

    let delivery: any;
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      const log = await call(`/v1/developer/webhooks/${webhook.id}/deliveries?limit=100`, { key: developer.key });
      delivery = log.body.data.deliveries.find((d: any) => d.event_id === completedId);
      if (delivery?.status === 'succeeded') break;
    }
    expect(delivery).to.include({ status: 'succeeded', attempt_count: 1, event: 'payment.completed' });
    expect(delivery.attempts[0]).to.include({ attempt: 1, status_code: 200, response_body: 'ok', error: null });

    const retried = await call(`/v1/developer/webhooks/${webhook.id}/deliveries/${delivery.id}/retry`, {
      key: developer.key,
      method: 'POST',
    });
    expect(retried.status).to.equal(201);
    for (const deadline = Date.now() + 10_000; Date.now() < deadline && requestsFor(paymentId).length < 3;)
      await new Promise((r) => setTimeout(r, 100));
    const arrivals = requestsFor(paymentId).map((r) => r.headers['webhook-id']);
    expect(arrivals.filter((id) => id === completedId)).to.have.length(2);
    expect([...processed.values()].filter((p) => p.data.id === paymentId)).to.have.length(2);
    expect(rejected).to.equal(0);
  });

  it('delivers payment.created of the merchant-scoped family too (docs/payments.md#events)', async () => {
    const response = await call(`/v1/api/merchants/${developer.merchantId}/payments`, {
      headers: { 'x-api-key': developer.key },
      body: {
        amount: '1500.00',
        currency: 'RWF',
        payment_method: 'momo',
        payment_method_data: { phone_number: '+250788000001' },
      },
    });
    expect(response.status).to.equal(200);
    expect(await deliveredEvents(response.body.id, 2)).to.have.members(['payment.created', 'payment.completed']);
  });
});
