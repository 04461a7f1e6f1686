/**
 * A live merchant takes Vodacom M-Pesa Tanzania payments end to end (vodacom,
 * docs/providers.md#vodacom-m-pesa-tanzania-vodacom): the whole service (API and worker processes) in live mode
 * pointed at the M-Pesa OpenAPI fake. A payment completes by the C2B request's answer, with the M-Pesa transaction id
 * as its receipt; with that answer lost, by the status query, after exactly one C2B request. A cancelled prompt fails
 * as `declined`, a short balance as `insufficient_funds`; a prompt nobody answers fails as `expired` at `expires_at`
 * (docs/payments.md#states). A cancel is refused with 409 (a prompt
 * cannot be withdrawn) and changes nothing; any callback is refused with 401. Refunds reverse the whole payment by its
 * transaction id, settled by the query when the reversal's answer is lost; a partial refund is refused with 409 before
 * anything reaches the OpenAPI; an amount in cents is refused at create.
 */
import { expect } from 'chai';
import {
  C2B_PATH,
  QUERY_PATH,
  REVERSAL_PATH,
  startVodacomFake,
  VODACOM_FAKE_NUMBERS,
  type VodacomFake,
  type VodacomTransaction,
} from '../fakes/vodacom-fake';
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

/** Every call's time-out: short, so a C2B request the customer has not answered is given up quickly. */
const TIMEOUT_MS = 2_000;

/** A Vodacom Tanzania number (+25576…) ending in `ending` (four digits), unique per call. */
const vodacomNumber = (ending: string) => uniqueNumber('+25576', 3, ending);

