/**
 * M-Pesa refunds by Daraja's Reversal (docs/providers.md#m-pesa) against the Daraja fake over real HTTP, its callbacks
 * (the STK push's and the reversal's) received by a real HTTP server that hands them to the M-Pesa adapter as the
 * callback route does: the receipt number kept from the push's success callback, the documented reversal request of
 * the whole payment, its result by callback (reversed, refused with Daraja's reason), a lost result settled by
 * Transaction Status, a lost answer never followed by a second reversal, a partial refund refused before anything is
 * sent, and callbacks with a wrong token or for a refund never sent refused.
 */
import { expect } from 'chai';
import { newId } from '../../src/lib/ids';
import { createMpesaProvider } from '../../src/providers/mpesa/adapter';
import { mpesaReceiptOf } from '../../src/providers/mpesa/receipt';
import { mpesaRefundCallbackToken } from '../../src/providers/mpesa/reversal';
import { mpesaSettingsSchema, type MpesaSettings } from '../../src/providers/mpesa/settings';
import {
  memoryRequestLog,
  ProviderRefusal,
  ProviderUnsupported,
  type PaymentProvider,
  type ProviderRequestLog,
  type RefundAnswer,
  type RefundRequest,
} from '../../src/providers/provider';
import {
  REVERSAL_PATH,
  startDarajaFake,
  TRANSACTION_STATUS_PATH,
  type DarajaFake,
  type DarajaPush,
} from '../fakes/daraja-fake';
import {
  initiateRequest,
  rejectionOf,
  settledAnswer,
  sleep,
  startCallbackSink,
  uniqueNumber,
  type CallbackSink,
} from '../helpers/adapters';

const CALLBACK_SECRET = 'mpesa-callback-secret-for-tests-0123456789';

/** A Safaricom number (+2547…) that pays, unique per call. */
const customer = () => uniqueNumber('+25472', 3, '5000');

