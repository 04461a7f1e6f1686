/**
 * The M-Pesa B2C payout rail (docs/payouts.md#m-pesa-b2c) against the Daraja fake over real HTTP, its callbacks
 * received by a real HTTP server that hands them to the M-Pesa adapter as the callback route does: the documented B2C
 * request with the payout id as OriginatorConversationID, results by callback mapped to paid / refused with reasons,
 * an unknown answer (500, time-out after accepting, queue time-out, no callback) settled by the Transaction Status
 * query and never by a second payment, duplicate and late callbacks that change nothing, a wrong token refused, and
 * an amount with cents refused before anything is sent.
 */
import { expect } from 'chai';
import { newId } from '../../src/lib/ids';
import { createMpesaProvider } from '../../src/providers/mpesa/adapter';
import { createMpesaPayoutRail } from '../../src/providers/mpesa/b2c';
import {
  keepMpesaPayoutCallback,
  mpesaPayoutCallbackToken,
  readMpesaPayoutCallback,
  resultKeyOf,
  sendKeyOf,
} from '../../src/providers/mpesa/payout-callback';
import { mpesaSettingsSchema, type MpesaSettings } from '../../src/providers/mpesa/settings';
import type { PayoutRail, PayoutRequest } from '../../src/providers/payout-rail';
import { memoryRequestLog, type ProviderRequestLog } from '../../src/providers/provider';
import {
  B2C_PATH,
  DARAJA_FAKE_PAYEES,
  startDarajaFake,
  TRANSACTION_STATUS_PATH,
  type DarajaFake,
} from '../fakes/daraja-fake';
import { sleep, startCallbackSink, uniqueNumber, type CallbackSink } from '../helpers/adapters';

const CALLBACK_SECRET = 'mpesa-callback-secret-for-tests-0123456789';

/** A Safaricom number (+2547…) ending in `ending` (four digits), unique per call. */
const payee = (ending = '5000') => uniqueNumber('+25471', 3, ending);

