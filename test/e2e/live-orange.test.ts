/**
 * A live merchant takes Orange Money payments end to end (orange, docs/providers.md#orange-money-orange): the whole
 * service (API and worker processes) in live mode pointed at the Orange fake. A payment in CFA francs (no minor unit)
 * from an Orange number is sent to Orange's page (`next_action` `redirect`); the customer paying there completes it by
 * Orange's notification (to its per-payment URL, then confirmed with the transaction status), or by the status when the
 * notification is lost; a web payment whose answer is lost is made again, and the customer gets one page. A failure on
 * the page fails it as `declined`. A notification with a wrong token changes nothing. Cancel and refund are refused
 * with 409 (the Web Payment API offers neither), and a currency the number's country does not hold is 400.
 */
import { expect } from 'chai';
import { orangePaths, startOrangeFake, type OrangeFake, type OrangePage } from '../fakes/orange-fake';
import { uniqueNumber } from '../helpers/adapters';
import {
  approvedLiveMerchant,
  callService,
  providerReferenceOf,
  startLiveService,
  waitForLivePayment,
  type LiveService,
} from '../helpers/live-providers';

/** Every call to Orange's time-out: short, so a web payment left unanswered is given up quickly. */
const TIMEOUT_MS = 2_000;

/** A Senegalese Orange number (+22177…), unique per call. */
const orangeNumber = () => uniqueNumber('+22177', 4, '000');

