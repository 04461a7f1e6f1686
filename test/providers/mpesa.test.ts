/**
 * The live M-Pesa adapter (`mpesa`, docs/providers.md#m-pesa) against the Daraja fake over real HTTP: the OAuth token
 * (cached, refused credentials kept unknown), the STK push's documented shape (Password, Kenyan Timestamp), Daraja's
 * result codes mapped onto ours through the query, the query's "being processed" answer, and above all no second
 * prompt: a retried or concurrent initiation, a push answered 500 or never answered, never pushes again, and such a
 * payment is settled by its per-payment callback, which names the CheckoutRequestID, and then the query. The requests
 * request log is also checked on PostgreSQL, where the API and the workers share it.
 */
import { expect } from 'chai';
import { createProviderRequestLog } from '../../src/db/provider-requests';
import { newId } from '../../src/lib/ids';
import {
  memoryRequestLog,
  ProviderRefusal,
  ProviderUnsupported,
  type CallbackRequest,
  type InitiateRequest,
  type PaymentProvider,
  type ProviderRequestLog,
} from '../../src/providers/provider';
import { createMpesaProvider, darajaTimestamp, MpesaAuthenticationError } from '../../src/providers/mpesa/adapter';
import { mpesaCallbackToken } from '../../src/providers/mpesa/callback';
import { mpesaSettingsSchema, type MpesaSettings } from '../../src/providers/mpesa/settings';
import { DARAJA_FAKE_NUMBERS, startDarajaFake, STK_PUSH_PATH, type DarajaFake } from '../fakes/daraja-fake';
import { initiateRequest, rejectionOf, settledAnswer, sleep, uniqueNumber } from '../helpers/adapters';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { getStack } from '../helpers/stack';

const CALLBACK_SECRET = 'mpesa-callback-secret-for-tests-0123456789';
const TIMEOUT_MS = 300;

/** A Safaricom number (+2547…) ending in `ending` (four digits; default: one that pays), unique per call. */
const safaricomNumber = (ending = '5000') => uniqueNumber('+25471', 3, ending);

