/**
 * The live MTN MoMo adapter (`momo`, docs/providers.md#mtn-momo) against the fake MoMo Collection API over real HTTP:
 * token cache and renewal, the documented request shapes, the X-Reference-Id derived from the
 * payment id (a retried initiation never asks twice), MTN's sandbox numbers, every documented
 * failure reason mapped onto ours, unknown answers (5xx, time-out, undocumented body) kept apart
 * from refusals, callbacks authenticated by their per-payment token, cancel declared unsupported, and refunds by the
 * Disbursement product's Refund (pending, then settled by its status call; a lost answer sent again is the same
 * refund), declared unsupported without the Disbursement credentials.
 */
import { expect } from 'chai';
import { newId } from '../../src/lib/ids';
import { ProviderUnknownAnswer } from '../../src/providers/http';
import {
  ProviderRefusal,
  ProviderUnsupported,
  type CallbackRequest,
  type InitiateRequest,
  type PaymentProvider,
  type RefundRequest,
} from '../../src/providers/provider';
import {
  createMomoProvider,
  momoAmount,
  momoReferenceId,
  momoText,
  MomoAuthenticationError,
} from '../../src/providers/momo/adapter';
import { momoCallbackToken } from '../../src/providers/momo/callback';
import { momoRefundReference } from '../../src/providers/momo/refund';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { operatorRows } from '../../src/domain/markets';
import { CURRENCY_EXPONENTS } from '../../src/domain/money';
import { momoSettingsSchema, type MomoSettings } from '../../src/providers/momo/settings';
import { MOMO_REASONS } from '../../src/providers/momo/statuses';
import { MOMO_FAKE_NUMBERS, startMomoFake, type FakeRequest, type FakeStatus, type MomoFake } from '../fakes/momo-fake';
import { initiateRequest, rejectionOf, settledAnswer, sleep, uniqueNumber } from '../helpers/adapters';
import { startReceiver, type Receiver } from '../helpers/receiver';

const API_USER = '5f0b7a3c-1d2e-4f60-8a9b-0c1d2e3f4a5b';
const API_KEY = 'momo-test-api-key';
const SUBSCRIPTION_KEY = 'momo-test-subscription-key';
const CALLBACK_SECRET = 'momo-callback-secret-for-tests-0123456789';
const APPROVAL_DELAY_MS = 40;
const DELAYED_APPROVAL_MS = 300;
/** Every adapter call's time-out here: short, so hangs are quick. */
const TIMEOUT_MS = 300;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A Rwandan MTN number (+25078…) ending in `suffix` (six digits; default: one that approves), unique per call. */
const rwandanNumber = (suffix = '200000') => uniqueNumber('+25078', 3, suffix);