describe('live Orange Money payments end to end, against the Orange fake (docs/providers.md#orange-money-orange)', function () {
  this.timeout(180_000);
  let fake: OrangeFake;
  let service: LiveService;
  let liveKey: string;

  before(async () => {
    fake = await startOrangeFake({ approvalDelayMs: 200 });
    service = await startLiveService({
      ORANGE_BASE_URL: fake.url,
      ORANGE_CLIENT_ID: fake.clientId,
      ORANGE_CLIENT_SECRET: fake.clientSecret,
      ORANGE_MERCHANT_KEY: fake.merchantKey,
      ORANGE_MARKET: 'dev',
      ORANGE_RETURN_URL: 'https://shop.example/orange/back',
      ORANGE_TIMEOUT_MS: String(TIMEOUT_MS),
    });
    ({ liveKey } = await approvedLiveMerchant());
  });

  after(async () => {
    await service?.stop();
    await fake?.close();
  });

  /** Creates a live XOF 5000 payment from `phone` (Orange's prefixes choose orange), with `extra` fields. */
  async function createPayment(phone: string, extra: Record<string, unknown> = {}): Promise<any> {
    const created = await callService(service.baseUrl, '/v1/payments', liveKey, {
      body: { amount: 5_000, currency: 'XOF', payment_method: 'mobile_money', phone_number: phone, ...extra },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body.data).to.include({ status: 'pending', provider: 'orange', amount: 5_000, currency: 'XOF' });
    return created.body.data;
  }

  /** The payment `id` once `predicate` holds (polling the live API; throws after `timeoutMs`, default 30 s). */
  const until = (id: string, predicate: (payment: any) => boolean, timeoutMs?: number) =>
    waitForLivePayment(service.baseUrl, liveKey, id, predicate, timeoutMs);

  /** The payment once it sends the customer to a page, and that page at the fake. */
  async function redirected(id: string): Promise<{ payment: any; page: OrangePage }> {
    const payment = await until(id, (p) => p.next_action?.type === 'redirect');
    const page = fake.pages.find((p) => p.paymentUrl === payment.next_action.url);
    expect(page, 'the page handed out is one Orange made').not.to.equal(undefined);
    return { payment, page: page! };
  }

  it("sends the customer to Orange's page and completes by Orange's notification, with Orange's txnid", async () => {
    const created = await createPayment(orangeNumber());
    const { page } = await redirected(created.id);
    expect(page).to.include({ orderId: created.id, amount: 5_000, currency: 'OUV' });
    expect(await providerReferenceOf(created.id)).to.equal(created.id);
    fake.pay(page.payToken);
    const paid = await until(created.id, (p) => p.status === 'completed');
    expect(paid).to.include({ amount: 5_000, provider_receipt_number: page.txnid });
    const notification = fake.notifications.find((n) => n.body.includes(page.notifToken));
    expect(notification?.url).to.match(
      new RegExp(`/v1/provider-callbacks/orange\\?payment=${created.id}&token=[0-9a-f]{64}$`),
    );
    expect(notification && 'status' in notification ? notification.status : notification, 'taken').to.equal(200);
  });

  it('completes by the transaction status when the notification is lost', async () => {
    fake.setMode({ notifications: 'off' });
    try {
      const created = await createPayment(orangeNumber());
      const { page } = await redirected(created.id);
      fake.pay(page.payToken);
      const paid = await until(created.id, (p) => p.status === 'completed', 60_000);
      expect(paid.provider_receipt_number).to.equal(page.txnid);
      expect(fake.notifications.filter((n) => n.url.includes(created.id))).to.deep.equal([]);
    } finally {
      fake.setMode({ notifications: 'once' });
    }
  });

  it('makes the web payment again when its answer is lost; the customer gets one page, the one that is asked about', async () => {
    fake.injectFaults('hang', 1, [orangePaths('dev').webPayment]);
    const created = await createPayment(orangeNumber());
    const { page } = await redirected(created.id);
    const made = fake.pages.filter((p) => p.orderId === created.id);
    expect(made, 'the lost answer’s page and the retry’s').to.have.length(2);
    expect(page.payToken).to.equal(made[1]?.payToken);
    fake.pay(page.payToken);
    await until(created.id, (p) => p.status === 'completed', 60_000);
  });

  it('fails a payment that failed on the page (FAILED) as declined', async () => {
    const created = await createPayment(orangeNumber());
    const { page } = await redirected(created.id);
    fake.pay(page.payToken, 'FAILED');
    const failed = await until(created.id, (p) => p.status === 'failed');
    expect(failed.failure_code).to.equal('declined');
  });

  it('answers 401 to a notification with a wrong token and changes nothing', async () => {
    const created = await createPayment(orangeNumber());
    const { page } = await redirected(created.id);
    const forged = await fetch(
      `${service.baseUrl}/v1/provider-callbacks/orange?payment=${created.id}&token=${'0'.repeat(64)}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ status: 'SUCCESS', notif_token: page.notifToken, txnid: 'MP000000.0000.A00000' }),
      },
    );
    expect(forged.status).to.equal(401);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = (await callService(service.baseUrl, `/v1/payments/${created.id}`, liveKey)).body.data;
    expect(after.status).to.equal('pending');
  });

  it('refuses a cancel and a refund with 409: the Web Payment API offers neither', async () => {
    const created = await createPayment(orangeNumber());
    const { page } = await redirected(created.id);
    const cancel = await callService(service.baseUrl, `/v1/payments/${created.id}/cancel`, liveKey, {
      body: { reason: 'changed my mind' },
    });
    expect(cancel.status, JSON.stringify(cancel.body)).to.equal(409);
    expect(cancel.body.error).to.include({ code: 'payment_not_cancellable' });
    fake.pay(page.payToken);
    const paid = await until(created.id, (p) => p.status === 'completed');
    expect(paid.refundable).to.include({ allowed: false });
    const refund = await callService(service.baseUrl, `/v1/payments/${created.id}/refund`, liveKey, { body: {} });
    expect(refund.status, JSON.stringify(refund.body)).to.equal(409);
    expect(refund.body.error.code).to.equal('payment_not_refundable');
  });

  it("refuses with 400 a currency the number's country does not hold, and a Senegalese number of another operator", async () => {
    const xaf = await callService(service.baseUrl, '/v1/payments', liveKey, {
      body: { amount: 5_000, currency: 'XAF', payment_method: 'mobile_money', phone_number: orangeNumber() },
    });
    expect(xaf.status, JSON.stringify(xaf.body)).to.equal(400);
    expect(JSON.stringify(xaf.body.error)).to.include('currency');
    const free = await callService(service.baseUrl, '/v1/payments', liveKey, {
      body: { amount: 5_000, currency: 'XOF', payment_method: 'mobile_money', phone_number: '+221761234567' },
    });
    expect(free.status, JSON.stringify(free.body)).to.equal(400);
    expect(JSON.stringify(free.body.error)).to.include('phone_number');
  });
});