describe('M-Pesa B2C payout rail (docs/payouts.md#m-pesa-b2c) against the Daraja fake', function () {
  this.timeout(20_000);
  let fake: DarajaFake;
  let sink: CallbackSink;
  let settings: MpesaSettings;
  let requestLog: ProviderRequestLog;
  let rail: PayoutRail;
  /** What the callback route answered to each callback, in order. */
  const answered = () => sink.answered;

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
    const adapter = createMpesaProvider(settings, { callbackSecret: CALLBACK_SECRET, requestLog });
    // The callback route's part: the adapter authenticates and parses; a refusal is 401.
    sink = await startCallbackSink(adapter);
    rail = createMpesaPayoutRail(settings, {
      callbackSecret: CALLBACK_SECRET,
      requestLog,
      callbackUrl: sink.callbackUrl,
    })!;
  });
  after(async () => {
    await fake.close();
    await sink.close();
  });

  /** A fresh payout of KES 1,500.00 to `phoneNumber` unless overridden. */
  function payout(phoneNumber: string, overrides: Partial<PayoutRequest> = {}): PayoutRequest {
    return {
      payoutId: newId('po_'),
      amount: 150_000,
      currency: 'KES',
      destination: { type: 'mobile_money', phoneNumber },
      description: 'Weekly payout',
      callbackUrl: null,
      ...overrides,
    };
  }

  const b2cCalls = (payoutId: string) =>
    fake.requests.filter((r) => r.path === B2C_PATH && (r.body as any)?.OriginatorConversationID === payoutId);
  const statusCalls = () => fake.requests.filter((r) => r.path === TRANSACTION_STATUS_PATH).length;

  /** Asks the rail until its answer is no longer in transit or unknown (at most ~5 s). */
  async function settle(payoutId: string) {
    for (let i = 0; i < 100; i += 1) {
      const answer = await rail.payoutStatus(payoutId);
      if (answer.outcome !== 'in_transit' && answer.outcome !== 'unknown') return answer;
      await sleep(50);
    }
    return rail.payoutStatus(payoutId);
  }

  it('is not configured without its initiator or without a callback URL, and the settings name a missing half', () => {
    const deps = {
      callbackSecret: CALLBACK_SECRET,
      requestLog,
      callbackUrl: 'https://pay.example/v1/provider-callbacks/mpesa',
    };
    expect(
      createMpesaPayoutRail({ ...settings, initiatorName: undefined, securityCredential: undefined }, deps),
    ).to.equal(undefined);
    expect(createMpesaPayoutRail(settings, { ...deps, callbackUrl: null })).to.equal(undefined);
    const parsed = mpesaSettingsSchema.safeParse({ ...settings, securityCredential: undefined });
    expect(parsed.error?.issues.map((i) => i.path.join('.'))).to.deep.equal(['securityCredential']);
  });

  it('sends the documented B2C request once, named by the payout id, and is paid by the result callback', async () => {
    const request = payout(payee());
    const answer = await rail.sendPayout(request);
    expect(answer).to.deep.equal({ outcome: 'in_transit', providerReference: request.payoutId });
    const [sent] = b2cCalls(request.payoutId);
    expect(sent?.body).to.deep.include({
      OriginatorConversationID: request.payoutId,
      InitiatorName: fake.initiatorName,
      SecurityCredential: fake.securityCredential,
      CommandID: 'BusinessPayment',
      Amount: 1500,
      PartyA: fake.shortcode,
      PartyB: request.destination.type === 'mobile_money' ? request.destination.phoneNumber.slice(1) : '',
      Remarks: 'Weekly payout',
      // Safaricom's B2C page spells it so.
      Occassion: request.payoutId.replace('_', ' '),
    });
    expect(sent?.body).to.not.have.property('Occasion');
    const resultUrl = new URL((sent?.body as any).ResultURL as string);
    expect(resultUrl.pathname).to.equal('/v1/provider-callbacks/mpesa');
    expect(resultUrl.searchParams.get('payout')).to.equal(request.payoutId);
    expect(resultUrl.searchParams.get('token')).to.match(/^[0-9a-f]{64}$/);
    expect(await settle(request.payoutId)).to.deep.equal({ outcome: 'paid', providerReference: request.payoutId });
    // Sending again (a retried activity) makes no second payment: the kept result answers.
    expect(await rail.sendPayout(request)).to.deep.equal({ outcome: 'paid', providerReference: request.payoutId });
    expect(b2cCalls(request.payoutId)).to.have.length(1);
  });

  for (const [ending, failureCode, text] of [
    [DARAJA_FAKE_PAYEES.orgInsufficient, 'platform_funds', "organisation's M-Pesa balance is insufficient"],
    [DARAJA_FAKE_PAYEES.unregistered, 'account_invalid', 'not a registered M-Pesa customer'],
    [DARAJA_FAKE_PAYEES.limit, 'amount_invalid', 'daily transfer limit'],
    [DARAJA_FAKE_PAYEES.initiator, 'provider_error', 'initiator information is invalid'],
  ] as const) {
    it(`is refused ${failureCode} for the result code of a payee ending ${ending}`, async () => {
      const request = payout(payee(ending));
      await rail.sendPayout(request);
      const answer = await settle(request.payoutId);
      expect(answer).to.include({ outcome: 'refused', failureCode, providerReference: request.payoutId });
      expect(answer.failureMessage).to.include(text);
      // Daraja's ResultCode travels with the refusal: whose it is decides the rail's health (failure-sides.ts).
      expect(answer.providerReason).to.match(/^[0-9]+$/);
    });
  }

  it('refuses an amount with cents, a foreign number and another currency before anything is sent', async () => {
    const before = fake.requests.length;
    const cents = await rail.sendPayout(payout(payee(), { amount: 150_050 }));
    expect(cents).to.include({ outcome: 'refused', failureCode: 'amount_invalid' });
    expect(cents.failureMessage).to.include('whole shillings');
    expect(await rail.sendPayout(payout('+250788000001'))).to.include({
      outcome: 'refused',
      failureCode: 'account_invalid',
    });
    expect(await rail.sendPayout(payout(payee(), { currency: 'UGX' }))).to.include({ outcome: 'refused' });
    expect(fake.requests.length).to.equal(before);
  });

  it('a 500 after accepting is unknown, settled by Transaction Status, never sent twice', async () => {
    const request = payout(payee());
    fake.injectFaults('error_500', 1, [B2C_PATH]);
    const answer = await rail.sendPayout(request);
    expect(answer.outcome).to.equal('unknown');
    const statusBefore = statusCalls();
    // A retried send after the unknown answer sends nothing.
    expect((await rail.sendPayout(request)).outcome).to.equal('unknown');
    expect(await settle(request.payoutId)).to.deep.equal({ outcome: 'paid', providerReference: request.payoutId });
    expect(statusCalls()).to.be.greaterThan(statusBefore);
    expect(b2cCalls(request.payoutId)).to.have.length(1);
  });

  it("asks Transaction Status with that page's own field names: OriginalConversationID and Occasion", async () => {
    const request = payout(payee());
    fake.injectFaults('error_500', 1, [B2C_PATH]);
    expect((await rail.sendPayout(request)).outcome).to.equal('unknown');
    expect(await settle(request.payoutId)).to.deep.equal({ outcome: 'paid', providerReference: request.payoutId });
    const asked = fake.requests.filter(
      (r) => r.path === TRANSACTION_STATUS_PATH && (r.body as any)?.OriginalConversationID === request.payoutId,
    );
    expect(asked, 'asked by OriginalConversationID').to.not.have.length(0);
    expect(asked[0]?.body).to.include({ CommandID: 'TransactionStatusQuery', IdentifierType: '4' });
    expect(asked[0]?.body).to.have.property('Occasion');
    expect(asked[0]?.body).to.not.have.any.keys('OriginatorConversationID', 'Occassion');
  });

  it('the fake refuses, 400 as Daraja does, a field name its page does not document', async () => {
    const basic = Buffer.from('daraja-consumer-key:daraja-consumer-secret').toString('base64');
    const token = (await (
      await fetch(`${fake.url}/oauth/v1/generate?grant_type=client_credentials`, {
        headers: { authorization: `Basic ${basic}` },
      })
    ).json()) as { access_token: string };
    const post = async (path: string, body: Record<string, unknown>) => {
      const response = await fetch(`${fake.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const urls = { ResultURL: 'https://pay.example/r', QueueTimeOutURL: 'https://pay.example/t' };
    const initiator = { SecurityCredential: fake.securityCredential, PartyA: fake.shortcode, ...urls };
    const b2c = {
      OriginatorConversationID: newId('po_'),
      InitiatorName: fake.initiatorName,
      CommandID: 'BusinessPayment',
      Amount: 10,
      PartyB: '254712345678',
      Remarks: 'Payout',
      ...initiator,
    };
    expect(await post(B2C_PATH, { ...b2c, Occasion: 'x' })).to.deep.include({ status: 400 });
    expect((await post(B2C_PATH, { ...b2c, Occasion: 'x' })).body).to.include({
      errorCode: '400.002.02',
      errorMessage: 'Bad Request - Invalid Occasion',
    });
    expect((await post(B2C_PATH, { ...b2c, Occassion: 'x' })).status).to.equal(200);
    const status = {
      Initiator: fake.initiatorName,
      CommandID: 'TransactionStatusQuery',
      IdentifierType: '4',
      Remarks: 'Status',
      ...initiator,
    };
    const wrongName = await post(TRANSACTION_STATUS_PATH, {
      ...status,
      OriginatorConversationID: b2c.OriginatorConversationID,
    });
    expect(wrongName.status).to.equal(400);
    expect(wrongName.body).to.include({ errorMessage: 'Bad Request - Invalid OriginatorConversationID' });
    expect((await post(TRANSACTION_STATUS_PATH, { ...status, Occassion: 'x', TransactionID: 'X' })).status).to.equal(
      400,
    );
    expect(
      (await post(TRANSACTION_STATUS_PATH, status)).status,
      'neither TransactionID nor OriginalConversationID',
    ).to.equal(400);
    const right = await post(TRANSACTION_STATUS_PATH, {
      ...status,
      OriginalConversationID: b2c.OriginatorConversationID,
      Occasion: 'x',
    });
    expect(right.status).to.equal(200);
  });

  it('a time-out after accepting with no result callback ever is settled by Transaction Status', async () => {
    fake.setMode({ callbacks: 'off' });
    try {
      const request = payout(payee());
      fake.injectFaults('hang', 1, [B2C_PATH]);
      expect((await rail.sendPayout(request)).outcome).to.equal('unknown');
      await sleep(100); // the fake processes it
      expect(await settle(request.payoutId)).to.deep.equal({ outcome: 'paid', providerReference: request.payoutId });
      expect(b2cCalls(request.payoutId)).to.have.length(1);
    } finally {
      fake.setMode({ callbacks: 'once' });
    }
  });

  it('a queue time-out notification decides nothing; the query finds it paid', async () => {
    const request = payout(payee(DARAJA_FAKE_PAYEES.queueTimeout));
    expect((await rail.sendPayout(request)).outcome).to.equal('in_transit');
    await sleep(150);
    const timeoutAnswer = answered().find((a) => (a.body as any)?.payoutId === request.payoutId);
    expect(timeoutAnswer).to.deep.include({ status: 200 });
    expect(timeoutAnswer?.body).to.include({ recorded: false });
    expect(await settle(request.payoutId)).to.deep.equal({ outcome: 'paid', providerReference: request.payoutId });
  });

  it('a payout M-Pesa never processed stays unknown (asked, never sent again)', async () => {
    const request = payout(payee(DARAJA_FAKE_PAYEES.silent));
    await rail.sendPayout(request);
    for (let i = 0; i < 3; i += 1) {
      expect((await rail.payoutStatus(request.payoutId)).outcome).to.equal('in_transit');
      await sleep(60);
    }
    expect(b2cCalls(request.payoutId)).to.have.length(1);
    expect(await rail.payoutStatus(newId('po_'))).to.deep.include({ outcome: 'not_received' });
  });

  it('reading a result callback gives its facts and writes nothing; keeping them records the first result only', async () => {
    const log = memoryRequestLog();
    const payoutId = newId('po_');
    await log.claim('mpesa', sendKeyOf(payoutId));
    const callback = (result: 'b2c' | 'status', code: number, conversationId: string) => ({
      headers: {},
      query: { payout: payoutId, token: mpesaPayoutCallbackToken(payoutId, CALLBACK_SECRET), result },
      rawBody: JSON.stringify({
        Result: {
          ResultType: 0,
          ResultCode: code,
          ResultDesc: code === 0 ? 'The service request is processed successfully.' : 'The balance is insufficient.',
          OriginatorConversationID: payoutId,
          ConversationID: conversationId,
          TransactionID: 'NLJ41HAY6Q',
        },
      }),
    });
    const facts = await readMpesaPayoutCallback(callback('b2c', 0, 'AG_20261129_1'), CALLBACK_SECRET, log);
    expect(facts).to.deep.include({ payoutId, conversationId: 'AG_20261129_1' });
    expect(facts.verdict).to.not.equal(undefined);
    // Read only: nothing kept yet, the send key still has no ConversationID.
    expect(await log.find('mpesa', resultKeyOf(payoutId))).to.equal(undefined);
    expect((await log.find('mpesa', sendKeyOf(payoutId)))?.reference ?? null).to.equal(null);
    expect(await keepMpesaPayoutCallback(log, facts)).to.deep.include({ payoutId, recorded: true });
    expect((await log.find('mpesa', sendKeyOf(payoutId)))?.reference).to.equal('AG_20261129_1');
    const kept = (await log.find('mpesa', resultKeyOf(payoutId)))?.reference;
    // A later, contradicting result is read as what it says, and keeping it changes nothing.
    const later = await readMpesaPayoutCallback(callback('b2c', 1, 'AG_20261129_1'), CALLBACK_SECRET, log);
    expect(later.verdict).to.not.deep.equal(facts.verdict);
    expect(await keepMpesaPayoutCallback(log, later)).to.deep.include({ recorded: false });
    expect((await log.find('mpesa', resultKeyOf(payoutId)))?.reference).to.equal(kept);
  });

  it('a duplicate and a late result callback change nothing; a wrong token is refused', async () => {
    fake.setMode({ callbacks: 'twice' });
    const request = payout(payee());
    try {
      await rail.sendPayout(request);
      expect(await settle(request.payoutId)).to.include({ outcome: 'paid' });
      await sleep(150);
    } finally {
      fake.setMode({ callbacks: 'once' });
    }
    const forPayout = () =>
      answered().filter((a) => a.query.result === 'b2c' && (a.body as any)?.payoutId === request.payoutId);
    expect(forPayout().map((a) => (a.body as any).recorded)).to.deep.equal([true, false]);
    // A late callback, a refusal forged with the payout's URL, and a wrong token: nothing changes.
    const late = await fake.sendB2cResult(request.payoutId);
    expect(late.status).to.equal(200);
    const url = new URL(late.url);
    const forged = JSON.stringify({
      Result: { ResultType: 0, ResultCode: 1, ResultDesc: 'forged', OriginatorConversationID: request.payoutId },
    });
    url.searchParams.set('token', '0'.repeat(64));
    const wrong = await fetch(url, { method: 'POST', body: forged, headers: { 'content-type': 'application/json' } });
    expect(wrong.status).to.equal(401);
    expect(await rail.payoutStatus(request.payoutId)).to.deep.equal({
      outcome: 'paid',
      providerReference: request.payoutId,
    });
  });
});
