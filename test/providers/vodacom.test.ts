/**
 * The live Vodacom M-Pesa Tanzania adapter (`vodacom`, docs/providers.md#vodacom-m-pesa-tanzania-vodacom) against the
 * M-Pesa OpenAPI fake over real HTTP: the session (the API key and each session id RSA-encrypted with the portal's
 * key, cached, renewed after a 401, a refused key kept unknown), the C2B request's documented shape, the OpenAPI's
 * codes mapped onto ours, and above all no second prompt: a retried or concurrent initiation, a C2B request answered
 * 500 or never answered, never sends again, and such a payment is settled by the status query. Refunds by the
 * reversal, whole payments only, never sent twice.
 */
import { expect } from 'chai';
import { createProviderRequestLog } from '../../src/db/provider-requests';
import { newId } from '../../src/lib/ids';
import {
  memoryRequestLog,
  ProviderRefusal,
  ProviderUnsupported,
  type InitiateRequest,
  type PaymentProvider,
  type RefundRequest,
} from '../../src/providers/provider';
import { providerSettingsFrom } from '../../src/providers/settings';
import {
  conversationIdOf,
  createVodacomProvider,
  VodacomAuthenticationError,
} from '../../src/providers/vodacom/adapter';
import { vodacomSettingsSchema, type VodacomSettings } from '../../src/providers/vodacom/settings';
import {
  C2B_PATH,
  QUERY_PATH,
  REVERSAL_PATH,
  startVodacomFake,
  vodacomSettingsFor,
  VODACOM_FAKE_NUMBERS,
  type VodacomFake,
} from '../fakes/vodacom-fake';
import { initiateRequest, rejectionOf, settledAnswer, uniqueNumber } from '../helpers/adapters';
import { getStack } from '../helpers/stack';

const TIMEOUT_MS = 400;

/** A Vodacom Tanzania number (+25575…) ending in `ending` (four digits; default: one that pays), unique per call. */
const vodacomNumber = (ending = '5000') => uniqueNumber('+25575', 3, ending);