describe('live Vodacom M-Pesa payments end to end, against the OpenAPI fake (docs/providers.md#vodacom-m-pesa-tanzania-vodacom)', function () {
  this.timeout(180_000);
  let fake: VodacomFake;
  let service: LiveService;
  let liveKey: string;

  before(async () => {
    fake = await startVodacomFake();
    service = await startLiveService({
      VODACOM_BASE_URL: fake.baseUrl,
      VODACOM_API_KEY: fake.apiKey,
      VODACOM_PUBLIC_KEY: fake.publicKey,
      VODACOM_SERVICE_PROVIDER_CODE: fake.serviceProviderCode,
      VODACOM_TIMEOUT_MS: String(TIMEOUT_MS),
    });
    ({ liveKey } = await approvedLiveMerchant());
  });

  after(async () => {
    await service?.stop();
    await fake?.close();
  });

  /** Creates a live TZS 1,500.00 payment from `phone` (Vodacom's prefixes choose vodacom), with `extra` fields. */
  async function createPayment(phone: string, extra: Record<string, unknown> = {}): Promise<any> {
    const created = await callService(service.baseUrl, '/v1/payments', liveKey, {
      body: {
        amount: 150_000,
        currency: 'TZS',
        payment_method: 'mobile_money',
        phone_number: phone,
        description: 'Basket',
        ...extra,
      },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body.data).to.include({ status: 'pending', provider: 'vodacom' });
    return created.body.data;
  }

  /** The payment `id` once `predicate` holds (polling the live API; throws after `timeoutMs`, default 30 s). */
  const until = (id: string, predicate: (payment: any) => boolean, timeoutMs?: number) =>
    waitForLivePayment(service.baseUrl, liveKey, id, predicate, timeoutMs);

  /** The C2B requests the fake got for `phone` (E.164). */
  const c2bRequestsOf = (phone: string) =>
    fake.requests.filter(
      (r) =>
        r.path === C2B_PATH && (r.body as { input_CustomerMSISDN?: string }).input_CustomerMSISDN === phone.slice(1),
    );

  /** The C2B payment the fake took for `phone`, once it has it (the create may answer before the worker sent it). */
  async function transactionOf(phone: string): Promise<VodacomTransaction> {
    for (let i = 0; i < 100; i += 1) {
      const transaction = fake.transactions.find((t) => t.kind === 'c2b' && `+${t.msisdn}` === phone);
      if (transaction) return transaction;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`the fake got no C2B request for ${phone}`);
  }

  it('collects a payment completed by the C2B answer, its transaction id as the receipt, one request per payment', async () => {
    const phone = vodacomNumber('5001');
    const created = await createPayment(phone);
    const paid = await until(created.id, (p) => p.status === 'completed');
    expect(await providerReferenceOf(created.id)).to.equal(created.id);
    expect(c2bRequestsOf(phone), 'one C2B request').to.have.length(1);
    const transaction = await transactionOf(phone);
    expect(transaction).to.include({ amount: 1500 });
    expect(paid.provider_receipt_number).to.equal(transaction.transactionId);
    const event = await paymentEventDataOf(created.id, 'payment.completed');
    expect(event?.provider_receipt_number, 'payment.completed carries it').to.equal(transaction.transactionId);
  });

  it('never sends twice when the C2B answer is lost: the status query settles it', async () => {
    fake.injectFaults('hang', 1, [C2B_PATH]);
    const phone = vodacomNumber('5002');
    const created = await createPayment(phone);
    const paid = await until(created.id, (p) => p.status === 'completed', 60_000);
    const transaction = await transactionOf(phone);
    expect(paid.provider_receipt_number).to.equal(transaction.transactionId);
    expect(c2bRequestsOf(phone), 'never sent again').to.have.length(1);
  });

  it('fails a cancelled prompt as declined and a short balance as insufficient_funds', async () => {
    const cancelled = await createPayment(vodacomNumber(VODACOM_FAKE_NUMBERS.cancelled));
    const insufficient = await createPayment(vodacomNumber(VODACOM_FAKE_NUMBERS.insufficient));
    expect(await until(cancelled.id, (p) => p.status === 'failed')).to.include({ failure_code: 'declined' });
    expect(await until(insufficient.id, (p) => p.status === 'failed')).to.include({
      failure_code: 'insufficient_funds',
    });
  });

  it('refuses an amount in cents at create with 400 naming amount, sending nothing', async () => {
    const phone = vodacomNumber('5003');
    const created = await callService(service.baseUrl, '/v1/payments', liveKey, {
      body: { amount: 150_050, currency: 'TZS', payment_method: 'mobile_money', phone_number: phone },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(400);
    expect(JSON.stringify(created.body.error)).to.include('amount');
    expect(c2bRequestsOf(phone)).to.have.length(0);
  });

  it('refuses a cancel with 409 and any callback with 401 while the customer has the prompt; their approval then completes it', async () => {
    const phone = vodacomNumber(VODACOM_FAKE_NUMBERS.undecided);
    const created = await createPayment(phone);
    const transaction = await transactionOf(phone);
    const cancel = await callService(service.baseUrl, `/v1/payments/${created.id}/cancel`, liveKey, {
      body: { reason: 'changed my mind' },
    });
    expect(cancel.status, JSON.stringify(cancel.body)).to.equal(409);
    expect(cancel.body.error).to.include({ code: 'payment_not_cancellable' });
    const forged = await fetch(`${service.baseUrl}/v1/provider-callbacks/vodacom?payment=${created.id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ output_ResponseCode: 'INS-0', output_ThirdPartyConversationID: 'x' }),
    });
    expect(forged.status).to.equal(401);
    const after = (await callService(service.baseUrl, `/v1/payments/${created.id}`, liveKey)).body.data;
    expect(after).to.include({ status: 'pending', cancellation_reason: null });
    fake.decide(transaction.thirdPartyConversationId, 'INS-0');
    const completed = await until(created.id, (p) => p.status === 'completed', 60_000);
    expect(completed).to.include({ status: 'completed', amount_refunded: 0, failure_code: null });
    expect(c2bRequestsOf(phone), 'never sent again').to.have.length(1);
  });

  it('expires a prompt nobody answers at expires_at, after one C2B request and its status queries', async () => {
    const phone = vodacomNumber(VODACOM_FAKE_NUMBERS.undecided);
    const created = await createPayment(phone, { expires_in: 60 });
    const expired = await until(created.id, (p) => p.status === 'failed', 90_000);
    expect(expired).to.include({ failure_code: 'expired', reconciled_at: null, provider_receipt_number: null });
    const transaction = await transactionOf(phone);
    const queries = fake.requests.filter(
      (r) => r.path === QUERY_PATH && r.query.get('input_QueryReference') === transaction.thirdPartyConversationId,
    );
    expect(queries.length, 'the status was asked').to.be.greaterThan(0);
    expect(c2bRequestsOf(phone), 'never sent again').to.have.length(1);
  });

  describe('refunds by the reversal (docs/providers.md#vodacom-m-pesa-tanzania-vodacom)', () => {
    /** A completed payment and the fake's transaction of it. */
    async function paid(ending: string): Promise<{ payment: any; transaction: VodacomTransaction }> {
      const phone = vodacomNumber(ending);
      const created = await createPayment(phone);
      const payment = await until(created.id, (p) => p.status === 'completed');
      return { payment, transaction: await transactionOf(phone) };
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
    const reversalsOf = (transactionId: string | null) =>
      fake.requests.filter(
        (r) =>
          r.path === REVERSAL_PATH &&
          (r.body as { input_TransactionID?: string }).input_TransactionID === transactionId,
      );

    it('reverses the whole payment by its transaction id', async () => {
      const { payment, transaction } = await paid('5101');
      expect(payment.refundable).to.deep.equal({ allowed: true, partial: false, reason: null });
      const asked = await refund(payment.id);
      expect(asked.status, JSON.stringify(asked.body)).to.equal(201);
      expect(await settledRefunds(payment.id)).to.deep.equal([[150_000, 'completed', null]]);
      expect(reversalsOf(transaction.transactionId)).to.have.length(1);
      expect((reversalsOf(transaction.transactionId)[0]?.body as any).input_ReversalAmount).to.equal('1500');
      expect(transaction.reversed).to.equal(true);
    });

    it('settles a reversal whose answer is lost by the status query, never reversing twice', async () => {
      const { payment, transaction } = await paid('5102');
      fake.injectFaults('hang', 1, [REVERSAL_PATH]);
      const asked = await refund(payment.id);
      expect(asked.status, JSON.stringify(asked.body)).to.equal(201);
      expect(await settledRefunds(payment.id)).to.deep.equal([[150_000, 'completed', null]]);
      expect(reversalsOf(transaction.transactionId)).to.have.length(1);
    });

    it('refuses a partial refund with 409 before anything reaches the OpenAPI', async () => {
      const { payment, transaction } = await paid('5103');
      const partial = await refund(payment.id, { amount: 50_000 });
      expect(partial.status, JSON.stringify(partial.body)).to.equal(409);
      expect(partial.body.error.code).to.equal('payment_not_refundable');
      expect(reversalsOf(transaction.transactionId)).to.deep.equal([]);
      const { db } = await getStack();
      expect(await db('refunds').where({ payment_id: payment.id }).pluck('id'), 'nothing recorded').to.deep.equal([]);
    });
  });
});
