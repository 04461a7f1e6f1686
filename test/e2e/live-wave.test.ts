/**
 * A live merchant takes Wave payments end to end (wave, docs/providers.md#wave-wave): the whole service (API and worker
 * processes) in live mode pointed at the Wave fake, whose signed events go to the API's callback route. A payment
 * (generic with `operator: wave`, or merchant-scoped `payment_method: wave`) opens one checkout session, shows the
 * customer its `wave_launch_url` as a redirect `next_action`, and completes by Wave's event (or, with the event lost,
 * by the status call), with Wave's transaction id as its receipt number; a creation whose answer was lost still opens
 * one session. A failed attempt leaves the payment pending until the session lapses, then fails with Wave's reason. A
 * forged event changes nothing. A cancel expires the session. A refund returns the whole payment; a partial one is
 * refused with 409 before anything reaches Wave. Bad input (another currency, a number Wave does not serve) is 400
 * naming the field.
 */
import { expect } from 'chai';
import { startWaveFake, WAVE_FAKE_NUMBERS, type WaveFake, type WaveSession } from '../fakes/wave-fake';
import { uniqueNumber } from '../helpers/adapters';
import {
  approvedLiveMerchant,
  callService,
  paymentEventDataOf,
  providerReferenceOf,
  startLiveService,
  waitForLivePayment,
  type LiveService,
} from '../helpers/live-providers';
import { getStack } from '../helpers/stack';

const API_KEY = 'wave_sn_prod_e2e-key';
const WEBHOOK_SECRET = 'wave_sn_WHS_e2e-secret';

/** A Senegalese number (+22178…) ending in `ending` (four digits), unique per call. */
const senegalNumber = (ending: string) => uniqueNumber('+22178', 3, ending);

