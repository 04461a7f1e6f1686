/**
 * The live Airtel Money adapter (`mobile_money_b`, docs/providers.md#airtel-money) against the fake Airtel server over
 * real
 * HTTP: token cache and renewal, the documented request shapes, idempotent initiation, every
 * Airtel status mapped onto ours, unknown answers (5xx, time-out, undocumented body) kept apart from
 * refusals, callback hash authentication, whole-payment refunds, and cancel declared unsupported.
 */
import { expect } from 'chai';
import { newId } from '../../src/lib/ids';
import { ProviderUnknownAnswer } from '../../src/providers/http';
import {
  ProviderRefusal,
  ProviderUnsupported,
  type InitiateRequest,
  type PaymentProvider,
  type RefundRequest,
} from '../../src/providers/provider';
import {
  AirtelAuthenticationError,
  airtelTransactionId,
  createAirtelProvider,
} from '../../src/providers/airtel/adapter';
import { airtelCallbackHash } from '../../src/providers/airtel/callback';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { operatorRows } from '../../src/domain/markets';
import { CURRENCY_EXPONENTS } from '../../src/domain/money';
import { airtelSettingsSchema, type AirtelSettings } from '../../src/providers/airtel/settings';
import { AIRTEL_FAKE_NUMBERS, startAirtelFake, type AirtelFake, type FakeRequest } from '../fakes/airtel-fake';
import { initiateRequest, rejectionOf, settledAnswer, sleep, uniqueNumber } from '../helpers/adapters';
import { startReceiver, type Receiver } from '../helpers/receiver';

const CLIENT_ID = 'airtel-test-client';
const CLIENT_SECRET = 'airtel-test-secret';
const PRIVATE_KEY = 'airtel-callback-private-key-for-tests';
const APPROVAL_DELAY_MS = 60;
/** Every adapter call's time-out here: short, so hangs are quick. */
const TIMEOUT_MS = 400;

/** A Rwandan Airtel number ending in `suffix` (three digits), unique per call. */
const rwandanNumber = (suffix = '201') => uniqueNumber('+25072', 4, suffix);

