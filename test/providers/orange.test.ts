/**
 * The live Orange Money adapter (`orange`, docs/providers.md#orange-money-orange) against the Orange fake over real
 * HTTP: the OAuth token (form body, cached, refused credentials kept unknown), the web payment's documented body and
 * the customer sent to Orange's page (`next_action` `redirect`), one page per payment whatever is retried or runs
 * concurrently (kept in the request log, PostgreSQL's included), a lost answer that makes a new page on retry, the
 * statuses mapped onto ours through the transaction status, notifications authenticated by the URL's token and the
 * page's `notif_token`, and what the account cannot collect refused before anything is sent.
 */
import { expect } from 'chai';
import { createProviderRequestLog } from '../../src/db/provider-requests';
import { CURRENCY_EXPONENTS } from '../../src/domain/money';
import {
  memoryRequestLog,
  ProviderRefusal,
  ProviderUnsupported,
  type CallbackRequest,
  type InitiateRequest,
  type PaymentProvider,
  type ProviderRequestLog,
} from '../../src/providers/provider';
import { ProviderUnknownAnswer } from '../../src/providers/http';
import { createOrangeProvider, OrangeAuthenticationError } from '../../src/providers/orange/adapter';
import { orangeCallbackToken } from '../../src/providers/orange/callback';
import { orangeSettingsSchema, type OrangeSettings } from '../../src/providers/orange/settings';
import { orangePaths, ORANGE_TOKEN_PATH, startOrangeFake, type OrangeFake } from '../fakes/orange-fake';
import { initiateRequest, rejectionOf, sleep } from '../helpers/adapters';
import { getStack } from '../helpers/stack';

const CALLBACK_SECRET = 'orange-callback-secret-for-tests-0123456789';
const TIMEOUT_MS = 300;
const CALLBACK_URL = 'https://api.paycollect.example/v1/provider-callbacks/orange';

