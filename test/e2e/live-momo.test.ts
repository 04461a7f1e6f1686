/**
 * A live merchant takes an MTN MoMo payment end to end (docs/providers.md#mtn-momo): the whole service (API and worker
 * processes) in live mode pointed at the MoMo fake. The payment settles by the fake's callback
 * (authenticated by the per-payment token in its URL, then confirmed with the status call), and
 * with callbacks switched off by polling; declines carry MoMo's reason; refunds go through MoMo's Disbursement
 * Refund (pending, then settled by its status call; a refund MoMo fails releases its reservation; one whose answers
 * time out is answered pending and settled later, sent to MoMo once); a callback with a wrong token changes nothing.
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
import { getStack } from '../helpers/stack';

const API_USER = '3f1c1a0e-7b7a-4d2e-9a51-3c1f0b2d4e11';
/** The Disbursement product's credentials, which MoMo refunds need. */
const DISBURSEMENT = {
  apiUser: '9d2e3f4a-5b6c-4d7e-8f90-a1b2c3d4e5f6',
  apiKey: 'momo-disbursement-key',
  subscriptionKey: 'momo-disbursement-subscription',
};

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
      disbursementApiUser: DISBURSEMENT.apiUser,
      disbursementApiKey: DISBURSEMENT.apiKey,
      disbursementSubscriptionKey: DISBURSEMENT.subscriptionKey,
    });
    service = await startLiveService({
      MOMO_BASE_URL: fake.url,
      MOMO_API_USER: API_USER,
      MOMO_API_KEY: 'momo-api-key',
      MOMO_SUBSCRIPTION_KEY: 'momo-subscription',
      MOMO_TARGET_ENVIRONMENT: 'mtnrwanda',
      MOMO_TIMEOUT_MS: '3000',
      MOMO_DISBURSEMENT_API_USER: DISBURSEMENT.apiUser,
      MOMO_DISBURSEMENT_API_KEY: DISBURSEMENT.apiKey,
      MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: DISBURSEMENT.subscriptionKey,
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

  /** The refund rows of payment `id`, oldest first: [amount, status]. */
  async function refundsOf(id: string): Promise<[number, string][]> {
    const { db } = await getStack();
    const rows = await db('refunds').where({ payment_id: id }).orderBy('created_at').select('amount', 'status');
    return rows.map((r) => [Number(r.amount), r.status as string]);
  }

  /** Refunds `amount` of payment `id` (the whole rest without one) through the live API. */
  const refund = (id: string, amount?: number) =>
    callService(service.baseUrl, `/v1/payments/${id}/refund`, liveKey, {
      body: amount === undefined ? {} : { amount },
    });

  it("refunds live through MoMo's Disbursement Refund: pending at MoMo's 202, completed by its status; part, then the rest", async () => {
    const created = await createPayment('100003');
    const completed = await waitForLivePayment(service.baseUrl, liveKey, created.id, (p) => p.status === 'completed');
    expect(completed.refundable).to.deep.equal({ allowed: true, partial: true, reason: null });
    const reference = (await providerReferenceOf(created.id)) as string;
    const part = await refund(created.id, 500);
    expect(part.status, JSON.stringify(part.body)).to.equal(201);
    expect(part.body.data).to.include({ amount: 500, status: 'pending' });
    const afterPart = await waitForLivePayment(
      service.baseUrl,
      liveKey,
      created.id,
      (p) => p.amount_refunded === 500 && p.amount_refund_pending === 0,
      60_000,
    );
    expect(afterPart.status).to.equal('completed');
    const atMomo = [...fake.refunds.values()].filter((r) => r.referenceIdToRefund === reference);
    expect(atMomo.map((r) => [r.amount, r.currency, r.externalId, r.status])).to.deep.equal([
      ['500', 'RWF', part.body.data.id, 'SUCCESSFUL'],
    ]);
    expect((await refund(created.id)).body.data).to.include({ amount: 1000 });
    const refunded = await waitForLivePayment(
      service.baseUrl,
      liveKey,
      created.id,
      (p) => p.status === 'refunded',
      60_000,
    );
    expect(refunded.amount_refunded).to.equal(1500);
    expect(await refundsOf(created.id)).to.deep.equal([
      [500, 'completed'],
      [1000, 'completed'],
    ]);
  });

  it('fails a refund MoMo FAILS (NOT_ENOUGH_FUNDS): the reservation is released and the payment refundable again', async () => {
    const created = await createPayment('100004');
    await waitForLivePayment(service.baseUrl, liveKey, created.id, (p) => p.status === 'completed');
    fake.setMode({ refunds: 'hold' });
    try {
      const asked = await refund(created.id);
      expect(asked.body.data).to.include({ amount: 1500, status: 'pending' });
      const held = [...fake.refunds.values()].find((r) => r.externalId === asked.body.data.id);
      fake.decideRefund(held!.referenceId, 'FAILED', 'NOT_ENOUGH_FUNDS');
      for (let i = 0; i < 240 && (await refundsOf(created.id))[0]?.[1] !== 'failed'; i += 1)
        await new Promise((resolve) => setTimeout(resolve, 250));
      expect(await refundsOf(created.id)).to.deep.equal([[1500, 'failed']]);
      const released = (await callService(service.baseUrl, `/v1/payments/${created.id}`, liveKey)).body.data;
      expect(released).to.deep.include({
        status: 'completed',
        amount_refunded: 0,
        amount_refund_pending: 0,
        refundable: { allowed: true, partial: true, reason: null },
      });
    } finally {
      fake.setMode({ refunds: 'auto' });
    }
  });

  it('answers pending to a refund whose answers time out, settles it by its status afterwards, and refunds it once', async () => {
    const created = await createPayment('100005');
    await waitForLivePayment(service.baseUrl, liveKey, created.id, (p) => p.status === 'completed');
    // MoMo takes the refund, and no answer comes back within MOMO_TIMEOUT_MS, three times over.
    fake.injectFaults('hang', 3, ['/disbursement/v1_0/refund']);
    const asked = await refund(created.id);
    expect(asked.status, JSON.stringify(asked.body)).to.equal(201);
    expect(asked.body.data.status).to.equal('pending');
    const refunded = await waitForLivePayment(
      service.baseUrl,
      liveKey,
      created.id,
      (p) => p.status === 'refunded',
      90_000,
    );
    expect(refunded.amount_refunded).to.equal(1500);
    expect([...fake.refunds.values()].filter((r) => r.externalId === asked.body.data.id)).to.have.length(1);
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