describe('live Wave payments end to end, against the Wave fake (docs/providers.md#wave-wave)', function () {
  this.timeout(180_000);
  let fake: WaveFake;
  let service: LiveService;
  let liveKey: string;
  let merchantId: string;

  before(async () => {
    fake = await startWaveFake({ apiKey: API_KEY, webhookSecret: WEBHOOK_SECRET, approvalDelayMs: 300 });
    service = await startLiveService({
      WAVE_BASE_URL: fake.url,
      WAVE_API_KEY: API_KEY,
      WAVE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      WAVE_SUCCESS_URL: 'https://shop.example/paid',
      WAVE_ERROR_URL: 'https://shop.example/not-paid',
      WAVE_TIMEOUT_MS: '2000',
    });
    fake.setMode({ webhookUrl: `${service.baseUrl}/v1/provider-callbacks/wave` });
    ({ liveKey, merchantId } = await approvedLiveMerchant());
  });

  after(async () => {
    await service?.stop();
    await fake?.close();
  });

  /** Creates a live XOF 5000 payment from `phone` by `operator: wave`, with `extra` fields. */
  async function createPayment(phone: string, extra: Record<string, unknown> = {}): Promise<any> {
    const created = await callService(service.baseUrl, '/v1/payments', liveKey, {
      body: {
        amount: 5_000,
        currency: 'XOF',
        payment_method: 'mobile_money',
        operator: 'wave',
        phone_number: phone,
        description: 'Basket',
        ...extra,
      },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body.data).to.include({ status: 'pending', provider: 'wave' });
    return created.body.data;
  }

  /** The payment `id` once `predicate` holds (polling the live API; throws after `timeoutMs`, default 30 s). */
  const until = (id: string, predicate: (payment: any) => boolean, timeoutMs?: number) =>
    waitForLivePayment(service.baseUrl, liveKey, id, predicate, timeoutMs);

  /** The sessions the fake opened for payment `id`. */
  const sessionsOf = (id: string) => fake.sessions.filter((s) => s.client_reference === id);

  /** The session the fake opened for payment `id`, once it has it. */
  async function sessionOf(id: string): Promise<WaveSession> {
    for (let i = 0; i < 100; i += 1) {
      const session = sessionsOf(id)[0];
      if (session) return session;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the fake opened no session for ${id}`);
  }

  it("sends the customer to the session's wave_launch_url and completes by Wave's signed event, with Wave's transaction id", async () => {
    const phone = senegalNumber(WAVE_FAKE_NUMBERS.silent);
    const created = await createPayment(phone);
    const session = await sessionOf(created.id);
    expect(session).to.include({ amount: '5000', currency: 'XOF', restrict_payer_mobile: phone });
    const waiting = await until(created.id, (p) => p.next_action !== null);
    expect(waiting.next_action).to.deep.equal({ type: 'redirect', url: session.wave_launch_url });
    fake.pay(session.id);
    const paid = await until(created.id, (p) => p.status === 'completed');
    expect(paid).to.include({ provider_receipt_number: session.transaction_id, next_action: null });
    expect(await providerReferenceOf(created.id)).to.equal(session.id);
    const event = fake.events.find((e) => e.body.includes(session.id));
    expect(event?.status, 'the service took the signed event').to.equal(200);
    expect((await paymentEventDataOf(created.id, 'payment.completed'))?.provider_receipt_number).to.equal(
      session.transaction_id,
    );
    expect(sessionsOf(created.id), 'one session').to.have.length(1);
  });

  it('settles by the status call when the event is lost', async () => {
    fake.setMode({ webhooks: 'off' });
    try {
      const created = await createPayment(senegalNumber('6002'));
      const paid = await until(created.id, (p) => p.status === 'completed', 60_000);
      expect(paid.provider_receipt_number).to.equal((await sessionOf(created.id)).transaction_id);
      expect(fake.events.filter((e) => e.body.includes(created.id))).to.deep.equal([]);
    } finally {
      fake.setMode({ webhooks: 'once' });
    }
  });

  it("opens one session when the creation's answer is lost: the retry finds it by client_reference", async () => {
    fake.injectFaults('hang', 1, ['/v1/checkout/sessions']);
    const created = await createPayment(senegalNumber('6003'));
    const paid = await until(created.id, (p) => p.status === 'completed', 60_000);
    expect(paid.status).to.equal('completed');
    expect(sessionsOf(created.id), 'exactly one session').to.have.length(1);
  });

  it("keeps a payment pending after a failed attempt, then fails it with Wave's reason once the session lapses", async () => {
    const created = await createPayment(senegalNumber(WAVE_FAKE_NUMBERS.insufficient));
    const session = await sessionOf(created.id);
    for (let i = 0; i < 50 && session.payment_status !== 'cancelled'; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 100));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await callService(service.baseUrl, `/v1/payments/${created.id}`, liveKey)).body.data.status).to.equal(
      'pending',
    );
    fake.lapse(session.id);
    const failed = await until(created.id, (p) => p.status === 'failed', 60_000);
    expect(failed).to.include({ failure_code: 'insufficient_funds' });
  });

  it('answers 401 to an event not signed with the webhook secret and changes nothing', async () => {
    const created = await createPayment(senegalNumber(WAVE_FAKE_NUMBERS.silent));
    const session = await sessionOf(created.id);
    const body = JSON.stringify({
      id: 'AE_forged',
      type: 'checkout.session.completed',
      data: { ...session, refunded: undefined, checkout_status: 'complete', payment_status: 'succeeded' },
    });
    const forged = await fetch(`${service.baseUrl}/v1/provider-callbacks/wave`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'wave-signature': `t=1,v1=${'0'.repeat(64)}` },
      body,
    });
    expect(forged.status).to.equal(401);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await callService(service.baseUrl, `/v1/payments/${created.id}`, liveKey)).body.data.status).to.equal(
      'pending',
    );
  });

  it('cancels a payment by expiring its session', async () => {
    const created = await createPayment(senegalNumber(WAVE_FAKE_NUMBERS.silent));
    const session = await sessionOf(created.id);
    await until(created.id, (p) => p.next_action !== null);
    const cancel = await callService(service.baseUrl, `/v1/payments/${created.id}/cancel`, liveKey, {
      body: { reason: 'changed my mind' },
    });
    expect(cancel.status, JSON.stringify(cancel.body)).to.be.oneOf([200, 202]);
    const cancelled = await until(created.id, (p) => p.status === 'cancelled');
    expect(cancelled).to.include({ next_action: null });
    expect(session.checkout_status).to.equal('expired');
  });

  it('takes the merchant-scoped method wave', async () => {
    const created = await callService(service.baseUrl, `/v1/api/merchants/${merchantId}/payments`, '', {
      headers: { 'x-api-key': liveKey },
      body: {
        // Two decimals, `.00` for a currency without minor units (docs/limits.md#amounts).
        amount: '5000.00',
        currency: 'XOF',
        payment_method: 'wave',
        payment_method_data: { phone_number: senegalNumber('6007') },
      },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(200);
    expect(created.body).to.include({ payment_method: 'wave' });
    await until(created.body.id, (p) => p.status === 'completed', 60_000);
  });

  it('refuses with 400 naming the field a currency Wave does not take and a number of a country it does not serve', async () => {
    const body = { amount: 5_000, currency: 'XOF', payment_method: 'mobile_money', operator: 'wave' };
    const kes = await callService(service.baseUrl, '/v1/payments', liveKey, {
      body: { ...body, currency: 'KES', phone_number: senegalNumber('6008') },
    });
    expect(kes.status).to.equal(400);
    expect(JSON.stringify(kes.body.error)).to.include('currency');
    const rwanda = await callService(service.baseUrl, '/v1/payments', liveKey, {
      body: { ...body, phone_number: '+250788123456' },
    });
    expect(rwanda.status).to.equal(400);
    expect(JSON.stringify(rwanda.body.error)).to.include('operator');
  });

  describe("refunds by Wave's refund of the checkout session", () => {
    const refund = (id: string, body: object = {}) =>
      callService(service.baseUrl, `/v1/payments/${id}/refund`, liveKey, { body });

    it('refunds the whole payment', async () => {
      const created = await createPayment(senegalNumber('6101'));
      const payment = await until(created.id, (p) => p.status === 'completed');
      expect(payment.refundable).to.deep.equal({ allowed: true, partial: false, reason: null });
      const asked = await refund(payment.id);
      expect(asked.status, JSON.stringify(asked.body)).to.equal(201);
      const refunded = await until(payment.id, (p) => p.status === 'refunded', 60_000);
      expect(refunded).to.include({ amount_refunded: 5_000, amount_refund_pending: 0 });
      expect((await sessionOf(payment.id)).refunded).to.equal(true);
    });

    it('refuses a partial refund with 409 before anything reaches Wave', async () => {
      const created = await createPayment(senegalNumber('6102'));
      const payment = await until(created.id, (p) => p.status === 'completed');
      const session = await sessionOf(payment.id);
      const partial = await refund(payment.id, { amount: 1_000 });
      expect(partial.status, JSON.stringify(partial.body)).to.equal(409);
      expect(partial.body.error.code).to.equal('payment_not_refundable');
      expect(fake.requests.filter((r) => r.path === `/v1/checkout/sessions/${session.id}/refund`)).to.deep.equal([]);
      const { db } = await getStack();
      expect(await db('refunds').where({ payment_id: payment.id }).pluck('id'), 'nothing recorded').to.deep.equal([]);
    });
  });
});
