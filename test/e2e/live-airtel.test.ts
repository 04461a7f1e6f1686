/**
 * A live merchant takes an Airtel Money payment end to end (mobile_money_b, docs/providers.md#airtel-money): the whole
 * service
 * (API and worker processes) in live mode pointed at the Airtel fake. The payment settles by the
 * fake's signed callback, and with callbacks switched off by polling; a whole refund goes through,
 * a partial one is refused with 409 before anything is recorded or sent; a callback with a wrong hash changes nothing.
 */
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { AIRTEL_FAKE_NUMBERS, startAirtelFake, type AirtelFake } from '../fakes/airtel-fake';
import { getStack } from '../helpers/stack';
import {
  approvedLiveMerchant,
  callService,
  paymentEventDataOf,
  providerReferenceOf,
  startLiveService,
  waitForLivePayment,
  type LiveService,
} from '../helpers/live-providers';

const PRIVATE_KEY = 'airtel-callback-private-key-for-tests';

describe('live Airtel Money payments end to end, against the Airtel fake (docs/providers.md#airtel-money)', function () {
  this.timeout(180_000);
  let fake: AirtelFake;
  let service: LiveService;
  let liveKey: string;

  before(async () => {
    fake = await startAirtelFake({
      clientId: 'client',
      clientSecret: 'secret',
      callbackPrivateKey: PRIVATE_KEY,
      approvalDelayMs: 300,
    });
    service = await startLiveService({
      AIRTEL_BASE_URL: fake.url,
      AIRTEL_CLIENT_ID: 'client',
      AIRTEL_CLIENT_SECRET: 'secret',
      AIRTEL_CALLBACK_PRIVATE_KEY: PRIVATE_KEY,
      AIRTEL_TIMEOUT_MS: '3000',
    });
    fake.setMode({ callbackUrl: `${service.baseUrl}/v1/provider-callbacks/mobile_money_b`, callbacks: 'once' });
    ({ liveKey } = await approvedLiveMerchant());
  });

  after(async () => {
    await service?.stop();
    await fake?.close();
  });

  /** Creates a live RWF payment from an Airtel Rwanda number ending in `ending`. */
  async function createPayment(ending: string, amount = 1500): Promise<any> {
    const created = await callService(service.baseUrl, '/v1/payments', liveKey, {
      body: {
        amount,
        currency: 'RWF',
        payment_method: 'mobile_money',
        provider: 'mobile_money_b',
        phone_number: `+250722123${ending}`,
        description: 'Basket',
      },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.data;
  }

  it("collects a payment that settles by the provider's callback, with the provider's reference", async () => {
    const created = await createPayment('000');
    expect(created).to.include({ status: 'pending', provider: 'mobile_money_b' });
    const paid = await waitForLivePayment(service.baseUrl, liveKey, created.id, (p) => p.status === 'completed');
    const reference = (await providerReferenceOf(created.id)) as string;
    const transaction = fake.transactions.get(reference);
    // Airtel's airtel_money_id, the payer's receipt id, is on the payment and its event.
    expect(transaction?.airtelMoneyId).to.be.a('string').and.not.equal('');
    expect(paid.provider_receipt_number).to.equal(transaction?.airtelMoneyId);
    expect((await paymentEventDataOf(created.id, 'payment.completed'))?.provider_receipt_number).to.equal(
      transaction?.airtelMoneyId,
    );
    expect(transaction, `the fake holds ${reference}`).to.include({
      status: 'TS',
      amount: 1500,
      country: 'RW',
      currency: 'RWF',
      msisdn: '722123000',
    });
    const callback = fake.callbacks.find((c) => c.body.includes(reference));
    expect(callback?.status, 'the service took the signed callback').to.equal(200);
    const pushes = fake.requests.filter((r) => r.method === 'POST' && r.path === '/merchant/v1/payments/');
    expect(pushes.filter((r) => r.raw.includes(reference))).to.have.length(1);
  });

  it('settles by polling when the provider never calls back', async () => {
    fake.setMode({ callbacks: 'off' });
    try {
      const created = await createPayment('001');
      const paid = await waitForLivePayment(
        service.baseUrl,
        liveKey,
        created.id,
        (p) => p.status === 'completed',
        60_000,
      );
      expect(paid.status).to.equal('completed');
    } finally {
      fake.setMode({ callbacks: 'once' });
    }
  });

  it('maps a decline for insufficient funds onto failure_code insufficient_funds', async () => {
    const created = await createPayment(AIRTEL_FAKE_NUMBERS.insufficientFunds);
    const failed = await waitForLivePayment(service.baseUrl, liveKey, created.id, (p) => p.status === 'failed');
    expect(failed.failure_code).to.equal('insufficient_funds');
  });

  it('refunds a whole payment; refuses a partial one with 409 and records nothing, as Airtel refunds whole payments only', async () => {
    const created = await createPayment('002');
    await waitForLivePayment(service.baseUrl, liveKey, created.id, (p) => p.status === 'completed');
    const partial = await callService(service.baseUrl, `/v1/payments/${created.id}/refund`, liveKey, {
      body: { amount: 500 },
    });
    expect(partial.status, JSON.stringify(partial.body)).to.equal(409);
    expect(partial.body.error.code).to.equal('payment_not_refundable');
    expect(partial.body.error.message).to.match(/only be refunded whole: refund 1500/);
    const { db } = await getStack();
    expect(await db('refunds').where({ payment_id: created.id }).select('id')).to.deep.equal([]);
    expect((await callService(service.baseUrl, `/v1/payments/${created.id}`, liveKey)).body.data).to.include({
      status: 'completed',
      amount_refunded: 0,
    });
    const whole = await callService(service.baseUrl, `/v1/payments/${created.id}/refund`, liveKey, {
      body: { amount: 1500 },
    });
    expect(whole.status, JSON.stringify(whole.body)).to.equal(201);
    const refunded = await waitForLivePayment(service.baseUrl, liveKey, created.id, (p) => p.status === 'refunded');
    expect(refunded.amount_refunded).to.equal(1500);
    expect(fake.requests.filter((r) => r.path === '/standard/v1/payments/refund')).to.have.length(1);
  });

  it('answers 401 to a callback with a wrong hash and changes nothing', async () => {
    const created = await createPayment(AIRTEL_FAKE_NUMBERS.neverAnswers);
    const reference = await providerReferenceOf(created.id);
    expect(reference).to.match(/^RW/);
    const transaction = { id: reference, message: 'Paid', status_code: 'TS', airtel_money_id: 'MP000000001' };
    const forged = {
      transaction,
      hash: createHmac('sha256', 'not-the-key').update(JSON.stringify(transaction)).digest('base64'),
    };
    const answer = await fetch(`${service.baseUrl}/v1/provider-callbacks/mobile_money_b`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(forged),
    });
    expect(answer.status).to.equal(401);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const still = (await callService(service.baseUrl, `/v1/payments/${created.id}`, liveKey)).body.data;
    expect(still.status).to.be.oneOf(['pending', 'processing']);
  });
});