describe('Vodacom M-Pesa adapter (vodacom, docs/providers.md#vodacom-m-pesa-tanzania-vodacom) against the OpenAPI fake', function () {
  this.timeout(15_000);
  let fake: VodacomFake;
  let settings: VodacomSettings;
  let vodacom: PaymentProvider;

  before(async () => {
    fake = await startVodacomFake();
    settings = vodacomSettingsSchema.parse(vodacomSettingsFor(fake, TIMEOUT_MS));
    vodacom = createVodacomProvider(settings, { requestLog: memoryRequestLog() });
  });
  after(async () => {
    await fake.close();
  });

  /** A fresh payment's initiation request: TZS 1,500.00 from `customer` unless overridden. */
  const request = (customer: string, overrides: Partial<InitiateRequest> = {}) =>
    initiateRequest(
      customer,
      { amount: 150_000, currency: 'TZS', description: "Order #42 (Mama Neema's shop)", callbackUrl: null },
      overrides,
    );

  /** The C2B requests the fake got for `customer`. */
  const c2bRequestsOf = (customer: string) =>
    fake.requests.filter(
      (r) =>
        r.path === C2B_PATH && (r.body as { input_CustomerMSISDN?: string }).input_CustomerMSISDN === customer.slice(1),
    );

  /** The refund of the whole of `payment` (its receipt number as the workflow passes it). */
  const refundOf = (
    payment: InitiateRequest,
    receiptNumber: string | null,
    amount = payment.amount,
  ): RefundRequest => ({
    providerReference: payment.paymentId,
    idempotencyKey: `refund:${newId('ref_')}`,
    amount,
    paymentAmount: payment.amount,
    currency: 'TZS',
    receiptNumber,
  });

  describe('sessions', () => {
    it('opens one session with the encrypted API key and reuses it; a refused session is renewed once', async () => {
      // A generous time-out: this test counts sessions and requests, and an answer late on a loaded machine would
      // leave the payment pending and the count of sessions short.
      const own = createVodacomProvider({ ...settings, timeoutMs: 5_000 }, { requestLog: memoryRequestLog() });
      const before = fake.sessionsIssued;
      await own.initiate(request(vodacomNumber()));
      await own.initiate(request(vodacomNumber()));
      expect(fake.sessionsIssued - before).to.equal(1);
      fake.expireSessions();
      const customer = vodacomNumber();
      const answer = await own.initiate(request(customer));
      expect(answer.outcome.status).to.equal('completed');
      expect(fake.sessionsIssued - before).to.equal(2);
      // Sent twice: refused under the expired session (nothing done), then taken once under the new one.
      expect(c2bRequestsOf(customer)).to.have.length(2);
      expect(fake.transactions.filter((t) => `+${t.msisdn}` === customer)).to.have.length(1);
    });

    it('a refused API key is an authentication error before anything is claimed or sent', async () => {
      const log = memoryRequestLog();
      const wrong = createVodacomProvider({ ...settings, apiKey: 'not-the-key' }, { requestLog: log });
      const customer = vodacomNumber();
      const payment = request(customer);
      expect(await rejectionOf(wrong.initiate(payment))).to.be.instanceOf(VodacomAuthenticationError);
      expect(c2bRequestsOf(customer)).to.have.length(0);
      expect(await log.find('vodacom', payment.paymentId)).to.equal(undefined);
    });
  });

  describe('C2B payments', () => {
    it('sends the documented request and answers with the transaction id as the receipt, kept for later questions', async () => {
      const customer = vodacomNumber();
      const payment = request(customer);
      const answer = await vodacom.initiate(payment);
      const [sent] = c2bRequestsOf(customer);
      expect(sent?.method).to.equal('POST');
      expect(sent?.headers.origin).to.equal('*');
      expect(sent?.body).to.deep.equal({
        input_Amount: '1500',
        input_Country: 'TZN',
        input_Currency: 'TZS',
        input_CustomerMSISDN: customer.slice(1),
        input_ServiceProviderCode: fake.serviceProviderCode,
        input_ThirdPartyConversationID: conversationIdOf(payment.paymentId),
        input_TransactionReference: conversationIdOf(payment.paymentId).slice(-12),
        input_PurchasedItemsDesc: 'Order 42 Mama Neema s shop',
      });
      const transaction = fake.transactions.find(
        (t) => t.thirdPartyConversationId === conversationIdOf(payment.paymentId),
      );
      expect(answer).to.deep.equal({
        providerReference: payment.paymentId,
        outcome: { status: 'completed', receiptNumber: transaction?.transactionId },
        nextAction: null,
      });
      const queries = fake.requests.filter((r) => r.path === QUERY_PATH).length;
      expect((await vodacom.fetchStatus(payment.paymentId)).outcome).to.deep.equal(answer.outcome);
      expect(fake.requests.filter((r) => r.path === QUERY_PATH).length).to.equal(queries);
    });

    const failures: [string, string, string][] = [
      [VODACOM_FAKE_NUMBERS.cancelled, 'declined', 'INS-5'],
      [VODACOM_FAKE_NUMBERS.wrongPin, 'declined', 'INS-2001'],
      [VODACOM_FAKE_NUMBERS.inactive, 'declined', 'INS-996'],
      [VODACOM_FAKE_NUMBERS.insufficient, 'insufficient_funds', 'INS-2006'],
      [VODACOM_FAKE_NUMBERS.timeout, 'expired', 'INS-9'],
      [VODACOM_FAKE_NUMBERS.failed, 'provider_error', 'INS-6'],
    ];
    for (const [ending, failureCode, code] of failures) {
      it(`maps ${code} to failed, ${failureCode}, sent once (a 401 naming an outcome opens no new session)`, async () => {
        const customer = vodacomNumber(ending);
        const sessions = fake.sessionsIssued;
        const payment = request(customer);
        const answer = await vodacom.initiate(payment);
        expect(answer.outcome).to.include({ status: 'failed', failureCode, reason: code });
        expect(c2bRequestsOf(customer)).to.have.length(1);
        expect(fake.sessionsIssued).to.equal(sessions);
        expect((await vodacom.fetchStatus(payment.paymentId)).outcome).to.include({ status: 'failed', failureCode });
      });
    }

    it('refuses what it cannot send (another currency, cents, a number outside Tanzania) before sending anything', async () => {
      const customer = vodacomNumber();
      const cases: Partial<InitiateRequest>[] = [
        { currency: 'KES' },
        { amount: 150_050 },
        { customer: '+254712345678' },
      ];
      for (const overrides of cases) {
        const error = await rejectionOf(vodacom.initiate(request(customer, overrides)));
        expect(error, JSON.stringify(overrides)).to.be.instanceOf(ProviderRefusal);
      }
      expect(c2bRequestsOf(customer)).to.have.length(0);
    });
  });

  describe('no second prompt, unknown answers settled by the status query', () => {
    for (const fault of ['hang', 'error_500', 'undocumented'] as const) {
      it(`a C2B request answered with ${fault} stays pending, is never sent again, and the query settles it`, async () => {
        const customer = vodacomNumber();
        const payment = request(customer);
        fake.injectFaults(fault, 1, [C2B_PATH]);
        expect((await vodacom.initiate(payment)).outcome).to.deep.equal({ status: 'pending' });
        expect((await vodacom.initiate(payment)).outcome).to.deep.equal({ status: 'pending' });
        expect(c2bRequestsOf(customer)).to.have.length(1);
        const transaction = fake.transactions.find(
          (t) => t.thirdPartyConversationId === conversationIdOf(payment.paymentId),
        );
        const answer = await settledAnswer(vodacom, payment.paymentId);
        expect(answer.outcome).to.deep.equal({ status: 'completed', receiptNumber: transaction?.transactionId });
        const [query] = fake.requests.filter(
          (r) => r.path === QUERY_PATH && r.query.get('input_QueryReference') === conversationIdOf(payment.paymentId),
        );
        expect(query?.query.get('input_Country')).to.equal('TZN');
        expect(query?.query.get('input_ServiceProviderCode')).to.equal(fake.serviceProviderCode);
      });
    }

    it('a customer who has not answered yet: pending until the query says Completed, or Failed', async () => {
      for (const [code, expected] of [
        ['INS-0', 'completed'],
        ['INS-2006', 'failed'],
      ] as const) {
        const customer = vodacomNumber(VODACOM_FAKE_NUMBERS.undecided);
        const payment = request(customer);
        expect((await vodacom.initiate(payment)).outcome).to.deep.equal({ status: 'pending' });
        expect((await vodacom.fetchStatus(payment.paymentId)).outcome).to.deep.equal({ status: 'pending' });
        fake.decide(conversationIdOf(payment.paymentId), code);
        expect((await vodacom.fetchStatus(payment.paymentId)).outcome.status).to.equal(expected);
        expect(c2bRequestsOf(customer)).to.have.length(1);
      }
    });

    it('concurrent initiations of one payment send one C2B request', async () => {
      const customer = vodacomNumber();
      const payment = request(customer);
      const answers = await Promise.all(Array.from({ length: 4 }, () => vodacom.initiate(payment)));
      expect(c2bRequestsOf(customer)).to.have.length(1);
      expect(answers.map((a) => a.outcome.status).sort()).to.deep.equal(['completed', 'pending', 'pending', 'pending']);
    });

    it('a payment it never sent is refused', async () => {
      expect(await rejectionOf(vodacom.fetchStatus(newId('pay_')))).to.be.instanceOf(ProviderRefusal);
    });
  });

  describe('refunds by the reversal', () => {
    async function paid(): Promise<{ payment: InitiateRequest; receipt: string }> {
      const payment = request(vodacomNumber());
      const answer = await vodacom.initiate(payment);
      expect(answer.outcome.status).to.equal('completed');
      return { payment, receipt: (answer.outcome as { receiptNumber: string }).receiptNumber };
    }
    const reversalsOf = (receipt: string) =>
      fake.requests.filter(
        (r) => r.path === REVERSAL_PATH && (r.body as { input_TransactionID?: string }).input_TransactionID === receipt,
      );

    it('reverses the whole payment once, and answers a repeated refund from what it kept', async () => {
      const { payment, receipt } = await paid();
      const refund = refundOf(payment, receipt);
      const answer = await vodacom.refund(refund);
      const reversal = fake.transactions.find((t) => t.kind === 'reversal' && t.reverses === receipt);
      expect(answer).to.deep.equal({ status: 'succeeded', refundReference: reversal?.transactionId });
      expect(reversalsOf(receipt)[0]?.method).to.equal('PUT');
      expect(reversalsOf(receipt)[0]?.body).to.include({ input_ReversalAmount: '1500', input_Country: 'TZN' });
      expect(await vodacom.refund(refund)).to.deep.equal(answer);
      expect(await vodacom.fetchRefund(refund)).to.deep.equal(answer);
      expect(reversalsOf(receipt)).to.have.length(1);
    });

    it('refuses a partial refund, and fails one of a payment whose transaction id is unknown, sending nothing', async () => {
      const { payment, receipt } = await paid();
      expect(await rejectionOf(vodacom.refund(refundOf(payment, receipt, 50_000)))).to.be.instanceOf(ProviderRefusal);
      const unknown = request(vodacomNumber());
      expect(await vodacom.refund(refundOf(unknown, null))).to.have.property('status', 'failed');
      expect(reversalsOf(receipt)).to.have.length(0);
    });

    it('takes the receipt kept from the C2B answer when the refund names none', async () => {
      const { payment, receipt } = await paid();
      expect(await vodacom.refund(refundOf(payment, null))).to.have.property('status', 'succeeded');
      expect(reversalsOf(receipt)).to.have.length(1);
    });

    it("a refused reversal fails the refund with the OpenAPI's code", async () => {
      const { payment, receipt } = await paid();
      fake.failNextReversal(422, 'INS-6', 'Transaction Failed');
      const answer = await vodacom.refund(refundOf(payment, receipt));
      expect(answer).to.deep.equal({ status: 'failed', failureMessage: 'Vodacom M-Pesa refused the reversal (INS-6)' });
    });

    it('a reversal whose answer was lost is unknown, never sent again, and the query settles it', async () => {
      const { payment, receipt } = await paid();
      const refund = refundOf(payment, receipt);
      expect(await vodacom.fetchRefund(refund)).to.deep.equal({ status: 'not_received' });
      fake.injectFaults('hang', 1, [REVERSAL_PATH]);
      expect(await rejectionOf(vodacom.refund(refund))).to.be.instanceOf(Error);
      expect(await vodacom.refund(refund)).to.deep.equal({ status: 'pending' });
      const reversal = fake.transactions.find((t) => t.kind === 'reversal' && t.reverses === receipt);
      expect(await vodacom.fetchRefund(refund)).to.deep.equal({
        status: 'succeeded',
        refundReference: reversal?.transactionId,
      });
      expect(reversalsOf(receipt)).to.have.length(1);
    });
  });

  describe('what it does not offer', () => {
    it('cancel is unsupported and every callback is refused', async () => {
      expect(await rejectionOf(vodacom.cancel('pay_x'))).to.be.instanceOf(ProviderUnsupported);
      expect(() => vodacom.parseCallback({ rawBody: '{}', headers: {}, query: {} })).to.throw(ProviderRefusal);
    });
  });

  describe('settings', () => {
    it('reads VODACOM_… variables, refusing a public key that is not one', () => {
      const env = {
        VODACOM_BASE_URL: fake.baseUrl,
        VODACOM_API_KEY: fake.apiKey,
        VODACOM_PUBLIC_KEY: fake.publicKey,
        VODACOM_SERVICE_PROVIDER_CODE: '000000',
      };
      expect(providerSettingsFrom(env).settings.live.vodacom).to.deep.include({ origin: '*', timeoutMs: 8000 });
      const { problems } = providerSettingsFrom({ ...env, VODACOM_PUBLIC_KEY: 'bm90IGEga2V5' });
      expect(problems).to.have.length(1);
      expect(problems[0]).to.match(/^VODACOM_PUBLIC_KEY: /);
    });
  });

  describe('the request log on PostgreSQL (shared by the API and the workers)', function () {
    let shared: ReturnType<typeof createProviderRequestLog>;
    before(async function () {
      // The first test to ask for the stack starts PostgreSQL and Temporal: not a time the adapter is judged by.
      this.timeout(120_000);
      shared = createProviderRequestLog((await getStack()).db);
    });

    it('a payment claimed by another process is never sent again', async () => {
      const one = createVodacomProvider(settings, { requestLog: shared });
      const other = createVodacomProvider(settings, { requestLog: shared });
      const customer = vodacomNumber();
      const payment = request(customer);
      const answers = await Promise.all([one.initiate(payment), other.initiate(payment)]);
      expect(c2bRequestsOf(customer)).to.have.length(1);
      expect((await settledAnswer(other, payment.paymentId)).outcome.status).to.equal('completed');
      expect(answers.map((a) => a.outcome.status)).to.include('completed');
    });
  });
});
