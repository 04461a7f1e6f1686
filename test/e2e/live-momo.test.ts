/**
 * A live merchant takes an MTN MoMo payment end to end (docs/providers.md#mtn-momo): the whole service (API and worker
 * processes) in live mode pointed at the MoMo fake. The payment settles by the fake's callback
 * (authenticated by the per-payment token in its URL, then confirmed with the status call), and
 * with callbacks switched off by polling; declines carry MoMo's reason; refunds are refused with 409
 * (MoMo collections have none); a callback with a wrong token changes nothing.
 */
import { expect } from 'chai';
import { MOMO_FAKE_NUMBERS, startMomoFake, type MomoFake } from '../fakes/momo-fake';
import {
  approvedLiveMerchant,
  callService,
  paymentEventDataOf,
  providerReferenceOf,
  startLiveService,
  waitForLivePayment,
  type LiveService,
} from '../helpers/live-providers';

const API_USER = '3f1c1a0e-7b7a-4d2e-9a51-3c1f0b2d4e11';

describe('live MTN MoMo payments end to end, against the MoMo fake (docs/providers.md#mtn-momo)', function () {
  this.timeout(180_000);
  let fake: MomoFake;
  let service: LiveService;
  let liveKey: string;

  before(async () => {
    fake = await startMomoFake({
      apiUser: API_USER,
      apiKey: 'momo-api-key',
      subscriptionKey: 'momo-subscription',
      approvalDelayMs: 300,
      callbackMethod: 'PUT',
    });
    service = await startLiveService({
      MOMO_BASE_URL: fake.url,
      MOMO_API_USER: API_USER,
      MOMO_API_KEY: 'momo-api-key',
      MOMO_SUBSCRIPTION_KEY: 'momo-subscription',
      MOMO_TARGET_ENVIRONMENT: 'mtnrwanda',
      MOMO_TIMEOUT_MS: '3000',
    });
    ({ liveKey } = await approvedLiveMerchant());
  });

  after(async () => {
    await service?.stop();
    await fake?.close();
  });

  /** Creates a live RWF payment from an MTN Rwanda number ending in `ending` (six digits). */
  async function createPayment(ending: string): Promise<any> {
    const created = await callService(service.baseUrl, '/v1/payments', liveKey, {
      body: {
        amount: 1500,
        currency: 'RWF',
        payment_method: 'mobile_money',
        provider: 'momo',
        phone_number: `+250788${ending}`,
        description: 'Basket',
      },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return created.body.data;
  }

  it("collects a payment that settles by MoMo's callback (PUT), one request-to-pay per payment", async () => {
    const created = await createPayment('100001');
    expect(created).to.include({ status: 'pending', provider: 'momo' });
    const paid = await waitForLivePayment(service.baseUrl, liveKey, created.id, (p) => p.status === 'completed');
    const reference = (await providerReferenceOf(created.id)) as string;
    // MoMo's financialTransactionId, the payer's receipt id, is on the payment and its event.
    const receipt = fake.transactions.get(reference)?.financialTransactionId;
    expect(receipt).to.match(/^[0-9]{9}$/);
    expect(paid.provider_receipt_number).to.equal(receipt);
    expect((await paymentEventDataOf(created.id, 'payment.completed'))?.provider_receipt_number).to.equal(receipt);
    expect(reference).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(fake.transactions.get(reference)).to.include({
      amount: '1500',
      currency: 'RWF',
      externalId: created.id,
      status: 'SUCCESSFUL',
      environment: 'mtnrwanda',
    });
    const callback = fake.callbacks.find((c) => c.url.includes(reference));
    expect(callback, 'a callback was sent to the per-payment URL').to.not.equal(undefined);
    expect(callback?.url).to.match(/\/v1\/provider-callbacks\/momo\?reference=[0-9a-f-]{36}&token=[0-9a-f]{64}$/);
    expect(callback?.status, 'the service took the callback').to.equal(200);
    expect(
      fake.requests.filter(
        (r) =>
          r.method === 'POST' &&
          r.path === '/collection/v1_0/requesttopay' &&
          r.headers['x-reference-id'] === reference,
      ),
    ).to.have.length(1);
  });

  it('settles by polling when MoMo never calls back', async () => {
    fake.setMode({ callbacks: 'off' });
    try {
      const created = await createPayment('100002');
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

  it("maps MTN's sandbox numbers: rejected → declined, expired → expired", async () => {
    const rejected = await createPayment(MOMO_FAKE_NUMBERS.rejected);
    const expired = await createPayment(MOMO_FAKE_NUMBERS.expired);
    expect(
      (await waitForLivePayment(service.baseUrl, liveKey, rejected.id, (p) => p.status === 'failed')).failure_code,
    ).to.equal('declined');
    expect(
      (await waitForLivePayment(service.baseUrl, liveKey, expired.id, (p) => p.status === 'failed')).failure_code,
    ).to.equal('expired');
  });

  it('refuses refunds with 409: MoMo collections cannot be refunded through the API', async () => {
    const created = await createPayment('100003');
    await waitForLivePayment(service.baseUrl, liveKey, created.id, (p) => p.status === 'completed');
    const refund = await callService(service.baseUrl, `/v1/payments/${created.id}/refund`, liveKey, {
      body: { amount: 500 },
    });
    expect(refund.status, JSON.stringify(refund.body)).to.equal(409);
    const after = (await callService(service.baseUrl, `/v1/payments/${created.id}`, liveKey)).body.data;
    expect(after).to.include({ status: 'completed', amount_refunded: 0 });
  });

  it("refuses a cancel with 409: MoMo's request-to-pay cannot be withdrawn; the customer's approval then completes it (docs/payments.md#cancel-and-refund)", async () => {
    const created = await createPayment(MOMO_FAKE_NUMBERS.ongoing);
    const cancel = await callService(service.baseUrl, `/v1/payments/${created.id}/cancel`, liveKey, {
      body: { reason: 'changed my mind' },
    });
    expect(cancel.status, JSON.stringify(cancel.body)).to.equal(409);
    expect(cancel.body.error.code).to.equal('payment_not_cancellable');
    expect(cancel.body.error.message).to.include('cannot withdraw');
    const after = (await callService(service.baseUrl, `/v1/payments/${created.id}`, liveKey)).body.data;
    expect(after).to.include({ status: 'pending', cancellation_reason: null });
    // The prompt stays open at MTN: the customer approves it, and the payment completes and is booked.
    fake.decide((await providerReferenceOf(created.id)) as string, 'SUCCESSFUL');
    const completed = await waitForLivePayment(service.baseUrl, liveKey, created.id, (p) => p.status === 'completed');
    expect(completed).to.include({ status: 'completed', amount_refunded: 0 });
  });

  it('answers 401 to a callback with a wrong token and changes nothing', async () => {
    const created = await createPayment(MOMO_FAKE_NUMBERS.ongoing);
    const reference = await providerReferenceOf(created.id);
    const body = JSON.stringify({
      externalId: created.id,
      amount: '1500',
      currency: 'RWF',
      status: 'SUCCESSFUL',
      financialTransactionId: '123456789',
      payer: { partyIdType: 'MSISDN', partyId: '250788123453' },
    });
    const forged = await fetch(
      `${service.baseUrl}/v1/provider-callbacks/momo?reference=${reference}&token=${'0'.repeat(64)}`,
      { method: 'PUT', headers: { 'content-type': 'application/json' }, body },
    );
    expect(forged.status).to.equal(401);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await callService(service.baseUrl, `/v1/payments/${created.id}`, liveKey)).body.data.status).to.be.oneOf([
      'pending',
      'processing',
    ]);
  });
});