describe('Orange Money adapter (orange, docs/providers.md#orange-money-orange) against the Orange fake', function () {
  this.timeout(20_000);
  let fake: OrangeFake;
  let settings: OrangeSettings;
  let requestLog: ProviderRequestLog;
  let orange: PaymentProvider;

  before(async () => {
    fake = await startOrangeFake({ approvalDelayMs: 30, notifications: 'off' });
    settings = orangeSettingsSchema.parse({
      baseUrl: fake.url,
      clientId: fake.clientId,
      clientSecret: fake.clientSecret,
      merchantKey: fake.merchantKey,
      market: 'dev',
      returnUrl: 'https://shop.example/orange/back',
      timeoutMs: TIMEOUT_MS,
    });
    requestLog = memoryRequestLog();
    orange = createOrangeProvider(settings, { callbackSecret: CALLBACK_SECRET, requestLog });
  });
  after(async () => {
    await fake.close();
  });

  /** A fresh payment's initiation request: XOF 5000 from a Senegalese Orange number unless overridden. */
  const request = (overrides: Partial<InitiateRequest> = {}) =>
    initiateRequest(
      '+221771234567',
      { amount: 5_000, currency: 'XOF', description: 'Order #42', callbackUrl: CALLBACK_URL },
      overrides,
    );

  const webPayments = (orderId: string) =>
    fake.requests.filter(
      (r) => r.path === orangePaths('dev').webPayment && (r.body as { order_id?: string }).order_id === orderId,
    );

  /** The notification callback `body` for `paymentId`, as the callback route hands it over (its URL's own token). */
  const notification = (paymentId: string, body: unknown, token = orangeCallbackToken(paymentId, CALLBACK_SECRET)) =>
    ({
      rawBody: JSON.stringify(body),
      headers: {},
      query: { payment: paymentId, token },
    }) satisfies CallbackRequest;

  /** `orange`'s status of `paymentId` once it is neither pending nor processing (or after about 2 s). */
  async function settled(paymentId: string) {
    for (let i = 0; i < 80; i += 1) {
      const answer = await orange.fetchStatus(paymentId);
      if (answer.outcome.status !== 'pending' && answer.outcome.status !== 'processing') return answer;
      await sleep(25);
    }
    return orange.fetchStatus(paymentId);
  }

  describe('access token and web payment', () => {
    it("makes one documented web payment and sends the customer to Orange's page; its status follows the customer", async () => {
      const req = request();
      const answer = await orange.initiate(req);
      const page = await fake.pageFor(req.paymentId);
      expect(answer).to.deep.equal({
        providerReference: req.paymentId,
        outcome: { status: 'pending' },
        nextAction: { type: 'redirect', url: page.paymentUrl },
      });
      // XOF has no minor unit: 5000 minor units are 5000 francs; Orange's sandbox takes its test currency.
      expect(CURRENCY_EXPONENTS.XOF).to.equal(0);
      const sent = webPayments(req.paymentId)[0]?.body as Record<string, unknown>;
      expect(sent).to.deep.equal({
        merchant_key: fake.merchantKey,
        currency: 'OUV',
        order_id: req.paymentId,
        amount: 5000,
        return_url: `https://shop.example/orange/back?payment=${req.paymentId}`,
        cancel_url: `https://shop.example/orange/back?payment=${req.paymentId}`,
        notif_url: `${CALLBACK_URL}?payment=${req.paymentId}&token=${orangeCallbackToken(req.paymentId, CALLBACK_SECRET)}`,
        lang: 'fr',
        reference: 'paycollect',
      });
      const token = fake.requests.filter((r) => r.path === ORANGE_TOKEN_PATH).at(-1);
      expect(token?.body).to.equal('grant_type=client_credentials');
      expect((await orange.fetchStatus(req.paymentId)).outcome).to.deep.equal({ status: 'pending' });
      fake.pay(page.payToken);
      expect((await orange.fetchStatus(req.paymentId)).outcome).to.deep.equal({ status: 'processing' });
      const paid = await settled(req.paymentId);
      expect(paid.outcome).to.deep.equal({ status: 'completed', receiptNumber: page.txnid });
      expect(page.txnid).to.match(/^MP[0-9]{6}\.[0-9A-F]{8}$/);
    });

    it('asks for a token once and reuses it; an expired one is renewed once', async () => {
      await orange.initiate(request());
      const issued = fake.tokensIssued;
      await orange.initiate(request());
      expect(fake.tokensIssued).to.equal(issued);
      fake.expireTokens();
      const req = request();
      await orange.initiate(req);
      expect(fake.tokensIssued).to.equal(issued + 1);
      // Refused with 401 (code 42, nothing made), then sent again under the new token.
      expect(webPayments(req.paymentId)).to.have.length(2);
      expect(fake.pages.filter((p) => p.orderId === req.paymentId)).to.have.length(1);
    });

    it('keeps refused credentials an unknown answer (never a failed payment) and makes no page', async () => {
      const wrong = createOrangeProvider(
        { ...settings, clientSecret: 'not-the-secret' },
        { callbackSecret: CALLBACK_SECRET, requestLog },
      );
      const req = request();
      const error = await rejectionOf(wrong.initiate(req));
      expect(error).to.be.instanceOf(OrangeAuthenticationError);
      expect(error).not.to.be.instanceOf(ProviderRefusal);
      expect(webPayments(req.paymentId)).to.deep.equal([]);
      // With the right credentials the same payment gets its page.
      expect((await orange.initiate(req)).nextAction).to.include({ type: 'redirect' });
    });

    it('a retried initiation hands the customer the same page and asks nothing of Orange', async () => {
      const req = request();
      const first = await orange.initiate(req);
      const again = await orange.initiate(req);
      expect(again).to.deep.equal(first);
      expect(webPayments(req.paymentId)).to.have.length(1);
    });

    it('concurrent initiations of one payment (two workers) hand out one page', async () => {
      const req = request();
      const answers = await Promise.all([orange.initiate(req), orange.initiate(req), orange.initiate(req)]);
      expect(new Set(answers.map((a) => JSON.stringify(a.nextAction))).size).to.equal(1);
      const page = fake.pages.find((p) => p.paymentUrl === (answers[0]?.nextAction as { url: string }).url);
      fake.pay(page?.payToken as string);
      // The status asks about the page handed out, whichever page Orange made first.
      expect((await settled(req.paymentId)).outcome.status).to.equal('completed');
    });

    for (const fault of ['hang', 'error_500', 'undocumented'] as const) {
      it(`a web payment answered ${fault} is unknown; the retry makes the page the customer gets, and the status asks about it`, async () => {
        const req = request();
        fake.injectFaults(fault, 1, [orangePaths('dev').webPayment]);
        const error = await rejectionOf(orange.initiate(req));
        expect(error).to.be.instanceOf(Error);
        expect(error).not.to.be.instanceOf(ProviderRefusal);
        // Orange made a page nobody was given: nothing can be paid on it.
        expect(fake.pages.filter((p) => p.orderId === req.paymentId)).to.have.length(1);
        expect(await rejectionOf(orange.fetchStatus(req.paymentId))).to.be.instanceOf(ProviderRefusal);
        const answer = await orange.initiate(req);
        const pages = fake.pages.filter((p) => p.orderId === req.paymentId);
        expect(pages).to.have.length(2);
        expect(answer.nextAction).to.deep.equal({ type: 'redirect', url: pages[1]?.paymentUrl });
        fake.pay(pages[1]?.payToken as string, 'FAILED');
        expect((await settled(req.paymentId)).outcome).to.include({ status: 'failed', failureCode: 'declined' });
      });
    }

    it('keeps a 500 or an undocumented answer to the transaction status unknown', async () => {
      const req = request();
      await orange.initiate(req);
      fake.injectFaults('error_500', 1, [orangePaths('dev').transactionStatus]);
      expect(await rejectionOf(orange.fetchStatus(req.paymentId))).to.be.instanceOf(ProviderUnknownAnswer);
      fake.injectFaults('undocumented', 1, [orangePaths('dev').transactionStatus]);
      expect(await rejectionOf(orange.fetchStatus(req.paymentId))).to.be.instanceOf(ProviderUnknownAnswer);
      expect((await orange.fetchStatus(req.paymentId)).outcome).to.deep.equal({ status: 'pending' });
    });

    it('refuses a payment Orange refuses (400: the merchant key it does not know), failing it at once', async () => {
      const wrongKey = createOrangeProvider(
        { ...settings, merchantKey: 'not-our-key' },
        { callbackSecret: CALLBACK_SECRET, requestLog: memoryRequestLog() },
      );
      const error = await rejectionOf(wrongKey.initiate(request()));
      expect(error).to.be.instanceOf(ProviderRefusal);
      expect((error as ProviderRefusal).message).to.include('Invalid merchant_key');
      expect((error as ProviderRefusal).failureCode).to.equal('provider_error');
    });

    it("refuses what the account cannot collect before anything is sent: another country's currency or number, no notification URL", async () => {
      const senegal = createOrangeProvider(
        { ...settings, market: 'sn' },
        { callbackSecret: CALLBACK_SECRET, requestLog: memoryRequestLog() },
      );
      const before = fake.requests.length;
      const xaf = await rejectionOf(senegal.initiate(request({ currency: 'XAF' })));
      expect(xaf).to.be.instanceOf(ProviderRefusal);
      expect((xaf as Error).message).to.equal('this Orange Money account (sn) collects XOF, not XAF');
      const ivorian = await rejectionOf(senegal.initiate(request({ customer: '+2250707123456' })));
      expect((ivorian as ProviderRefusal).failureCode).to.equal('declined');
      expect(await rejectionOf(orange.initiate(request({ currency: 'KES' })))).to.be.instanceOf(ProviderRefusal);
      const silent = await rejectionOf(orange.initiate(request({ callbackUrl: null })));
      expect((silent as Error).message).to.match(/PROVIDER_CALLBACK_BASE_URL/);
      expect(fake.requests.length, 'nothing reached Orange').to.equal(before);
    });

    it("collects XAF from a Cameroonian number on a Cameroon account (market cm), sent as Orange's XAF, whole francs", async () => {
      const cameroon = await startOrangeFake({ market: 'cm', notifications: 'off' });
      try {
        const adapter = createOrangeProvider(
          { ...settings, market: 'cm', baseUrl: cameroon.url },
          { callbackSecret: CALLBACK_SECRET, requestLog: memoryRequestLog() },
        );
        const req = request({ customer: '+237690123456', currency: 'XAF', amount: 2_500 });
        const answer = await adapter.initiate(req);
        const page = await cameroon.pageFor(req.paymentId);
        expect(page).to.include({ currency: 'XAF', amount: 2_500 });
        expect(answer.nextAction).to.deep.equal({ type: 'redirect', url: page.paymentUrl });
        expect(cameroon.requests.map((r) => r.path)).to.include(orangePaths('cm').webPayment);
        cameroon.pay(page.payToken);
        await sleep(150);
        expect((await adapter.fetchStatus(req.paymentId)).outcome).to.deep.equal({
          status: 'completed',
          receiptNumber: page.txnid,
        });
        // A Cameroon account takes no XOF.
        expect(await rejectionOf(adapter.initiate(request({ customer: '+237690123457' })))).to.be.instanceOf(
          ProviderRefusal,
        );
      } finally {
        await cameroon.close();
      }
    });

    it('refuses a status question about a payment it made no page for', async () => {
      expect(await rejectionOf(orange.fetchStatus(request().paymentId))).to.be.instanceOf(ProviderRefusal);
    });

    it('fails a page nobody paid within its life as expired (EXPIRED)', async () => {
      const short = await startOrangeFake({ pageLifetimeMs: 100, notifications: 'off' });
      try {
        const adapter = createOrangeProvider(
          { ...settings, baseUrl: short.url, clientId: short.clientId, clientSecret: short.clientSecret },
          { callbackSecret: CALLBACK_SECRET, requestLog: memoryRequestLog() },
        );
        const req = request();
        await adapter.initiate(req);
        await sleep(150);
        expect((await adapter.fetchStatus(req.paymentId)).outcome).to.deep.equal({
          status: 'failed',
          failureCode: 'expired',
          failureMessage: "Orange Money: the customer did not pay within the payment page's life (EXPIRED)",
          reason: 'EXPIRED',
        });
      } finally {
        await short.close();
      }
    });

    it('declares cancel and refunds unsupported: the Web Payment API offers neither', async () => {
      expect(orange.supports).to.deep.equal({ cancel: false, refund: false, partialRefund: false });
      const req = request();
      await orange.initiate(req);
      expect(await rejectionOf(orange.cancel(req.paymentId))).to.be.instanceOf(ProviderUnsupported);
      const refund = {
        providerReference: req.paymentId,
        idempotencyKey: 'refund:ref_1',
        amount: 5000,
        paymentAmount: 5000,
        currency: 'XOF' as const,
      };
      expect(await rejectionOf(orange.refund(refund))).to.be.instanceOf(ProviderUnsupported);
      expect(await rejectionOf(orange.fetchRefund(refund))).to.be.instanceOf(ProviderUnsupported);
    });
  });

  describe('notifications', () => {
    it("takes Orange's notification on the payment's own URL, duplicates and late ones too, as a hint", async () => {
      const req = request();
      await orange.initiate(req);
      const page = await fake.pageFor(req.paymentId);
      const body = { status: 'SUCCESS', notif_token: page.notifToken, txnid: 'MP221129.0001.A00001' };
      expect(await orange.parseCallback(notification(req.paymentId, body))).to.deep.equal({
        providerReference: req.paymentId,
        claimed: 'completed',
      });
      expect(await orange.parseCallback(notification(req.paymentId, body))).to.deep.equal({
        providerReference: req.paymentId,
        claimed: 'completed',
      });
      const failed = { status: 'FAILED', notif_token: page.notifToken };
      expect((await orange.parseCallback(notification(req.paymentId, failed))).claimed).to.equal('failed');
    });

    it("refuses a wrong or missing token, another page's notif_token, a body that is not a notification, an unknown payment", async () => {
      const req = request();
      await orange.initiate(req);
      const page = await fake.pageFor(req.paymentId);
      const other = request();
      await orange.initiate(other);
      const otherPage = await fake.pageFor(other.paymentId);
      const body = { status: 'SUCCESS', notif_token: page.notifToken, txnid: 'MP221129.0001.A00001' };
      const refusals = [
        notification(req.paymentId, body, '0'.repeat(64)),
        notification(req.paymentId, body, ''),
        notification(req.paymentId, body, orangeCallbackToken(other.paymentId, CALLBACK_SECRET)),
        notification(req.paymentId, { ...body, notif_token: otherPage.notifToken }),
        notification(req.paymentId, { ...body, status: 'PAID' }),
        notification(req.paymentId, { result: 'ok' }),
        { ...notification(req.paymentId, body), rawBody: 'not json' },
        notification(request().paymentId, body),
      ];
      for (const callback of refusals)
        expect(
          await rejectionOf(Promise.resolve(orange.parseCallback(callback))),
          JSON.stringify(callback),
        ).to.be.instanceOf(ProviderRefusal);
    });
  });

  describe('the request log on PostgreSQL (shared by the API and the workers)', () => {
    it('keeps the first page of a payment among concurrent initiations', async () => {
      const { db } = await getStack();
      const shared = createOrangeProvider(settings, {
        callbackSecret: CALLBACK_SECRET,
        requestLog: createProviderRequestLog(db),
      });
      const req = request();
      const answers = await Promise.all([shared.initiate(req), shared.initiate(req)]);
      expect(answers[0]).to.deep.equal(answers[1]);
      const again = createOrangeProvider(settings, {
        callbackSecret: CALLBACK_SECRET,
        requestLog: createProviderRequestLog(db),
      });
      expect(await again.initiate(req)).to.deep.equal(answers[0]);
    });
  });
});
