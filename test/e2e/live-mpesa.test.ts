/**
 * A live merchant takes M-Pesa payments end to end (mpesa, docs/providers.md#m-pesa): the whole service (API and worker
 * processes) in live mode pointed at the Daraja fake. A payment settles by Daraja's result callback (to its per-payment
 * URL, then confirmed with the query); with the callback lost, by the query; with the push's answer lost, by the
 * callback that names its CheckoutRequestID, after exactly one push. A cancelled prompt fails as `declined`; a prompt
 * nobody answers fails as `expired` at `expires_at`, and its success reported afterwards is reconciled
 * (docs/payments.md#states). A cancel is refused with 409 (a prompt cannot be withdrawn) and changes nothing. A
 * callback with a wrong token changes nothing. Refunds reverse the whole payment by its receipt number (Daraja's
 * Reversal): reversed or refused by the reversal's result callback, settled by Transaction Status when that callback
 * is lost; a partial refund is refused with 409 before anything reaches Daraja.
 */
import { expect } from 'chai';
import {
  DARAJA_FAKE_NUMBERS,
  REVERSAL_PATH,
  startDarajaFake,
  STK_PUSH_PATH,
  STK_QUERY_PATH,
  TRANSACTION_STATUS_PATH,
  type DarajaFake,
  type DarajaPush,
} from '../fakes/daraja-fake';
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

const CONSUMER_KEY = 'daraja-e2e-consumer-key';
const CONSUMER_SECRET = 'daraja-e2e-consumer-secret';
/** Every call to Daraja's time-out: short, so a push left unanswered is given up quickly. */
const TIMEOUT_MS = 2_000;

/** A Safaricom number (+2547…) ending in `ending` (four digits), unique per call: Daraja locks a number per prompt. */
const safaricomNumber = (ending: string) => uniqueNumber('+25472', 3, ending);