describe("M-Pesa refunds by Daraja's Reversal (docs/providers.md#m-pesa) against the Daraja fake", function () {
  this.timeout(20_000);
  let fake: DarajaFake;
  let sink: CallbackSink;
  let settings: MpesaSettings;
  let requestLog: ProviderRequestLog;
  let mpesa: PaymentProvider;
  let callbackUrl: string;

  before(async () => {
    fake = await startDarajaFake({ approvalDelayMs: 50 });
    requestLog = memoryRequestLog();
    settings = mpesaSettingsSchema.parse({
      baseUrl: fake.url,
      consumerKey: 'daraja-consumer-key',
      consumerSecret: 'daraja-consumer-secret',
      shortcode: fake.shortcode,
      passkey: fake.passkey,
      timeoutMs: 400,
      initiatorName: fake.initiatorName,
      securityCredential: fake.securityCredential,
    });
    mpesa = createMpesaProvider(settings, { callbackSecret: CALLBACK_SECRET, requestLog });
    // The callback route's part: the adapter authenticates and parses; a refusal is 401.
    sink = await startCallbackSink(mpesa);
    callbackUrl = sink.callbackUrl;
  });
  after(async () => {
    await fake.close();
    await sink.close();
  });
  afterEach(() => fake.setMode({ callbacks: 'once' }));

  /** A payment of KES 150.00 the customer paid, once its success callback (with the receipt) was taken. */
  async function collected(): Promise<{ paymentId: string; push: DarajaPush }> {
    const phone = customer();
    const initiation = initiateRequest(phone, { amount: 15_000, currency: 'KES', description: 'Tea', callbackUrl });
    await mpesa.initiate(initiation);
    expect((await settledAnswer(mpesa, initiation.paymentId)).outcome.status).to.equal('completed');
    for (let i = 0; i < 100 && !(await mpesaReceiptOf(requestLog, initiation.paymentId)); i += 1) await sleep(20);
    const push = fake.pushes.find((p) => `+${p.phoneNumber}` === phone) as DarajaPush;
    return { paymentId: initiation.paymentId, push };
  }

  /** A refund of `amount` (default: the whole KES 150.00) of the payment `paymentId`. */
  const refundOf = (paymentId: string, amount = 15_000): RefundRequest => ({
    providerReference: paymentId,
    idempotencyKey: `refund:${newId('ref_')}`,
    amount,
    paymentAmount: 15_000,
    currency: 'KES',
    callbackUrl,
  });

  /** `fetchRefund`'s answer once it is no longer pending (asked every 50 ms, about 5 s at most). */
  async function settled(refund: RefundRequest): Promise<RefundAnswer | { status: 'not_received' }> {
    for (let i = 0; i < 100; i += 1) {
      const answer = await mpesa.fetchRefund(refund);
      if (answer.status !== 'pending') return answer;
      await sleep(50);
    }
    return mpesa.fetchRefund(refund);
  }

  const reversalsOf = (receipt: string | null) =>
    fake.requests.filter((r) => r.path === REVERSAL_PATH && (r.body as any)?.TransactionID === receipt);

  it('declares whole refunds only, and without an initiator none', async () => {
    expect(mpesa.supports).to.deep.equal({ cancel: false, refund: true, partialRefund: false });
    const { initiatorName: _name, securityCredential: _credential, ...collectOnly } = settings;
    const without = createMpesaProvider(collectOnly, { callbackSecret: CALLBACK_SECRET, requestLog });
    expect(without.supports).to.deep.equal({ cancel: false, refund: false, partialRefund: false });
    expect(await rejectionOf(without.refund(refundOf('pay_x')))).to.be.instanceOf(ProviderUnsupported);
  });

  it("keeps the push's MpesaReceiptNumber and reverses the whole payment by it; the result callback says reversed", async () => {
    const { paymentId, push } = await collected();
    expect(await mpesaReceiptOf(requestLog, paymentId)).to.equal(push.receipt);
    const refund = refundOf(paymentId);
    const refundId = refund.idempotencyKey.replace('refund:', '');
    expect(await mpesa.refund(refund)).to.deep.equal({ status: 'pending' });
    const [sent] = reversalsOf(push.receipt);
    const token = mpesaRefundCallbackToken(refundId, CALLBACK_SECRET);
    expect(sent?.body).to.deep.equal({
      Initiator: fake.initiatorName,
      SecurityCredential: fake.securityCredential,
      CommandID: 'TransactionReversal',
      TransactionID: push.receipt,
      Amount: 150,
      ReceiverParty: fake.shortcode,
      RecieverIdentifierType: '11',
      ResultURL: `${callbackUrl}?refund=${refundId}&token=${token}&result=reversal`,
      QueueTimeOutURL: `${callbackUrl}?refund=${refundId}&token=${token}&result=timeout`,
      // Daraja's texts take letters, digits and spaces.
      Remarks: `Refund ${refundId.replace('_', ' ')}`,
      Occasion: paymentId.replace('_', ' '),
    });
    const reversal = fake.reversals.find((r) => r.transactionId === push.receipt);
    expect(await settled(refund)).to.deep.equal({
      status: 'succeeded',
      refundReference: reversal?.reversalTransactionId,
    });
    // Its result came to the refund's own URL and was taken (a Transaction Status result may have come too).
    const results = sink.answered.filter((a) => a.query.refund === refundId);
    expect(results.map((a) => [a.status, a.query])).to.deep.include([
      200,
      { refund: refundId, token, result: 'reversal' },
    ]);
    expect(results.map((a) => a.status)).to.satisfy((statuses: number[]) => statuses.every((s) => s === 200));
    // Asked again, the same answer, and nothing more sent.
    expect((await mpesa.refund(refund)).status).to.equal('succeeded');
    expect(reversalsOf(push.receipt)).to.have.length(1);
  });

  it("answers failed with Daraja's reason when the reversal's result refuses it", async () => {
    const { paymentId } = await collected();
    fake.failNextReversal(1, 'The balance is insufficient for the transaction.');
    const refund = refundOf(paymentId);
    expect(await mpesa.refund(refund)).to.deep.equal({ status: 'pending' });
    expect(await settled(refund)).to.deep.equal({
      status: 'failed',
      failureMessage: 'M-Pesa refused the reversal: The balance is insufficient for the transaction. (ResultCode 1)',
    });
  });

  it('settles a reversal whose result callback was lost by Transaction Status, by its OriginatorConversationID', async () => {
    const { paymentId, push } = await collected();
    fake.setMode({ callbacks: 'off' });
    const refund = refundOf(paymentId);
    expect(await mpesa.refund(refund)).to.deep.equal({ status: 'pending' });
    const reversal = fake.reversals.find((r) => r.transactionId === push.receipt)!;
    for (let i = 0; i < 50 && reversal.result === null; i += 1) await sleep(20);
    expect(reversal.result?.code, 'M-Pesa reversed it; its result never came').to.equal(0);
    const from = fake.requests.length;
    const answer = await settled(refund);
    expect(answer).to.deep.equal({ status: 'succeeded', refundReference: reversal.reversalTransactionId });
    const asked = fake.requests.slice(from).filter((r) => r.path === TRANSACTION_STATUS_PATH);
    expect(asked.length).to.be.greaterThan(0);
    expect(asked[0]?.body).to.deep.include({
      CommandID: 'TransactionStatusQuery',
      OriginalConversationID: reversal.originatorConversationId,
      PartyA: fake.shortcode,
      IdentifierType: '4',
    });
    expect(reversalsOf(push.receipt), 'never reversed twice').to.have.length(1);
  });

  it('never sends a second reversal when the answer to the first is lost: its result callback decides', async () => {
    const { paymentId, push } = await collected();
    fake.injectFaults('hang', 1, [REVERSAL_PATH]);
    const refund = refundOf(paymentId);
    const lost = await rejectionOf(mpesa.refund(refund));
    expect(lost).to.be.instanceOf(Error).and.not.be.instanceOf(ProviderRefusal);
    // Sent again: not sent, pending until its result (which may have come meanwhile) decides.
    expect((await mpesa.refund(refund)).status).to.be.oneOf(['pending', 'succeeded']);
    expect((await settled(refund)).status).to.equal('succeeded');
    expect(reversalsOf(push.receipt)).to.have.length(1);
  });

  it('refuses a partial reversal before anything is sent, and fails a payment whose receipt is not known', async () => {
    const { paymentId } = await collected();
    const from = fake.requests.length;
    const partial = await rejectionOf(mpesa.refund(refundOf(paymentId, 5_000)));
    expect(partial).to.be.instanceOf(ProviderRefusal);
    expect((partial as Error).message).to.equal(
      'M-Pesa reverses the whole payment only: refund the full amount or nothing',
    );
    // A payment settled by the query alone (its success callback lost): M-Pesa never gave us its receipt.
    expect((await mpesa.refund(refundOf(newId('pay_')))).status).to.equal('failed');
    expect(await mpesa.fetchRefund(refundOf(paymentId)), 'never sent').to.deep.equal({ status: 'not_received' });
    expect(fake.requests.slice(from).filter((r) => r.path === REVERSAL_PATH)).to.deep.equal([]);
  });

  it('counts "already reversed" (R000001) as reversed', async () => {
    const { paymentId, push } = await collected();
    const first = refundOf(paymentId);
    await mpesa.refund(first);
    expect((await settled(first)).status).to.equal('succeeded');
    const second = refundOf(paymentId);
    await mpesa.refund(second);
    expect((await settled(second)).status).to.equal('succeeded');
    expect(fake.reversals.filter((r) => r.transactionId === push.receipt).map((r) => r.result?.code)).to.deep.equal([
      0,
      'R000001',
    ]);
  });

  it('refuses a result callback with a wrong token, or for a refund never sent, and a Daraja body that is not a result', async () => {
    const { paymentId } = await collected();
    const refund = refundOf(paymentId);
    await mpesa.refund(refund);
    const refundId = refund.idempotencyKey.replace('refund:', '');
    const body = JSON.stringify({ Result: { ResultType: 0, ResultCode: 0, ResultDesc: 'ok', TransactionID: 'X' } });
    const parse = (query: Record<string, string>, rawBody = body) =>
      rejectionOf(Promise.resolve().then(() => mpesa.parseCallback({ rawBody, headers: {}, query })));
    const token = mpesaRefundCallbackToken(refundId, CALLBACK_SECRET);
    expect(await parse({ refund: refundId, token: '0'.repeat(64), result: 'reversal' })).to.be.instanceOf(
      ProviderRefusal,
    );
    const never = newId('ref_');
    expect(
      await parse({ refund: never, token: mpesaRefundCallbackToken(never, CALLBACK_SECRET), result: 'reversal' }),
    ).to.be.instanceOf(ProviderRefusal);
    expect(await parse({ refund: refundId, token, result: 'reversal' }, '{"Body":{}}')).to.be.instanceOf(
      ProviderRefusal,
    );
  });
});