describe('M-Pesa adapter (mpesa, docs/providers.md#m-pesa) against the Daraja fake', function () {
  this.timeout(15_000);
  let fake: DarajaFake;
  let sink: Receiver;
  let settings: MpesaSettings;
  let requestLog: ProviderRequestLog;
  let mpesa: PaymentProvider;
  let callbackUrl: string;

  before(async () => {
    sink = await startReceiver();
    fake = await startDarajaFake({ approvalDelayMs: 40 });
    settings = mpesaSettingsSchema.parse({
      baseUrl: fake.url,
      consumerKey: 'daraja-consumer-key',
      consumerSecret: 'daraja-consumer-secret',
      shortcode: fake.shortcode,
      passkey: fake.passkey,
      timeoutMs: TIMEOUT_MS,
    });
    requestLog = memoryRequestLog();
    mpesa = createMpesaProvider(settings, { callbackSecret: CALLBACK_SECRET, requestLog });
    callbackUrl = `${sink.origin}/v1/provider-callbacks/mpesa`;
  });
  after(async () => {
    await fake.close();
    await sink.close();
  });

  /** A fresh payment's initiation request: KES 150.00 from `customer` unless overridden. */
  const request = (customer: string, overrides: Partial<InitiateRequest> = {}) =>
    initiateRequest(
      customer,
      { amount: 15_000, currency: 'KES', description: "Order #42 (Mama Njeri's shop)", callbackUrl },
      overrides,
    );

  /** The pushes the fake took for `customer`. */
  const pushesTo = (customer: string) => fake.pushes.filter((p) => `+${p.phoneNumber}` === customer);

  /** The callback the fake sent for `checkoutRequestId`, as our callback route would hand it over. */
  async function callbackFor(checkoutRequestId: string, fromIndex = 0): Promise<CallbackRequest> {
    for (let i = 0; i < 100; i += 1) {
      const sent = fake.callbacks.slice(fromIndex).find((c) => c.body.includes(checkoutRequestId));
      if (sent) {
        const url = new URL(sent.url);
        return { rawBody: sent.body, headers: {}, query: Object.fromEntries(url.searchParams) };
      }
      await sleep(20);
    }
    throw new Error(`no callback for ${checkoutRequestId}`);
  }

  describe('access token and push', () => {
    it('sends one documented push (Password of short code, passkey and Kenyan timestamp) and settles it by the query', async () => {
      const customer = safaricomNumber();
      const issued = fake.tokensIssued;
      const req = request(customer);
      const answer = await mpesa.initiate(req);
      expect(answer).to.deep.equal({
        providerReference: req.paymentId,
        outcome: { status: 'pending' },
        nextAction: null,
      });
      const [push] = pushesTo(customer);
      expect(push).to.include({ amount: 150, accountReference: req.paymentId.slice(-12) });
      const sent = fake.requests.filter((r) => r.path === STK_PUSH_PATH).at(-1)?.body as Record<string, unknown>;
      expect(sent).to.include({
        BusinessShortCode: fake.shortcode,
        TransactionType: 'CustomerPayBillOnline',
        PartyA: customer.slice(1),
        PartyB: fake.shortcode,
        PhoneNumber: customer.slice(1),
        TransactionDesc: 'Order 42 Mama',
      });
      expect(sent.CallBackURL).to.equal(
        `${callbackUrl}?payment=${req.paymentId}&token=${mpesaCallbackToken(req.paymentId, CALLBACK_SECRET)}`,
      );
      expect((await settledAnswer(mpesa, req.paymentId)).outcome).to.deep.equal({ status: 'completed' });
      await mpesa.initiate(request(safaricomNumber()));
      expect(fake.tokensIssued - issued, 'the token is cached').to.be.at.most(1);
    });

    it('writes the Timestamp in Kenya time (UTC+3)', () => {
      expect(darajaTimestamp(new Date('2026-11-25T21:30:05Z'))).to.equal('20261126003005');
    });

    it('keeps refused credentials an unknown answer, claims nothing, and pushes once they are right', async () => {
      const wrong = createMpesaProvider(
        { ...settings, consumerSecret: 'wrong' },
        { callbackSecret: CALLBACK_SECRET, requestLog },
      );
      const req = request(safaricomNumber());
      expect(await rejectionOf(wrong.initiate(req))).to.be.instanceOf(MpesaAuthenticationError);
      expect(await requestLog.find('mpesa', req.paymentId)).to.equal(undefined);
      await mpesa.initiate(req);
      expect(pushesTo(req.customer)).to.have.length(1);
    });

    it('refuses what M-Pesa cannot collect before anything is sent: another currency, cents, a non-Kenyan number', async () => {
      for (const overrides of [
        { currency: 'UGX' as const },
        { amount: 15_050 },
        { customer: '+250788123456' },
        { callbackUrl: null },
      ]) {
        const req = request(safaricomNumber(), overrides);
        expect(await rejectionOf(mpesa.initiate(req)), JSON.stringify(overrides)).to.be.instanceOf(ProviderRefusal);
        expect(await requestLog.find('mpesa', req.paymentId)).to.equal(undefined);
      }
    });
  });

  describe("Daraja's result codes, through the query and the callback", () => {
    const cases = [
      [DARAJA_FAKE_NUMBERS.cancelled, 'declined'],
      [DARAJA_FAKE_NUMBERS.insufficient, 'insufficient_funds'],
      [DARAJA_FAKE_NUMBERS.wrongPin, 'declined'],
      [DARAJA_FAKE_NUMBERS.unreachable, 'expired'],
      [DARAJA_FAKE_NUMBERS.expired, 'expired'],
    ] as const;
    for (const [ending, failureCode] of cases) {
      it(`maps the number ending ${ending} to failed ${failureCode}`, async () => {
        const req = request(safaricomNumber(ending));
        await mpesa.initiate(req);
        const { outcome } = await settledAnswer(mpesa, req.paymentId);
        expect(outcome).to.include({ status: 'failed', failureCode });
        if (outcome.status === 'failed') expect(outcome.failureMessage).to.match(/^M-Pesa: .*\(ResultCode \d+\)$/);
        const hint = await mpesa.parseCallback(await callbackFor(pushesTo(req.customer)[0]!.checkoutRequestId));
        expect(hint).to.deep.equal({ providerReference: req.paymentId, claimed: 'failed' });
      });
    }

    it('answers pending while Daraja says the transaction is being processed', async () => {
      const req = request(safaricomNumber(DARAJA_FAKE_NUMBERS.silent));
      await mpesa.initiate(req);
      await sleep(100);
      expect((await mpesa.fetchStatus(req.paymentId)).outcome).to.deep.equal({ status: 'pending' });
    });

    it('refuses a query about a payment it never pushed (an unknown reference)', async () => {
      expect(await rejectionOf(mpesa.fetchStatus(newId('pay_')))).to.be.instanceOf(ProviderRefusal);
    });
  });

  describe('no second prompt, ever', () => {
    it('a retried initiation after an accepted push asks nothing of Daraja and answers the same reference', async () => {
      const req = request(safaricomNumber(DARAJA_FAKE_NUMBERS.silent));
      const first = await mpesa.initiate(req);
      const pushesBefore = fake.requests.filter((r) => r.path === STK_PUSH_PATH).length;
      expect(await mpesa.initiate(req)).to.deep.equal(first);
      expect(fake.requests.filter((r) => r.path === STK_PUSH_PATH)).to.have.length(pushesBefore);
    });

    it('concurrent initiations of one payment (two workers) send one push', async () => {
      const req = request(safaricomNumber(DARAJA_FAKE_NUMBERS.silent));
      const other = createMpesaProvider(settings, { callbackSecret: CALLBACK_SECRET, requestLog });
      await Promise.all([mpesa.initiate(req), other.initiate(req), mpesa.initiate(req)]);
      expect(pushesTo(req.customer)).to.have.length(1);
    });

    for (const fault of ['error_500', 'hang', 'undocumented'] as const) {
      it(`a push answered ${fault} stays pending, is never sent again, and settles by its callback then the query`, async () => {
        const req = request(safaricomNumber());
        fake.injectFaults(fault, 1, [STK_PUSH_PATH]);
        const answer = await mpesa.initiate(req);
        expect(answer).to.deep.equal({
          providerReference: req.paymentId,
          outcome: { status: 'pending' },
          nextAction: null,
        });
        expect(await mpesa.initiate(req), 'a retry').to.deep.equal(answer);
        // Nothing to ask about before the callback names the push.
        expect((await mpesa.fetchStatus(req.paymentId)).outcome).to.deep.equal({ status: 'pending' });
        const [push] = pushesTo(req.customer);
        const hint = await mpesa.parseCallback(await callbackFor(push!.checkoutRequestId));
        expect(hint).to.deep.equal({ providerReference: req.paymentId, claimed: 'completed' });
        // The query confirms the success; the receipt number is the callback's MpesaReceiptNumber.
        expect(push!.receipt).to.match(/^[A-Z0-9]{10}$/);
        expect((await mpesa.fetchStatus(req.paymentId)).outcome).to.deep.equal({
          status: 'completed',
          receiptNumber: push!.receipt,
        });
        expect(pushesTo(req.customer), 'one prompt').to.have.length(1);
      });
    }

    it('refuses a push Daraja would not send (another request in process for the number: 500.001.1001)', async () => {
      const customer = safaricomNumber(DARAJA_FAKE_NUMBERS.silent);
      await mpesa.initiate(request(customer));
      const error = await rejectionOf(mpesa.initiate(request(customer)));
      expect(error).to.be.instanceOf(ProviderRefusal);
      expect((error as Error).message).to.match(/500\.001\.1001/);
    });
  });

  describe('callbacks', () => {
    it("keeps the first success callback's MpesaReceiptNumber; a refused or repeated callback changes it not", async () => {
      const req = request(safaricomNumber());
      await mpesa.initiate(req);
      const [push] = pushesTo(req.customer);
      const good = await callbackFor(push!.checkoutRequestId);
      // A callback with a wrong token, naming another receipt, is refused and keeps nothing.
      const forged = good.rawBody.replace(push!.receipt!, 'FORGED0001');
      expect(
        await rejectionOf(
          Promise.resolve().then(() =>
            mpesa.parseCallback({ ...good, rawBody: forged, query: { ...good.query, token: '0'.repeat(64) } }),
          ),
        ),
      ).to.be.instanceOf(ProviderRefusal);
      await mpesa.parseCallback(good);
      await mpesa.parseCallback({ ...good, rawBody: forged });
      expect((await settledAnswer(mpesa, req.paymentId)).outcome).to.deep.equal({
        status: 'completed',
        receiptNumber: push!.receipt,
      });
    });

    it('refuses a wrong or missing token, another CheckoutRequestID, and a body that is not a result; takes duplicates and late ones', async () => {
      const req = request(safaricomNumber());
      await mpesa.initiate(req);
      const [push] = pushesTo(req.customer);
      const good = await callbackFor(push!.checkoutRequestId);
      for (const query of [
        { ...good.query, token: '0'.repeat(64) },
        { payment: good.query.payment },
        { ...good.query, payment: newId('pay_') },
      ]) {
        expect(
          await rejectionOf(Promise.resolve().then(() => mpesa.parseCallback({ ...good, query }))),
        ).to.be.instanceOf(ProviderRefusal);
      }
      const other = good.rawBody.replace(push!.checkoutRequestId, 'ws_CO_000000000000000000');
      expect(
        await rejectionOf(Promise.resolve().then(() => mpesa.parseCallback({ ...good, rawBody: other }))),
      ).to.be.instanceOf(ProviderRefusal);
      expect(
        await rejectionOf(Promise.resolve().then(() => mpesa.parseCallback({ ...good, rawBody: '{"Body":{}}' }))),
      ).to.be.instanceOf(ProviderRefusal);
      const from = fake.callbacks.length;
      await fake.sendCallback(push!.checkoutRequestId);
      const again = await callbackFor(push!.checkoutRequestId, from);
      expect(await mpesa.parseCallback(again)).to.deep.equal(await mpesa.parseCallback(good));
    });

    it('declares cancel unsupported, and refunds too without an initiator (a reversal needs one)', async () => {
      expect(mpesa.supports).to.deep.equal({ cancel: false, refund: false, partialRefund: false });
      expect(await rejectionOf(mpesa.cancel('x'))).to.be.instanceOf(ProviderUnsupported);
      const refund = {
        providerReference: 'x',
        idempotencyKey: 'refund:x',
        amount: 1,
        paymentAmount: 1,
        currency: 'KES' as const,
      };
      expect(await rejectionOf(mpesa.refund(refund))).to.be.instanceOf(ProviderUnsupported);
    });
  });

  describe('the request log on PostgreSQL (shared by the API and the workers)', () => {
    it('claims a key once among concurrent claims, and keeps the first reference', async () => {
      const { db } = await getStack();
      const shared = createProviderRequestLog(db);
      const key = newId('pay_');
      const claims = await Promise.all(Array.from({ length: 5 }, () => shared.claim('mpesa', key)));
      expect(claims.filter(Boolean)).to.have.length(1);
      expect(await shared.find('mpesa', key)).to.deep.equal({ reference: null });
      expect(await shared.recordReference('mpesa', key, 'ws_CO_1')).to.equal('ws_CO_1');
      expect(await shared.recordReference('mpesa', key, 'ws_CO_2')).to.equal('ws_CO_1');
      expect(await shared.recordReference('mpesa', newId('pay_'), 'ws_CO_3')).to.equal(undefined);
      expect(await shared.find('momo', key)).to.equal(undefined);
    });
  });
});