describe('live M-Pesa payments end to end, against the Daraja fake (docs/providers.md#m-pesa)', function () {
  this.timeout(180_000);
  let fake: DarajaFake;
  let service: LiveService;
  let liveKey: string;

  before(async () => {
    fake = await startDarajaFake({ consumerKey: CONSUMER_KEY, consumerSecret: CONSUMER_SECRET, approvalDelayMs: 300 });
    service = await startLiveService({
      MPESA_BASE_URL: fake.url,
      MPESA_CONSUMER_KEY: CONSUMER_KEY,
      MPESA_CONSUMER_SECRET: CONSUMER_SECRET,
      MPESA_SHORTCODE: fake.shortcode,
      MPESA_PASSKEY: fake.passkey,
      MPESA_TIMEOUT_MS: String(TIMEOUT_MS),
      // The initiator M-Pesa's reversals (refunds) need.
      MPESA_INITIATOR_NAME: fake.initiatorName,
      MPESA_SECURITY_CREDENTIAL: fake.securityCredential,
    });
    ({ liveKey } = await approvedLiveMerchant());
  });

  after(async () => {
    await service?.stop();
    await fake?.close();
  });

  /** Creates a live KES 150.00 payment from `phone` (Safaricom's prefixes choose mpesa), with `extra` fields. */
  async function createPayment(phone: string, extra: Record<string, unknown> = {}): Promise<any> {
    const created = await callService(service.baseUrl, '/v1/payments', liveKey, {
      body: {
        amount: 15_000,
        currency: 'KES',
        payment_method: 'mobile_money',
        phone_number: phone,
        description: 'Basket',
        ...extra,
      },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body.data).to.include({ status: 'pending', provider: 'mpesa' });
    return created.body.data;
  }

  /** The payment `id` once `predicate` holds (polling the live API; throws after `timeoutMs`, default 30 s). */
  const until = (id: string, predicate: (payment: any) => boolean, timeoutMs?: number) =>
    waitForLivePayment(service.baseUrl, liveKey, id, predicate, timeoutMs);

  /** The pushes the fake took for `phone` (E.164). */
  const pushesTo = (phone: string) => fake.pushes.filter((p) => `+${p.phoneNumber}` === phone);

  /** The push the fake took for `phone`, once it has it (the create may answer before the worker pushed). */
  async function pushTo(phone: string): Promise<DarajaPush> {
    for (let i = 0; i < 100; i += 1) {
      const push = pushesTo(phone)[0];
      if (push) return push;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the fake got no push for ${phone}`);
  }

  it("collects a payment settled by Daraja's result callback, one push per payment", async () => {
    const phone = safaricomNumber('5001');
    const created = await createPayment(phone);
    await until(created.id, (p) => p.status === 'completed');
    expect(await providerReferenceOf(created.id)).to.equal(created.id);
    const pushes = pushesTo(phone);
    expect(pushes, 'one STK push').to.have.length(1);
    expect(pushes[0]).to.include({ amount: 150, accountReference: created.id.slice(-12) });
    const push = pushes[0]!;
    const callback = fake.callbacks.find((c) => c.body.includes(push.checkoutRequestId));
    expect(callback?.url).to.match(
      new RegExp(`/v1/provider-callbacks/mpesa\\?payment=${created.id}&token=[0-9a-f]{64}$`),
    );
    expect(callback?.status, 'the service took the callback').to.equal(200);
    // The MpesaReceiptNumber of the callback, the id the customer gets by SMS, is on the payment and its event.
    expect(push.receipt).to.match(/^[A-Z0-9]{10}$/);
    const paid = (await callService(service.baseUrl, `/v1/payments/${created.id}`, liveKey)).body.data;
    expect(paid.provider_receipt_number).to.equal(push.receipt);
    const event = await paymentEventDataOf(created.id, 'payment.completed');
    expect(event?.provider_receipt_number, 'payment.completed carries it').to.equal(push.receipt);
  });

  it('settles by the query when the callback is lost', async () => {
    fake.setMode({ callbacks: 'off' });
    try {
      const phone = safaricomNumber('5002');
      const created = await createPayment(phone);
      const paid = await until(created.id, (p) => p.status === 'completed', 60_000);
      expect(paid.status).to.equal('completed');
      // The query names no receipt: without the callback, none is known (docs/providers.md#m-pesa).
      expect(paid.provider_receipt_number).to.equal(null);
      expect(pushesTo(phone)).to.have.length(1);
      expect(
        fake.callbacks.filter((c) => c.url.includes(created.id)),
        'no callback was sent',
      ).to.deep.equal([]);
    } finally {
      fake.setMode({ callbacks: 'once' });
    }
  });

  it("never pushes twice when the push's answer is lost: the callback names the prompt, the query settles it", async () => {
    const phone = safaricomNumber('5003');
    // Daraja sends the prompt and its answer never comes back: the adapter gives up after TIMEOUT_MS.
    fake.injectFaults('hang', 1, [STK_PUSH_PATH]);
    const created = await createPayment(phone);
    const paid = await until(created.id, (p) => p.status === 'completed', 60_000);
    expect(paid.status).to.equal('completed');
    const pushes = pushesTo(phone);
    expect(pushes, 'exactly one prompt reached the customer').to.have.length(1);
    // Every push the fake got, answered or not, for this payment.
    const sent = fake.requests.filter(
      (r) => r.path === STK_PUSH_PATH && JSON.stringify(r.body).includes(created.id.slice(-12)),
    );
    expect(sent).to.have.length(1);
    const queries = fake.requests.filter(
      (r) =>
        r.path === STK_QUERY_PATH &&
        (r.body as { CheckoutRequestID?: string }).CheckoutRequestID === pushes[0]!.checkoutRequestId,
    );
    expect(queries.length, 'the query asked about the CheckoutRequestID the callback named').to.be.greaterThan(0);
  });

  it('fails a prompt the customer cancelled (ResultCode 1032) as declined', async () => {
    const created = await createPayment(safaricomNumber(DARAJA_FAKE_NUMBERS.cancelled));
    const failed = await until(created.id, (p) => p.status === 'failed');
    expect(failed.failure_code).to.equal('declined');
  });

  it('answers 401 to a callback with a wrong token and changes nothing', async () => {
    const phone = safaricomNumber(DARAJA_FAKE_NUMBERS.silent);
    const created = await createPayment(phone);
    const push = await pushTo(phone);
    const body = JSON.stringify({
      Body: {
        stkCallback: {
          MerchantRequestID: push.merchantRequestId,
          CheckoutRequestID: push.checkoutRequestId,
          ResultCode: 0,
          ResultDesc: 'The service request is processed successfully.',
        },
      },
    });
    const forged = await fetch(
      `${service.baseUrl}/v1/provider-callbacks/mpesa?payment=${created.id}&token=${'0'.repeat(64)}`,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body },
    );
    expect(forged.status).to.equal(401);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await callService(service.baseUrl, `/v1/payments/${created.id}`, liveKey)).body.data.status).to.equal(
      'pending',
    );
  });

  it('refuses a cancel with 409 while the customer has the prompt, changing nothing; their approval then completes it (docs/payments.md#cancel-and-refund)', async () => {
    const phone = safaricomNumber(DARAJA_FAKE_NUMBERS.silent);
    const created = await createPayment(phone);
    const push = await pushTo(phone);
    const cancel = await callService(service.baseUrl, `/v1/payments/${created.id}/cancel`, liveKey, {
      body: { reason: 'changed my mind' },
    });
    expect(cancel.status, JSON.stringify(cancel.body)).to.equal(409);
    expect(cancel.body.error).to.include({ code: 'payment_not_cancellable' });
    expect(cancel.body.error.message).to.include('prompt stays open');
    const after = (await callService(service.baseUrl, `/v1/payments/${created.id}`, liveKey)).body.data;
    expect(after).to.include({ status: 'pending', cancellation_reason: null });
    // The customer approves the prompt they still hold: the payment completes, booked, and nothing is refunded.
    fake.decide(push.checkoutRequestId, 0);
    const completed = await until(created.id, (p) => p.status === 'completed', 60_000);
    expect(completed).to.include({ status: 'completed', amount_refunded: 0, failure_code: null });
    expect(pushesTo(phone), 'never pushed again').to.have.length(1);
  });

  it('expires a prompt nobody answers, then reconciles the success Daraja reports afterwards (docs/payments.md#states)', async () => {
    const phone = safaricomNumber(DARAJA_FAKE_NUMBERS.silent);
    const created = await createPayment(phone, { expires_in: 60 });
    const expired = await until(created.id, (p) => p.status === 'failed', 90_000);
    expect(expired).to.include({ failure_code: 'expired', reconciled_at: null });
    const push = await pushTo(phone);
    // The customer pays after expires_at: Daraja's result callback arrives late.
    fake.decide(push.checkoutRequestId, 0);
    const reconciled = await until(created.id, (p) => p.status === 'completed', 60_000);
    expect(reconciled).to.include({ status: 'completed', failure_code: null });
    expect(Date.parse(reconciled.reconciled_at)).to.be.greaterThan(Date.parse(expired.updated_at));
    expect(pushesTo(phone), 'never pushed again').to.have.length(1);
  });

  describe("refunds by Daraja's Reversal (docs/providers.md#m-pesa)", () => {
    /** A completed payment whose success callback (with its receipt number) was taken, and its push. */
    async function paid(ending: string): Promise<{ payment: any; push: DarajaPush }> {
      const phone = safaricomNumber(ending);
      const created = await createPayment(phone);
      const payment = await until(created.id, (p) => p.status === 'completed');
      const push = await pushTo(phone);
      return { payment, push };
    }

    /** The refund rows of payment `id` once none is pending (about 60 s at most): [amount, status, failure]. */
    async function settledRefunds(id: string): Promise<[number, string, string | null][]> {
      const { db } = await getStack();
      let rows: any[] = [];
      for (let i = 0; i < 240; i += 1) {
        rows = await db('refunds').where({ payment_id: id }).orderBy('created_at');
        if (rows.length > 0 && rows.every((r) => r.status !== 'pending')) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      return rows.map((r) => [Number(r.amount), r.status, r.failure_message]);
    }

    const refund = (id: string, body: object = {}) =>
      callService(service.baseUrl, `/v1/payments/${id}/refund`, liveKey, { body });

    it('reverses the whole payment by its receipt number; the result callback completes the refund', async () => {
      const { payment, push } = await paid('5101');
      expect(payment.refundable).to.deep.equal({ allowed: true, partial: false, reason: null });
      const asked = await refund(payment.id);
      expect(asked.status, JSON.stringify(asked.body)).to.equal(201);
      expect(asked.body.data).to.include({ amount: 15_000, status: 'pending' });
      const refunded = await until(payment.id, (p) => p.status === 'refunded', 60_000);
      expect(refunded).to.include({ amount_refunded: 15_000, amount_refund_pending: 0 });
      const reversals = fake.reversals.filter((r) => r.transactionId === push.receipt);
      expect(reversals.map((r) => [r.amount, r.result?.code])).to.deep.equal([[150, 0]]);
      const result = fake.callbacks.find((c) => c.url.includes(`refund=${asked.body.data.id}`));
      expect(result?.status, 'the service took the reversal result').to.equal(200);
    });

    it("fails the refund when the reversal's result refuses it, and releases the reservation", async () => {
      const { payment } = await paid('5102');
      fake.failNextReversal(1, 'The balance is insufficient for the transaction.');
      expect((await refund(payment.id)).body.data.status).to.equal('pending');
      expect(await settledRefunds(payment.id)).to.deep.equal([
        [
          15_000,
          'failed',
          'M-Pesa refused the reversal: The balance is insufficient for the transaction. (ResultCode 1)',
        ],
      ]);
      const after = (await callService(service.baseUrl, `/v1/payments/${payment.id}`, liveKey)).body.data;
      expect(after).to.include({ status: 'completed', amount_refunded: 0, amount_refund_pending: 0 });
    });

    it('settles a reversal whose result callback is lost by Transaction Status', async () => {
      const { payment, push } = await paid('5103');
      fake.setMode({ callbacks: 'off' });
      try {
        const asked = await refund(payment.id);
        expect(asked.body.data.status).to.equal('pending');
        expect(await settledRefunds(payment.id)).to.deep.equal([[15_000, 'completed', null]]);
        const reversal = fake.reversals.find((r) => r.transactionId === push.receipt);
        const asks = fake.requests.filter(
          (r) =>
            r.path === TRANSACTION_STATUS_PATH &&
            (r.body as { OriginalConversationID?: string }).OriginalConversationID ===
              reversal?.originatorConversationId,
        );
        expect(asks.length, 'Transaction Status was asked about the reversal').to.be.greaterThan(0);
        expect(fake.reversals.filter((r) => r.transactionId === push.receipt)).to.have.length(1);
      } finally {
        fake.setMode({ callbacks: 'once' });
      }
    });

    it('refuses a partial refund with 409 before anything reaches Daraja (a reversal returns the whole payment)', async () => {
      const { payment, push } = await paid('5104');
      const partial = await refund(payment.id, { amount: 5_000 });
      expect(partial.status, JSON.stringify(partial.body)).to.equal(409);
      expect(partial.body.error.code).to.equal('payment_not_refundable');
      const sent = fake.requests.filter(
        (r) => r.path === REVERSAL_PATH && (r.body as { TransactionID?: string }).TransactionID === push.receipt,
      );
      expect(sent).to.deep.equal([]);
      const { db } = await getStack();
      expect(await db('refunds').where({ payment_id: payment.id }).pluck('id'), 'nothing recorded').to.deep.equal([]);
    });
  });
});