describe('Airtel Money adapter (mobile_money_b, docs/providers.md#airtel-money) against the fake Airtel API', function () {
  this.timeout(10_000);
  let fake: AirtelFake;
  let sink: Receiver;
  let settings: AirtelSettings;
  let airtel: PaymentProvider;

  before(async () => {
    sink = await startReceiver();
    fake = await startAirtelFake({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      callbackUrl: `${sink.origin}/v1/provider-callbacks/mobile_money_b`,
      callbackPrivateKey: PRIVATE_KEY,
      approvalDelayMs: APPROVAL_DELAY_MS,
    });
    settings = airtelSettingsSchema.parse({
      baseUrl: fake.url,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      callbackPrivateKey: PRIVATE_KEY,
      timeoutMs: TIMEOUT_MS,
    });
    airtel = createAirtelProvider(settings, {});
  });
  after(async () => {
    await fake.close();
    await sink.close();
  });

  /** A fresh payment's initiation request: 1500 RWF from `customer` unless overridden. */
  const request = (customer: string, overrides: Partial<InitiateRequest> = {}) =>
    initiateRequest(customer, { amount: 1500, currency: 'RWF', description: 'Order 42', callbackUrl: null }, overrides);

  /** The refund of the whole 1500 RWF payment `providerReference` (or `amount` of it). */
  function refundOf(providerReference: string, amount = 1500): RefundRequest {
    return {
      providerReference,
      idempotencyKey: `refund:${newId('ref_')}`,
      amount,
      paymentAmount: 1500,
      currency: 'RWF',
    };
  }

  /** The requests the fake got to `path` since `from`. */
  function requestsTo(path: string, from = 0): FakeRequest[] {
    return fake.requests.slice(from).filter((r) => r.path.startsWith(path));
  }

  describe('access token', () => {
    it('is obtained once with the client credentials and reused until shortly before it expires', async () => {
      let clock = Date.now();
      const adapter = createAirtelProvider(settings, { now: () => new Date(clock) });
      const issued = fake.tokensIssued;
      const from = fake.requests.length;
      const { providerReference } = await adapter.initiate(request(rwandanNumber()));
      await adapter.fetchStatus(providerReference);
      expect(fake.tokensIssued - issued).to.equal(1);
      const [tokenRequest] = requestsTo('/auth/oauth2/token', from);
      expect(tokenRequest?.body).to.deep.equal({
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        grant_type: 'client_credentials',
      });

      clock += 125_000; // the fake's tokens live 180 s; the cache renews 60 s early
      await adapter.fetchStatus(providerReference);
      expect(fake.tokensIssued - issued).to.equal(2);
    });

    it('is renewed when Airtel answers 401, and the call is made once more', async () => {
      const { providerReference } = await airtel.initiate(request(rwandanNumber()));
      fake.expireTokens();
      const issued = fake.tokensIssued;
      const from = fake.requests.length;
      const answer = await airtel.fetchStatus(providerReference);
      expect(answer.providerReference).to.equal(providerReference);
      expect(fake.tokensIssued - issued).to.equal(1);
      expect(requestsTo('/standard/v1/payments/', from)).to.have.length(2);
    });

    it('refused client credentials are an authentication fault (retried), never a refusal of the payment', async () => {
      const adapter = createAirtelProvider({ ...settings, clientSecret: 'wrong' }, {});
      const error = await rejectionOf(adapter.initiate(request(rwandanNumber())));
      expect(error).to.be.instanceOf(AirtelAuthenticationError);
      expect(error).not.to.be.instanceOf(ProviderRefusal);
      expect((error as Error).message).not.to.include('wrong');
    });
  });

  describe('initiate', () => {
    it('sends the documented headers and body: national number, major units, id derived from the idempotency key', async () => {
      const from = fake.requests.length;
      const initiation = request('+250722345201');
      const answer = await airtel.initiate(initiation);
      const [sent] = requestsTo('/merchant/v1/payments/', from);
      const id = airtelTransactionId('RW', initiation.idempotencyKey);
      expect(id).to.match(/^RW[0-9A-Za-z]{20}$/);
      expect(sent?.headers['x-country']).to.equal('RW');
      expect(sent?.headers['x-currency']).to.equal('RWF');
      expect(sent?.headers.authorization).to.match(/^Bearer \S+$/);
      expect(sent?.body).to.deep.equal({
        reference: 'Order 42',
        subscriber: { country: 'RW', currency: 'RWF', msisdn: '722345201' },
        transaction: { amount: 1500, country: 'RW', currency: 'RWF', id },
      });
      expect(answer).to.deep.equal({ providerReference: id, outcome: { status: 'pending' }, nextAction: null });
    });

    it('sends KES in major units with its decimals, to Kenya', async () => {
      const from = fake.requests.length;
      const answer = await airtel.initiate(request('+254733123201', { amount: 150050, currency: 'KES' }));
      const [sent] = requestsTo('/merchant/v1/payments/', from);
      expect(sent?.headers['x-country']).to.equal('KE');
      expect(sent?.headers['x-currency']).to.equal('KES');
      expect(sent?.raw).to.include('"amount":1500.5,');
      expect((sent?.body as { subscriber: { msisdn: string } }).subscriber.msisdn).to.equal('733123201');
      expect(fake.transactions.get(answer.providerReference)?.amount).to.equal(1500.5);
    });

    it('collects in each new market of the table with its X-Country and X-Currency, the national number, major units', async () => {
      for (const row of operatorRows('mobile_money_b').filter((r) => !['RW', 'UG', 'KE'].includes(r.country))) {
        const e164 = parsePhoneNumberFromString(row.sandboxNumber, row.country as never)!.number;
        const unit = 10 ** CURRENCY_EXPONENTS[row.currency];
        const from = fake.requests.length;
        const initiation = request(e164, { amount: 1500 * unit, currency: row.currency });
        const answer = await airtel.initiate(initiation);
        const [sent] = requestsTo('/merchant/v1/payments/', from);
        const id = airtelTransactionId(row.country, initiation.idempotencyKey);
        expect(sent?.headers['x-country'], row.country).to.equal(row.country);
        expect(sent?.headers['x-currency'], row.country).to.equal(row.currency);
        expect(sent?.body, row.country).to.deep.equal({
          reference: 'Order 42',
          subscriber: { country: row.country, currency: row.currency, msisdn: row.sandboxNumber },
          transaction: { amount: 1500, country: row.country, currency: row.currency, id },
        });
        expect(answer.providerReference, row.country).to.equal(id);
        // The enquiry of a later call names the same country, read back from the transaction id.
        const status = await settledAnswer(airtel, id);
        expect(status.outcome.status, row.country).to.equal('completed');
        const refused = await rejectionOf(airtel.initiate(request(e164, { amount: 1500, currency: 'UGX' })));
        expect(refused, row.country).to.be.instanceOf(ProviderRefusal);
      }
    });

    it('retried with the same idempotency key, sends the same transaction id and creates no second transaction', async () => {
      const initiation = request(rwandanNumber());
      const first = await airtel.initiate(initiation);
      const count = fake.transactions.size;
      const from = fake.requests.length;
      const second = await airtel.initiate(initiation);
      expect(second.providerReference).to.equal(first.providerReference);
      expect(fake.transactions.size).to.equal(count);
      const [repeated] = requestsTo('/merchant/v1/payments/', from);
      expect((repeated?.body as { transaction: { id: string } }).transaction.id).to.equal(first.providerReference);
      expect(second.outcome.status).to.be.oneOf(['pending', 'completed']);
      expect(second.nextAction).to.equal(null);
    });

    it('whose answer was lost in a time-out is unknown, and the retry finds the one transaction', async () => {
      const initiation = request(rwandanNumber());
      fake.injectFaults('hang', 1, ['/merchant/v1/payments']);
      const lost = await rejectionOf(airtel.initiate(initiation));
      expect(lost).to.be.instanceOf(ProviderUnknownAnswer);
      const id = airtelTransactionId('RW', initiation.idempotencyKey);
      expect(fake.transactions.has(id)).to.equal(true);
      const count = fake.transactions.size;
      const retried = await airtel.initiate(initiation);
      expect(retried.providerReference).to.equal(id);
      expect(fake.transactions.size).to.equal(count);
    });

    it('refused outright by Airtel is a refusal carrying the reason', async () => {
      const error = await rejectionOf(airtel.initiate(request(rwandanNumber(AIRTEL_FAKE_NUMBERS.refusedAtInitiation))));
      expect(error).to.be.instanceOf(ProviderRefusal);
      expect((error as ProviderRefusal).failureCode).to.equal('declined');
    });

    it('refuses a number of a country Airtel is not used for here, without calling Airtel', async () => {
      const from = fake.requests.length;
      const error = await rejectionOf(airtel.initiate(request('+233241234567', { currency: 'GHS' })));
      expect(error).to.be.instanceOf(ProviderRefusal);
      expect(requestsTo('/merchant/v1/payments/', from)).to.have.length(0);
    });
  });

  describe('fetchStatus maps every Airtel status', () => {
    const cases: { name: string; suffix: string; outcome: Record<string, unknown> }[] = [
      { name: 'TS (approved) → completed', suffix: '201', outcome: { status: 'completed' } },
      {
        name: 'TF not enough balance → failed insufficient_funds',
        suffix: AIRTEL_FAKE_NUMBERS.insufficientFunds,
        outcome: { status: 'failed', failureCode: 'insufficient_funds' },
      },
      {
        name: 'TF refused by the customer → failed declined',
        suffix: AIRTEL_FAKE_NUMBERS.rejected,
        outcome: { status: 'failed', failureCode: 'declined' },
      },
      {
        name: 'TF wrong PIN → failed declined',
        suffix: AIRTEL_FAKE_NUMBERS.wrongPin,
        outcome: { status: 'failed', failureCode: 'declined' },
      },
      {
        name: 'TF expired → failed expired',
        suffix: AIRTEL_FAKE_NUMBERS.expired,
        outcome: { status: 'failed', failureCode: 'expired' },
      },
    ];
    for (const { name, suffix, outcome } of cases) {
      it(name, async () => {
        const { providerReference } = await airtel.initiate(request(rwandanNumber(suffix)));
        const answer = await settledAnswer(airtel, providerReference);
        expect(answer.providerReference).to.equal(providerReference);
        expect(answer.outcome).to.include(outcome);
        // A success carries Airtel's airtel_money_id as its receipt number (docs/payments.md#payment-record).
        if (answer.outcome.status === 'completed')
          expect(answer.outcome.receiptNumber)
            .to.be.a('string')
            .and.equal(fake.transactions.get(providerReference)?.airtelMoneyId);
        if (answer.outcome.status === 'failed') expect(answer.outcome.failureMessage).to.match(/^Airtel Money: /);
      });
    }

    it('TIP (the customer has not answered) → pending: awaiting customer action', async () => {
      const { providerReference } = await airtel.initiate(request(rwandanNumber(AIRTEL_FAKE_NUMBERS.neverAnswers)));
      await sleep(APPROVAL_DELAY_MS * 3);
      expect(fake.transactions.get(providerReference)?.status).to.equal('TIP');
      expect((await airtel.fetchStatus(providerReference)).outcome).to.deep.equal({ status: 'pending' });
    });

    it('TA (ambiguous) → processing: still unknown, keep asking', async () => {
      const { providerReference } = await airtel.initiate(request(rwandanNumber(AIRTEL_FAKE_NUMBERS.ambiguous)));
      await sleep(APPROVAL_DELAY_MS * 3);
      expect(fake.transactions.get(providerReference)?.status).to.equal('TA');
      expect((await airtel.fetchStatus(providerReference)).outcome).to.deep.equal({ status: 'processing' });
    });

    it('a transaction Airtel does not know, or a reference that is not ours, is a refusal', async () => {
      expect(await rejectionOf(airtel.fetchStatus(airtelTransactionId('RW', 'never-sent')))).to.be.instanceOf(
        ProviderRefusal,
      );
      expect(await rejectionOf(airtel.fetchStatus('pay_notAnAirtelReference'))).to.be.instanceOf(ProviderRefusal);
    });
  });

  describe('unknown answers', () => {
    for (const kind of ['error_500', 'hang', 'undocumented'] as const) {
      it(`${kind} on the enquiry is an unknown answer, neither a refusal nor a status`, async () => {
        const { providerReference } = await airtel.initiate(request(rwandanNumber()));
        fake.injectFaults(kind, 1, ['/standard/v1/payments/']);
        const error = await rejectionOf(airtel.fetchStatus(providerReference));
        expect(error).to.be.instanceOf(ProviderUnknownAnswer);
        expect(error).not.to.be.instanceOf(ProviderRefusal);
        expect((await airtel.fetchStatus(providerReference)).providerReference).to.equal(providerReference);
      });
    }

    it('a 500 or an undocumented body on initiation is unknown; the retry finds the transaction', async () => {
      for (const kind of ['error_500', 'undocumented'] as const) {
        const initiation = request(rwandanNumber());
        fake.injectFaults(kind, 1, ['/merchant/v1/payments']);
        expect(await rejectionOf(airtel.initiate(initiation))).to.be.instanceOf(ProviderUnknownAnswer);
        const count = fake.transactions.size;
        expect((await airtel.initiate(initiation)).providerReference).to.equal(
          airtelTransactionId('RW', initiation.idempotencyKey),
        );
        expect(fake.transactions.size).to.equal(count);
      }
    });
  });

  describe('callbacks', () => {
    /** The callbacks the sink got for `reference`, in order (raw bodies). */
    async function callbacksFor(reference: string, count: number): Promise<string[]> {
      for (let i = 0; i < 100; i += 1) {
        const bodies = sink.requests.map((r) => r.body).filter((body) => body.includes(`"id":"${reference}"`));
        if (bodies.length >= count) return bodies;
        await sleep(20);
      }
      throw new Error(`fewer than ${count} callbacks for ${reference}`);
    }

    it('with the valid hash is accepted as a hint naming the transaction', async () => {
      const { providerReference } = await airtel.initiate(request(rwandanNumber()));
      const [rawBody] = await callbacksFor(providerReference, 1);
      const body = JSON.parse(rawBody as string) as { transaction: unknown; hash: string };
      expect(body.hash).to.equal(airtelCallbackHash(body.transaction, PRIVATE_KEY));
      expect(airtel.parseCallback({ rawBody: rawBody as string, headers: {}, query: {} })).to.deep.equal({
        providerReference,
        claimed: 'completed',
      });
    });

    it('claims a failure for TF', async () => {
      const { providerReference } = await airtel.initiate(
        request(rwandanNumber(AIRTEL_FAKE_NUMBERS.insufficientFunds)),
      );
      const [rawBody] = await callbacksFor(providerReference, 1);
      expect((await airtel.parseCallback({ rawBody: rawBody as string, headers: {}, query: {} })).claimed).to.equal(
        'failed',
      );
    });

    it('with a wrong or missing hash, or a tampered body, is refused', async () => {
      const transaction = {
        id: airtelTransactionId('RW', 'x'),
        message: 'Paid RWF 1500',
        status_code: 'TS',
        airtel_money_id: 'MP1.2',
      };
      const signed = { transaction, hash: airtelCallbackHash(transaction, PRIVATE_KEY) };
      const parse = (body: unknown) => () =>
        airtel.parseCallback({ rawBody: JSON.stringify(body), headers: {}, query: {} });
      expect(parse(signed)).not.to.throw();
      expect(parse({ transaction })).to.throw(ProviderRefusal, /no hash/);
      expect(parse({ transaction, hash: airtelCallbackHash(transaction, 'another key') })).to.throw(
        ProviderRefusal,
        /not valid/,
      );
      expect(parse({ transaction: { ...transaction, status_code: 'TF' }, hash: signed.hash })).to.throw(
        ProviderRefusal,
        /not valid/,
      );
      expect(() => airtel.parseCallback({ rawBody: 'not json', headers: {}, query: {} })).to.throw(ProviderRefusal);
    });

    it('without a configured private key, a well-formed callback is accepted and a malformed one refused', () => {
      const open = createAirtelProvider({ ...settings, callbackPrivateKey: undefined }, {});
      const rawBody = JSON.stringify({
        transaction: { id: 'RWabc', message: 'Paid', status_code: 'TS', airtel_money_id: 'MP1' },
      });
      expect(open.parseCallback({ rawBody, headers: {}, query: {} })).to.deep.equal({
        providerReference: 'RWabc',
        claimed: 'completed',
      });
      expect(() =>
        open.parseCallback({
          rawBody: JSON.stringify({ transaction: { id: 'RWabc', status_code: 'DONE' } }),
          headers: {},
          query: {},
        }),
      ).to.throw(ProviderRefusal);
    });

    it('the fake calls back twice in "twice" mode and not at all in "off" mode', async () => {
      try {
        fake.setMode({ callbacks: 'twice' });
        const twice = await airtel.initiate(request(rwandanNumber()));
        const bodies = await callbacksFor(twice.providerReference, 2);
        expect(bodies[0]).to.equal(bodies[1]);

        fake.setMode({ callbacks: 'off' });
        const silent = await airtel.initiate(request(rwandanNumber()));
        expect((await settledAnswer(airtel, silent.providerReference)).outcome.status).to.equal('completed');
        await sleep(100);
        expect(sink.requests.filter((r) => r.body.includes(silent.providerReference))).to.have.length(0);
      } finally {
        fake.setMode({ callbacks: 'once' });
      }
    });
  });

  describe('refunds', () => {
    it('a partial refund is refused before Airtel is asked: Airtel refunds whole payments only', async () => {
      const { providerReference } = await airtel.initiate(request(rwandanNumber()));
      await settledAnswer(airtel, providerReference);
      const from = fake.requests.length;
      const error = await rejectionOf(airtel.refund(refundOf(providerReference, 500)));
      expect(error).to.be.instanceOf(ProviderRefusal);
      expect((error as Error).message).to.include('whole payment only');
      expect(fake.requests.length).to.equal(from);
    });

    it('a full refund succeeds, is found afterwards, and is never made twice', async () => {
      const { providerReference } = await airtel.initiate(request(rwandanNumber()));
      expect((await settledAnswer(airtel, providerReference)).outcome.status).to.equal('completed');
      const refund = refundOf(providerReference);
      expect(await airtel.fetchRefund(refund)).to.deep.equal({ status: 'not_received' });

      const from = fake.requests.length;
      const answer = await airtel.refund(refund);
      const transaction = fake.transactions.get(providerReference);
      expect(answer).to.deep.equal({ status: 'succeeded', refundReference: transaction?.refundId });
      const [sent] = requestsTo('/standard/v1/payments/refund', from);
      expect(sent?.body).to.deep.equal({ transaction: { airtel_money_id: transaction?.airtelMoneyId } });
      expect(sent?.headers['x-country']).to.equal('RW');
      expect(transaction?.status).to.equal('TR');

      expect((await airtel.fetchRefund(refund)).status).to.equal('succeeded');
      const again = fake.requests.length;
      expect((await airtel.refund(refund)).status).to.equal('succeeded');
      expect(requestsTo('/standard/v1/payments/refund', again)).to.have.length(0);
    });

    it('a payment Airtel did not collect cannot be refunded', async () => {
      const { providerReference } = await airtel.initiate(request(rwandanNumber(AIRTEL_FAKE_NUMBERS.rejected)));
      await settledAnswer(airtel, providerReference);
      expect((await airtel.refund(refundOf(providerReference))).status).to.equal('failed');
    });

    it('a refund of a payment Airtel has no record of was not received', async () => {
      expect(await airtel.fetchRefund(refundOf(airtelTransactionId('RW', 'never-sent')))).to.deep.equal({
        status: 'not_received',
      });
    });
  });

  it('cancel is declared unsupported: Airtel cannot withdraw a USSD push', async () => {
    expect(airtel.supports).to.deep.equal({ cancel: false, refund: true, partialRefund: false });
    expect(await rejectionOf(airtel.cancel(airtelTransactionId('RW', 'x')))).to.be.instanceOf(ProviderUnsupported);
  });

  it('the fake answers a missing Authorization, X-Country or X-Currency as Airtel documents', async () => {
    const token = (await (
      await fetch(`${fake.url}/auth/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, grant_type: 'client_credentials' }),
      })
    ).json()) as { access_token: string; expires_in: string };
    expect(token.expires_in).to.equal('180');
    const enquiry = (headers: Record<string, string>) => fetch(`${fake.url}/standard/v1/payments/RWx`, { headers });
    expect((await enquiry({ 'x-country': 'RW', 'x-currency': 'RWF' })).status).to.equal(401);
    const bearer = { authorization: `Bearer ${token.access_token}` };
    const noCountry = await enquiry({ ...bearer, 'x-currency': 'RWF' });
    expect(noCountry.status).to.equal(400);
    expect(((await noCountry.json()) as { status: { result_code: string } }).status.result_code).to.equal('ROUTER003');
    const wrongCurrency = await enquiry({ ...bearer, 'x-country': 'RW', 'x-currency': 'KES' });
    expect(((await wrongCurrency.json()) as { status: { result_code: string } }).status.result_code).to.equal(
      'ROUTER112',
    );
    expect((await enquiry({ ...bearer, 'x-country': 'RW', 'x-currency': 'RWF' })).status).to.equal(404);
  });
});