describe('MTN MoMo adapter (momo, docs/providers.md#mtn-momo) against the fake MoMo Collection API', function () {
  this.timeout(10_000);
  let fake: MomoFake;
  let sink: Receiver;
  let settings: MomoSettings;
  let momo: PaymentProvider;
  let callbackUrl: string;

  before(async () => {
    sink = await startReceiver();
    fake = await startMomoFake({
      apiUser: API_USER,
      apiKey: API_KEY,
      subscriptionKey: SUBSCRIPTION_KEY,
      approvalDelayMs: APPROVAL_DELAY_MS,
      delayedApprovalMs: DELAYED_APPROVAL_MS,
    });
    settings = momoSettingsSchema.parse({
      baseUrl: fake.url,
      apiUser: API_USER,
      apiKey: API_KEY,
      subscriptionKey: SUBSCRIPTION_KEY,
      targetEnvironment: 'mtnrwanda',
      timeoutMs: TIMEOUT_MS,
    });
    momo = createMomoProvider(settings, { callbackSecret: CALLBACK_SECRET });
    callbackUrl = `${sink.origin}/v1/provider-callbacks/momo`;
  });
  after(async () => {
    await fake.close();
    await sink.close();
  });

  /** A fresh payment's initiation request: 1500 RWF from `customer` unless overridden. */
  const request = (customer: string, overrides: Partial<InitiateRequest> = {}) =>
    initiateRequest(customer, { amount: 1500, currency: 'RWF', description: 'Order 42', callbackUrl }, overrides);

  /** The requests the fake got to `path` (a prefix) since `from`. */
  function requestsTo(path: string, from = 0, method?: string): FakeRequest[] {
    return fake.requests
      .slice(from)
      .filter((r) => r.path.startsWith(path) && (method === undefined || r.method === method));
  }

  describe('access token', () => {
    it('is obtained with Basic apiUser:apiKey and the subscription key, no body, and reused until shortly before it expires', async () => {
      let clock = Date.now();
      const adapter = createMomoProvider(settings, { callbackSecret: CALLBACK_SECRET, now: () => new Date(clock) });
      const issued = fake.tokensIssued;
      const from = fake.requests.length;
      const { providerReference } = await adapter.initiate(request(rwandanNumber()));
      await adapter.fetchStatus(providerReference);
      expect(fake.tokensIssued - issued).to.equal(1);
      const [tokenRequest] = requestsTo('/collection/token/', from);
      expect(tokenRequest?.method).to.equal('POST');
      expect(tokenRequest?.headers.authorization).to.equal(
        `Basic ${Buffer.from(`${API_USER}:${API_KEY}`).toString('base64')}`,
      );
      expect(tokenRequest?.headers['ocp-apim-subscription-key']).to.equal(SUBSCRIPTION_KEY);
      expect(tokenRequest?.raw).to.equal('');

      clock += 3_545_000; // the fake's tokens live 3600 s; the cache renews 60 s early
      await adapter.fetchStatus(providerReference);
      expect(fake.tokensIssued - issued).to.equal(2);
    });

    it('is renewed when MoMo answers 401, and the call is made once more', async () => {
      const { providerReference } = await momo.initiate(request(rwandanNumber()));
      fake.expireTokens();
      const issued = fake.tokensIssued;
      const from = fake.requests.length;
      const answer = await momo.fetchStatus(providerReference);
      expect(answer.providerReference).to.equal(providerReference);
      expect(fake.tokensIssued - issued).to.equal(1);
      expect(requestsTo('/collection/v1_0/requesttopay/', from)).to.have.length(2);
    });

    it('refused credentials are an authentication fault (retried), never a refusal of the payment', async () => {
      const adapter = createMomoProvider({ ...settings, apiKey: 'wrong-key' }, { callbackSecret: CALLBACK_SECRET });
      const error = await rejectionOf(adapter.initiate(request(rwandanNumber())));
      expect(error).to.be.instanceOf(MomoAuthenticationError);
      expect(error).not.to.be.instanceOf(ProviderRefusal);
      expect((error as Error).message).not.to.include('wrong-key');
    });
  });

  describe('initiate', () => {
    it('sends the documented headers and body, and answers pending with no next action', async () => {
      const from = fake.requests.length;
      const initiation = request('+250788300001');
      const answer = await momo.initiate(initiation);
      const reference = momoReferenceId(initiation.paymentId);
      expect(reference).to.match(UUID_V4);
      expect(answer).to.deep.equal({ providerReference: reference, outcome: { status: 'pending' }, nextAction: null });
      const [sent] = requestsTo('/collection/v1_0/requesttopay', from, 'POST');
      expect(sent?.headers['x-reference-id']).to.equal(reference);
      expect(sent?.headers['x-target-environment']).to.equal('mtnrwanda');
      expect(sent?.headers['ocp-apim-subscription-key']).to.equal(SUBSCRIPTION_KEY);
      expect(sent?.headers.authorization).to.match(/^Bearer \S+$/);
      expect(sent?.headers['x-callback-url']).to.equal(
        `${callbackUrl}?reference=${reference}&token=${momoCallbackToken(reference, CALLBACK_SECRET)}`,
      );
      expect(sent?.body).to.deep.equal({
        amount: '1500',
        currency: 'RWF',
        externalId: initiation.paymentId,
        payer: { partyIdType: 'MSISDN', partyId: '250788300001' },
        payerMessage: 'Order 42',
        payeeNote: `Payment ${initiation.paymentId}`,
      });
    });

    it('sends no X-Callback-Url when the service has no callback URL', async () => {
      const from = fake.requests.length;
      await momo.initiate(request(rwandanNumber(), { callbackUrl: null }));
      const [sent] = requestsTo('/collection/v1_0/requesttopay', from, 'POST');
      expect(sent).not.to.equal(undefined);
      expect(sent?.headers).not.to.have.property('x-callback-url');
    });

    it('sends GHS in major units with two decimals to mtnghana', async () => {
      const ghana = createMomoProvider(
        { ...settings, targetEnvironment: 'mtnghana' },
        { callbackSecret: CALLBACK_SECRET },
      );
      const from = fake.requests.length;
      const answer = await ghana.initiate(request('+233241234567', { amount: 1250, currency: 'GHS' }));
      const [sent] = requestsTo('/collection/v1_0/requesttopay', from, 'POST');
      expect((sent?.body as { amount: string }).amount).to.equal('12.50');
      expect(fake.transactions.get(answer.providerReference)).to.include({
        amount: '12.50',
        currency: 'GHS',
        environment: 'mtnghana',
      });
      expect(momoAmount(5, 'GHS')).to.equal('0.05');
      expect(momoAmount(1_000_000_000_000, 'UGX')).to.equal('1000000000000');
    });

    it('collects in each new market of the table in its target environment and currency, refused elsewhere without a call', async () => {
      for (const row of operatorRows('momo').filter((r) => !['RW', 'UG', 'GH'].includes(r.country))) {
        const market = createMomoProvider(
          { ...settings, targetEnvironment: row.apiMarket },
          { callbackSecret: CALLBACK_SECRET },
        );
        const e164 = parsePhoneNumberFromString(row.sandboxNumber, row.country as never)!.number;
        const unit = 10 ** CURRENCY_EXPONENTS[row.currency];
        const from = fake.requests.length;
        const answer = await market.initiate(request(e164, { amount: 1500 * unit, currency: row.currency }));
        const [sent] = requestsTo('/collection/v1_0/requesttopay', from, 'POST');
        expect(sent?.headers['x-target-environment'], row.country).to.equal(row.apiMarket);
        expect(sent?.body, row.country).to.deep.include({
          amount: momoAmount(1500 * unit, row.currency),
          currency: row.currency,
        });
        expect(momoAmount(1500 * unit, row.currency)).to.equal(unit === 1 ? '1500' : '1500.00');
        expect((sent?.body as { payer: { partyId: string } }).payer.partyId).to.equal(e164.slice(1));
        expect(fake.transactions.get(answer.providerReference), row.country).to.include({ environment: row.apiMarket });
        // Another market's currency never reaches MoMo.
        const other = row.currency === 'XOF' ? 'XAF' : 'XOF';
        const before = fake.requests.length;
        const refused = await rejectionOf(market.initiate(request(e164, { amount: 1500, currency: other })));
        expect(refused, row.country).to.be.instanceOf(ProviderRefusal);
        expect(requestsTo('/collection/v1_0/requesttopay', before), row.country).to.have.length(0);
      }
    });

    it("collects only from numbers of its target environment's country: XOF from Benin is refused by mtnivorycoast, without a call", async () => {
      const ivorian = createMomoProvider(
        { ...settings, targetEnvironment: 'mtnivorycoast' },
        { callbackSecret: CALLBACK_SECRET },
      );
      const from = fake.requests.length;
      const error = await rejectionOf(ivorian.initiate(request('+2290197000001', { amount: 1500, currency: 'XOF' })));
      expect(error).to.be.instanceOf(ProviderRefusal);
      expect((error as Error).message).to.equal('MTN MoMo (mtnivorycoast) serves numbers of CI, not of BJ');
      expect(requestsTo('/collection/v1_0/requesttopay', from)).to.have.length(0);
    });

    it('trims texts to 160 characters and drops the characters MoMo refuses, so MoMo takes them', async () => {
      const description = `Bob's "order" <42> ${'x'.repeat(300)}`;
      const answer = await momo.initiate(request(rwandanNumber(), { description }));
      const transaction = fake.transactions.get(answer.providerReference);
      expect(transaction?.payerMessage).to.have.length(160);
      expect(transaction?.payerMessage.startsWith('Bobs order 42 xxx')).to.equal(true);
      expect(momoText(" '' ", 'pay_fallback')).to.equal('pay_fallback');
    });

    it('derives the X-Reference-Id from the payment id: the same payment always gets the same UUID v4, another payment another', () => {
      const first = momoReferenceId('pay_aaaaaaaaaaaaaaaaaaaaaaaa');
      expect(first).to.match(UUID_V4);
      expect(momoReferenceId('pay_aaaaaaaaaaaaaaaaaaaaaaaa')).to.equal(first);
      expect(momoReferenceId('pay_aaaaaaaaaaaaaaaaaaaaaaab')).not.to.equal(first);
    });

    it('retried, sends the same reference, gets 409 and answers with the request status: no second request to pay', async () => {
      const initiation = request(rwandanNumber());
      const first = await momo.initiate(initiation);
      const count = fake.transactions.size;
      await settledAnswer(momo, first.providerReference);
      const from = fake.requests.length;
      const second = await momo.initiate(initiation);
      // A success carries MoMo's financialTransactionId as its receipt number (docs/payments.md#payment-record).
      const receiptNumber = fake.transactions.get(first.providerReference)?.financialTransactionId;
      expect(receiptNumber).to.match(/^[0-9]{9}$/);
      expect(second).to.deep.equal({
        providerReference: first.providerReference,
        outcome: { status: 'completed', receiptNumber },
        nextAction: null,
      });
      expect(fake.transactions.size).to.equal(count);
      const [repeated] = requestsTo('/collection/v1_0/requesttopay', from, 'POST');
      expect(repeated?.headers['x-reference-id']).to.equal(first.providerReference);
      expect(requestsTo(`/collection/v1_0/requesttopay/${first.providerReference}`, from, 'GET')).to.have.length(1);
    });

    for (const kind of ['error_500', 'hang', 'undocumented'] as const) {
      it(`whose answer is lost (${kind}) is unknown, and the retry finds the one request to pay`, async () => {
        const initiation = request(rwandanNumber());
        fake.injectFaults(kind, 1, ['/collection/v1_0/requesttopay']);
        const lost = await rejectionOf(momo.initiate(initiation));
        expect(lost).to.be.instanceOf(ProviderUnknownAnswer);
        expect(lost).not.to.be.instanceOf(ProviderRefusal);
        const reference = momoReferenceId(initiation.paymentId);
        expect(fake.transactions.has(reference)).to.equal(true);
        const count = fake.transactions.size;
        const retried = await momo.initiate(initiation);
        expect(retried.providerReference).to.equal(reference);
        expect(retried.outcome.status).to.be.oneOf(['pending', 'completed']);
        expect(fake.transactions.size).to.equal(count);
      });
    }

    it('refused by MoMo (400: a currency the environment does not take) is a refusal, not an unknown answer', async () => {
      const sandbox = createMomoProvider(
        { ...settings, targetEnvironment: 'sandbox' },
        { callbackSecret: CALLBACK_SECRET },
      );
      const error = await rejectionOf(sandbox.initiate(request(rwandanNumber())));
      expect(error).to.be.instanceOf(ProviderRefusal);
      expect((error as ProviderRefusal).failureCode).to.equal('provider_error');
      expect((error as Error).message).to.include('INVALID_CURRENCY');
    });

    it('refuses a currency its production environment does not collect, without calling MoMo', async () => {
      const from = fake.requests.length;
      const error = await rejectionOf(momo.initiate(request('+233241234567', { amount: 1250, currency: 'GHS' })));
      expect(error).to.be.instanceOf(ProviderRefusal);
      expect(requestsTo('/collection/v1_0/requesttopay', from)).to.have.length(0);
    });
  });

  describe("MTN's sandbox numbers", () => {
    const cases: { name: string; suffix: string; outcome: Record<string, unknown> }[] = [
      {
        name: '46733123450 (failed) → failed provider_error',
        suffix: MOMO_FAKE_NUMBERS.failed,
        outcome: { status: 'failed', failureCode: 'provider_error' },
      },
      {
        name: '46733123451 (rejected) → failed declined',
        suffix: MOMO_FAKE_NUMBERS.rejected,
        outcome: { status: 'failed', failureCode: 'declined' },
      },
      {
        name: '46733123452 (expired) → failed expired',
        suffix: MOMO_FAKE_NUMBERS.expired,
        outcome: { status: 'failed', failureCode: 'expired' },
      },
      {
        name: '46733123455 (payer not found) → failed declined',
        suffix: MOMO_FAKE_NUMBERS.notFound,
        outcome: { status: 'failed', failureCode: 'declined' },
      },
      { name: 'any other number → completed', suffix: '200000', outcome: { status: 'completed' } },
    ];
    for (const { name, suffix, outcome } of cases) {
      it(name, async () => {
        const { providerReference } = await momo.initiate(request(rwandanNumber(suffix)));
        const answer = await settledAnswer(momo, providerReference);
        expect(answer.providerReference).to.equal(providerReference);
        expect(answer.outcome).to.include(outcome);
        if (answer.outcome.status === 'failed')
          expect(answer.outcome.failureMessage).to.match(/^MTN MoMo: .+ \([A-Z_]+\)$/);
      });
    }

    it("46733123450 itself, as MTN gives it, fails too (in MTN's sandbox environment, whose numbers these are)", async () => {
      // A production environment serves its own country's numbers only; MTN's sandbox numbers are Swedish.
      const sandbox = createMomoProvider(
        { ...settings, targetEnvironment: 'sandbox' },
        { callbackSecret: CALLBACK_SECRET },
      );
      const { providerReference } = await sandbox.initiate(request('+46733123450', { amount: 1500, currency: 'EUR' }));
      expect((await settledAnswer(sandbox, providerReference)).outcome).to.include({
        status: 'failed',
        failureCode: 'provider_error',
      });
      expect(fake.transactions.get(providerReference)?.payer.partyId).to.equal('46733123450');
    });

    it('46733123453 (ongoing) → pending (awaiting the payer), for as long as the payer does not answer', async () => {
      const { providerReference } = await momo.initiate(request(rwandanNumber(MOMO_FAKE_NUMBERS.ongoing)));
      await sleep(APPROVAL_DELAY_MS * 4);
      expect(fake.transactions.get(providerReference)?.status).to.equal('PENDING');
      expect((await momo.fetchStatus(providerReference)).outcome).to.deep.equal({ status: 'pending' });
    });

    it('46733123454 (delayed) → pending, then completed after the delay', async () => {
      const { providerReference } = await momo.initiate(request(rwandanNumber(MOMO_FAKE_NUMBERS.delayed)));
      await sleep(APPROVAL_DELAY_MS * 3);
      expect((await momo.fetchStatus(providerReference)).outcome).to.deep.equal({ status: 'pending' });
      await sleep(DELAYED_APPROVAL_MS);
      expect((await settledAnswer(momo, providerReference)).outcome).to.deep.equal({
        status: 'completed',
        receiptNumber: fake.transactions.get(providerReference)?.financialTransactionId,
      });
    });
  });

  describe('fetchStatus maps every documented failure reason', () => {
    const expected: Record<string, string> = {
      NOT_ENOUGH_FUNDS: 'insufficient_funds',
      PAYER_LIMIT_REACHED: 'declined',
      PAYER_NOT_FOUND: 'declined',
      SENDER_ACCOUNT_NOT_ACTIVE: 'declined',
      APPROVAL_REJECTED: 'declined',
      REJECTED: 'declined',
      PAYMENT_NOT_APPROVED: 'declined',
      TRANSACTION_CANCELED: 'declined',
      EXPIRED: 'expired',
      COULD_NOT_PERFORM_TRANSACTION: 'expired',
      INTERNAL_PROCESSING_ERROR: 'provider_error',
      SERVICE_UNAVAILABLE: 'provider_error',
      PAYEE_NOT_FOUND: 'provider_error',
      PAYEE_NOT_ALLOWED_TO_RECEIVE: 'provider_error',
      NOT_ALLOWED: 'provider_error',
      NOT_ALLOWED_TARGET_ENVIRONMENT: 'provider_error',
      INVALID_CALLBACK_URL_HOST: 'provider_error',
      INVALID_CURRENCY: 'provider_error',
      RESOURCE_NOT_FOUND: 'provider_error',
      TRANSACTION_NOT_FOUND: 'provider_error',
      RESOURCE_ALREADY_EXIST: 'provider_error',
    };

    it('the table names every reason the adapter knows', () => {
      expect(Object.keys(MOMO_REASONS).sort()).to.deep.equal(Object.keys(expected).sort());
    });

    it('FAILED with each reason → failed with its failure code and a message naming the reason', async () => {
      for (const [reason, failureCode] of Object.entries(expected)) {
        const { providerReference } = await momo.initiate(
          request(rwandanNumber(MOMO_FAKE_NUMBERS.ongoing), { callbackUrl: null }),
        );
        fake.decide(providerReference, 'FAILED', reason);
        const { outcome } = await momo.fetchStatus(providerReference);
        expect(outcome, reason).to.include({ status: 'failed', failureCode });
        expect(outcome.status === 'failed' && outcome.failureMessage, reason).to.include(`(${reason})`);
      }
    });

    it("reads the swagger's {code, message} reason, an unknown reason and none (provider_error)", async () => {
      const cases = [
        {
          reason: { code: 'NOT_ENOUGH_FUNDS', message: 'Not enough funds' },
          failureCode: 'insufficient_funds',
          text: '(NOT_ENOUGH_FUNDS)',
        },
        { reason: 'NOT ENOUGH_FUNDS', failureCode: 'insufficient_funds', text: '(NOT_ENOUGH_FUNDS)' },
        { reason: 'SOMETHING_NEW', failureCode: 'provider_error', text: '(SOMETHING_NEW)' },
        { reason: undefined, failureCode: 'provider_error', text: 'no reason given' },
      ];
      for (const { reason, failureCode, text } of cases) {
        const { providerReference } = await momo.initiate(
          request(rwandanNumber(MOMO_FAKE_NUMBERS.ongoing), { callbackUrl: null }),
        );
        fake.decide(providerReference, 'FAILED', reason);
        const { outcome } = await momo.fetchStatus(providerReference);
        expect(outcome).to.include({ status: 'failed', failureCode });
        expect(outcome.status === 'failed' && outcome.failureMessage).to.include(text);
      }
    });

    it('a reference MoMo does not know (404), or one that is not a MoMo reference, is a refusal', async () => {
      expect(await rejectionOf(momo.fetchStatus(momoReferenceId('pay_neverSent')))).to.be.instanceOf(ProviderRefusal);
      expect(await rejectionOf(momo.fetchStatus('pay_notAMomoReference'))).to.be.instanceOf(ProviderRefusal);
    });
  });

  describe('unknown answers', () => {
    for (const kind of ['error_500', 'hang', 'undocumented'] as const) {
      it(`${kind} on the status call is an unknown answer, neither a refusal nor a status`, async () => {
        const { providerReference } = await momo.initiate(request(rwandanNumber()));
        await settledAnswer(momo, providerReference);
        fake.injectFaults(kind, 1, ['/collection/v1_0/requesttopay/']);
        const started = Date.now();
        const error = await rejectionOf(momo.fetchStatus(providerReference));
        expect(error).to.be.instanceOf(ProviderUnknownAnswer);
        expect(error).not.to.be.instanceOf(ProviderRefusal);
        expect(Date.now() - started).to.be.below(TIMEOUT_MS + 1_000);
        expect((await momo.fetchStatus(providerReference)).outcome).to.include({ status: 'completed' });
      });
    }
  });

  it('an undocumented answer is unknown and says what came: a 404 to the request to pay, a 200 with a status MoMo does not document', async () => {
    fake.injectFaults('not_found', 1, ['/collection/v1_0/requesttopay']);
    const lost = await rejectionOf(momo.initiate(request(rwandanNumber(), { callbackUrl: null })));
    expect(lost).to.be.instanceOf(ProviderUnknownAnswer);
    expect((lost as Error).message).to.equal('POST /collection/v1_0/requesttopay: undocumented answer (HTTP 404)');

    const { providerReference } = await momo.initiate(
      request(rwandanNumber(MOMO_FAKE_NUMBERS.ongoing), { callbackUrl: null }),
    );
    fake.decide(providerReference, 'APPROVED' as FakeStatus);
    const unknown = await rejectionOf(momo.fetchStatus(providerReference));
    expect(unknown).to.be.instanceOf(ProviderUnknownAnswer);
    expect((unknown as Error).message).to.equal(
      `GET /collection/v1_0/requesttopay/${providerReference}: the answer does not match the provider's documented schema (status: "APPROVED")`,
    );
  });

  describe('callbacks', () => {
    /** The callbacks the sink got for `reference`, in order. */
    async function callbacksFor(reference: string, count: number) {
      for (let i = 0; i < 100; i += 1) {
        const got = sink.requests.filter((r) => r.path.includes(`reference=${reference}`));
        if (got.length >= count) return got;
        await sleep(20);
      }
      throw new Error(`fewer than ${count} callbacks for ${reference}`);
    }

    /** A received callback as the route hands it to the adapter. */
    function asCallback(received: { path: string; body: string }): CallbackRequest {
      const url = new URL(received.path, sink.origin);
      return {
        rawBody: received.body,
        headers: { 'content-type': 'application/json' },
        query: Object.fromEntries(url.searchParams),
      };
    }

    it('with the right token is accepted as a hint naming the request', async () => {
      const { providerReference } = await momo.initiate(request(rwandanNumber()));
      const [received] = await callbacksFor(providerReference, 1);
      expect(received?.method).to.equal('POST');
      expect(received?.path.startsWith('/v1/provider-callbacks/momo?')).to.equal(true);
      expect(momo.parseCallback(asCallback(received as { path: string; body: string }))).to.deep.equal({
        providerReference,
        claimed: 'completed',
      });
    });

    it('claims a failure for FAILED, and is read alike when MoMo PUTs it', async () => {
      try {
        fake.setMode({ callbackMethod: 'PUT' });
        const { providerReference } = await momo.initiate(request(rwandanNumber(MOMO_FAKE_NUMBERS.rejected)));
        const [received] = await callbacksFor(providerReference, 1);
        expect(received?.method).to.equal('PUT');
        expect((await momo.parseCallback(asCallback(received as { path: string; body: string }))).claimed).to.equal(
          'failed',
        );
      } finally {
        fake.setMode({ callbackMethod: 'POST' });
      }
    });

    it('with a wrong or missing token, or another reference, is refused before its body is read', () => {
      const reference = momoReferenceId('pay_callbackTarget');
      const rawBody = JSON.stringify({
        amount: '1500',
        currency: 'RWF',
        externalId: 'pay_callbackTarget',
        status: 'SUCCESSFUL',
        financialTransactionId: '123',
      });
      const token = momoCallbackToken(reference, CALLBACK_SECRET);
      const parse =
        (query: Record<string, string | undefined>, body = rawBody) =>
        () =>
          momo.parseCallback({ rawBody: body, headers: {}, query });
      expect(parse({ reference, token })()).to.deep.equal({ providerReference: reference, claimed: 'completed' });
      expect(parse({ reference })).to.throw(ProviderRefusal, /token/);
      expect(parse({ token })).to.throw(ProviderRefusal, /token/);
      expect(
        parse({ reference, token: momoCallbackToken(reference, 'another-secret-of-at-least-32-characters') }),
      ).to.throw(ProviderRefusal, /token/);
      expect(parse({ reference: momoReferenceId('pay_other'), token })).to.throw(ProviderRefusal, /token/);
      const altered = `${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}`;
      expect(parse({ reference, token: altered })).to.throw(ProviderRefusal, /token/);
      // A wrong token is refused even when the body is not JSON: authentication comes first.
      expect(parse({ reference, token: 'f'.repeat(64) }, 'not json')).to.throw(ProviderRefusal, /token/);
    });

    it('with the right token but a body that is not a documented result is refused', () => {
      const reference = momoReferenceId('pay_badBody');
      const query = { reference, token: momoCallbackToken(reference, CALLBACK_SECRET) };
      const parse = (rawBody: string) => () => momo.parseCallback({ rawBody, headers: {}, query });
      expect(parse('not json')).to.throw(ProviderRefusal, /not JSON/);
      expect(parse(JSON.stringify({ status: 'DONE' }))).to.throw(ProviderRefusal, /not a request-to-pay result/);
      expect(parse(JSON.stringify({ referenceId: momoReferenceId('pay_other'), status: 'SUCCESSFUL' }))).to.throw(
        ProviderRefusal,
        /another reference/,
      );
      expect(parse(JSON.stringify({ referenceId: reference, status: 'PENDING' }))()).to.deep.equal({
        providerReference: reference,
        claimed: 'pending',
      });
    });

    it('the fake calls back twice in "twice" mode and not at all in "off" mode', async () => {
      try {
        fake.setMode({ callbacks: 'twice' });
        const twice = await momo.initiate(request(rwandanNumber()));
        const bodies = (await callbacksFor(twice.providerReference, 2)).map((r) => r.body);
        expect(bodies[0]).to.equal(bodies[1]);

        fake.setMode({ callbacks: 'off' });
        const silent = await momo.initiate(request(rwandanNumber()));
        expect((await settledAnswer(momo, silent.providerReference)).outcome.status).to.equal('completed');
        await sleep(100);
        expect(sink.requests.filter((r) => r.path.includes(silent.providerReference))).to.have.length(0);
      } finally {
        fake.setMode({ callbacks: 'once' });
      }
    });
  });

  it('cancel is declared unsupported, and so are refunds without the Disbursement credentials: nothing is sent', async () => {
    expect(momo.supports).to.deep.equal({ cancel: false, refund: false, partialRefund: false });
    const reference = momoReferenceId('pay_unsupported');
    const refund: RefundRequest = {
      providerReference: reference,
      idempotencyKey: 'refund:ref_x',
      amount: 1500,
      paymentAmount: 1500,
      currency: 'RWF',
    };
    const from = fake.requests.length;
    for (const call of [momo.cancel(reference), momo.refund(refund), momo.fetchRefund(refund)]) {
      const error = await rejectionOf(call);
      expect(error).to.be.instanceOf(ProviderUnsupported);
    }
    expect(fake.requests.length).to.equal(from);
  });

  describe("refunds by the Disbursement product's Refund (docs/providers.md#mtn-momo)", () => {
    let refunding: PaymentProvider;
    const DISBURSEMENT = {
      disbursementApiUser: '7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
      disbursementApiKey: 'momo-disbursement-api-key',
      disbursementSubscriptionKey: 'momo-disbursement-subscription-key',
    };

    before(() => {
      refunding = createMomoProvider({ ...settings, ...DISBURSEMENT }, { callbackSecret: CALLBACK_SECRET });
    });
    afterEach(() => fake.setMode({ refunds: 'auto' }));

    /** A collected payment of 1500 RWF: its reference. */
    async function collected(): Promise<string> {
      const { providerReference } = await refunding.initiate(request(rwandanNumber()));
      expect((await settledAnswer(refunding, providerReference)).outcome.status).to.equal('completed');
      return providerReference;
    }

    /** A refund of `amount` of the payment `reference` (1500 RWF). */
    const refundOf = (reference: string, amount: number): RefundRequest => ({
      providerReference: reference,
      idempotencyKey: `refund:${newId('ref_')}`,
      amount,
      paymentAmount: 1500,
      currency: 'RWF',
    });

    /** `fetchRefund`'s answer once it is no longer pending (asked every 25 ms, about 2 s at most). */
    async function settledRefund(refund: RefundRequest) {
      for (let i = 0; i < 80; i += 1) {
        const answer = await refunding.fetchRefund(refund);
        if (answer.status !== 'pending') return answer;
        await sleep(25);
      }
      return refunding.fetchRefund(refund);
    }

    it('declares whole and partial refunds, as the descriptor does', () => {
      expect(refunding.supports).to.deep.equal({ cancel: false, refund: true, partialRefund: true });
    });

    it('sends the documented refund with the Disbursement key, pending at 202, then SUCCESSFUL by the status call; the rest after', async () => {
      const reference = await collected();
      const from = fake.requests.length;
      const part = refundOf(reference, 500);
      expect(await refunding.refund(part)).to.deep.equal({ status: 'pending' });
      const [sent] = requestsTo('/disbursement/v1_0/refund', from, 'POST');
      const refundReference = sent?.headers['x-reference-id'] as string;
      expect(refundReference).to.match(UUID_V4).and.not.equal(reference);
      expect(sent?.headers['ocp-apim-subscription-key']).to.equal(DISBURSEMENT.disbursementSubscriptionKey);
      expect(sent?.headers['x-target-environment']).to.equal('mtnrwanda');
      expect(sent?.headers['x-callback-url']).to.equal(undefined);
      const refundId = part.idempotencyKey.replace('refund:', '');
      expect(sent?.body).to.deep.equal({
        amount: '500',
        currency: 'RWF',
        externalId: refundId,
        payerMessage: `Refund ${refundId}`,
        payeeNote: `Refund ${refundId}`,
        referenceIdToRefund: reference,
      });
      const paid = await settledRefund(part);
      const held = fake.refunds.get(refundReference);
      expect(held).to.include({ status: 'SUCCESSFUL', referenceIdToRefund: reference });
      expect(paid).to.deep.equal({ status: 'succeeded', refundReference: held?.financialTransactionId });
      expect(requestsTo(`/disbursement/v1_0/refund/${refundReference}`, from, 'GET').length).to.be.greaterThan(0);

      const rest = refundOf(reference, 1000);
      expect(await refunding.refund(rest)).to.deep.equal({ status: 'pending' });
      expect((await settledRefund(rest)).status).to.equal('succeeded');
      // Nothing is left: MoMo refuses more than it collected.
      const more = refundOf(reference, 1);
      await refunding.refund(more);
      expect(await settledRefund(more)).to.deep.equal({
        status: 'failed',
        failureMessage: 'MTN MoMo refused the refund (NOT_ALLOWED: the Disbursement API user is not allowed to refund)',
      });
    });

    it("answers failed with MoMo's reason when the refund FAILS (NOT_ENOUGH_FUNDS)", async () => {
      const reference = await collected();
      fake.setMode({ refunds: 'hold' });
      const whole = refundOf(reference, 1500);
      expect(await refunding.refund(whole)).to.deep.equal({ status: 'pending' });
      expect(await refunding.fetchRefund(whole)).to.deep.equal({ status: 'pending' });
      fake.decideRefund(momoRefundReference(whole), 'FAILED', 'NOT_ENOUGH_FUNDS');
      expect(await refunding.fetchRefund(whole)).to.deep.equal({
        status: 'failed',
        failureMessage:
          'MTN MoMo refused the refund (NOT_ENOUGH_FUNDS: the Disbursement account does not hold enough to refund)',
      });
    });

    it('keeps a time-out unknown; sent again it is the same refund (409, then its status), never a second one', async () => {
      const reference = await collected();
      const refund = refundOf(reference, 700);
      expect(await refunding.fetchRefund(refund), 'never sent').to.deep.equal({ status: 'not_received' });
      fake.injectFaults('hang', 1, ['/disbursement/v1_0/refund']);
      const lost = await rejectionOf(refunding.refund(refund));
      expect(lost).to.be.instanceOf(Error).and.not.be.instanceOf(ProviderRefusal);
      // MoMo took it although its answer was lost.
      expect(fake.refunds.get(momoRefundReference(refund))?.amount).to.equal('700');
      const again = await refunding.refund(refund);
      expect(again.status).to.be.oneOf(['pending', 'succeeded']);
      expect((await settledRefund(refund)).status).to.equal('succeeded');
      expect([...fake.refunds.values()].filter((r) => r.externalId === refund.idempotencyKey.slice(7))).to.have.length(
        1,
      );
      // A 5xx of the status call is unknown too.
      fake.injectFaults('error_500', 1, ['/disbursement/v1_0/refund/']);
      expect(await rejectionOf(refunding.fetchRefund(refund))).to.be.instanceOf(ProviderUnknownAnswer);
    });

    it("answers failed to MoMo's 400 (INVALID_CURRENCY), and to what it cannot send, without sending it", async () => {
      const reference = await collected();
      // MTN's own sandbox takes EUR only: its 400 is a definite refusal.
      const sandbox = createMomoProvider(
        { ...settings, ...DISBURSEMENT, targetEnvironment: 'sandbox' },
        { callbackSecret: CALLBACK_SECRET },
      );
      const refused = await sandbox.refund(refundOf(reference, 500));
      expect(refused.status).to.equal('failed');
      expect((refused as { failureMessage: string }).failureMessage).to.match(
        /^MTN MoMo refused the refund \(INVALID_CURRENCY/,
      );
      const from = fake.requests.length;
      expect(await refunding.refund({ ...refundOf(reference, 500), currency: 'UGX' })).to.deep.equal({
        status: 'failed',
        failureMessage: 'MTN MoMo (mtnrwanda) refunds RWF, not UGX',
      });
      expect((await refunding.refund(refundOf('pay_not_a_uuid', 500))).status).to.equal('failed');
      expect(requestsTo('/disbursement/v1_0/refund', from)).to.deep.equal([]);
    });

    it('the fake takes V2 as V1 and refuses a refund without referenceIdToRefund (400)', async () => {
      const reference = await collected();
      const basic = `Basic ${Buffer.from(`${DISBURSEMENT.disbursementApiUser}:${DISBURSEMENT.disbursementApiKey}`).toString('base64')}`;
      const headers = { 'ocp-apim-subscription-key': DISBURSEMENT.disbursementSubscriptionKey };
      const token = (await (
        await fetch(`${fake.url}/disbursement/token/`, {
          method: 'POST',
          headers: { ...headers, authorization: basic },
        })
      ).json()) as { access_token: string };
      const post = (path: string, referenceId: string, body: object) =>
        fetch(`${fake.url}${path}`, {
          method: 'POST',
          headers: {
            ...headers,
            authorization: `Bearer ${token.access_token}`,
            'x-target-environment': 'mtnrwanda',
            'x-reference-id': referenceId,
            'content-type': 'application/json',
          },
          body: JSON.stringify(body),
        });
      const body = { amount: '100', currency: 'RWF', externalId: 'ref_v2', referenceIdToRefund: reference };
      const v2 = momoReferenceId(newId('ref_'));
      expect((await post('/disbursement/v2_0/refund', v2, body)).status).to.equal(202);
      expect(fake.refunds.get(v2)).to.include({ path: '/disbursement/v2_0/refund', amount: '100' });
      const { referenceIdToRefund: _missing, ...without } = body;
      expect((await post('/disbursement/v1_0/refund', momoReferenceId(newId('ref_')), without)).status).to.equal(400);
    });
  });

  it('the fake answers a missing subscription key, token or X-Target-Environment, and a bad X-Reference-Id, as MoMo documents', async () => {
    const basic = `Basic ${Buffer.from(`${API_USER}:${API_KEY}`).toString('base64')}`;
    const tokenAnswer = await fetch(`${fake.url}/collection/token/`, {
      method: 'POST',
      headers: { authorization: basic, 'ocp-apim-subscription-key': SUBSCRIPTION_KEY },
    });
    const token = (await tokenAnswer.json()) as { access_token: string; token_type: string; expires_in: number };
    expect(token.expires_in).to.equal(3600);
    expect(
      (await fetch(`${fake.url}/collection/token/`, { method: 'POST', headers: { authorization: basic } })).status,
    ).to.equal(401);

    const status = (headers: Record<string, string>) =>
      fetch(`${fake.url}/collection/v1_0/requesttopay/${momoReferenceId('pay_none')}`, { headers });
    const full = {
      authorization: `Bearer ${token.access_token}`,
      'ocp-apim-subscription-key': SUBSCRIPTION_KEY,
      'x-target-environment': 'mtnrwanda',
    };
    expect((await status({ ...full, 'ocp-apim-subscription-key': 'wrong' })).status).to.equal(401);
    expect((await status({ ...full, authorization: 'Bearer nope' })).status).to.equal(401);
    const noEnvironment = await status({
      authorization: full.authorization,
      'ocp-apim-subscription-key': SUBSCRIPTION_KEY,
    });
    expect(noEnvironment.status).to.equal(400);
    const wrongEnvironment = await status({ ...full, 'x-target-environment': 'mtnnowhere' });
    expect(wrongEnvironment.status).to.equal(500);
    expect(((await wrongEnvironment.json()) as { code: string }).code).to.equal('NOT_ALLOWED_TARGET_ENVIRONMENT');
    const notFound = await status(full);
    expect(notFound.status).to.equal(404);
    expect(((await notFound.json()) as { code: string }).code).to.equal('RESOURCE_NOT_FOUND');

    const body = {
      amount: '1500',
      currency: 'RWF',
      externalId: 'pay_x',
      payer: { partyIdType: 'MSISDN', partyId: '250788123000' },
      payerMessage: 'x',
      payeeNote: 'x',
    };
    const post = (reference: string) =>
      fetch(`${fake.url}/collection/v1_0/requesttopay`, {
        method: 'POST',
        headers: { ...full, 'content-type': 'application/json', 'x-reference-id': reference },
        body: JSON.stringify(body),
      });
    expect((await post('not-a-uuid')).status).to.equal(400);
    const reference = momoReferenceId(newId('pay_'));
    expect((await post(reference)).status).to.equal(202);
    const repeated = await post(reference);
    expect(repeated.status).to.equal(409);
    expect(((await repeated.json()) as { code: string }).code).to.equal('RESOURCE_ALREADY_EXIST');
  });
});
