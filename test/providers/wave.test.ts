/**
 * The live Wave adapter (`wave`, docs/providers.md#wave-wave) against the Wave fake over real HTTP: the documented
 * checkout session (whole francs as a string, the payment id as `client_reference`, the number as
 * `restrict_payer_mobile`), `next_action` to the session's `wave_launch_url`, one session per payment even when the
 * creation's answer was lost, Wave's outcomes mapped onto ours (a failed attempt keeps the session open; its
 * `last_payment_error` decides the failure once the session lapses), cancel by expiry, whole refunds never sent twice,
 * and the events' `Wave-Signature` checked before anything is read.
 */
import { expect } from 'chai';
import { ProviderUnknownAnswer } from '../../src/providers/http';
import {
  memoryRequestLog,
  ProviderRefusal,
  type CallbackRequest,
  type InitiateRequest,
  type PaymentProvider,
  type RefundRequest,
} from '../../src/providers/provider';
import { createWaveProvider, WaveAuthenticationError } from '../../src/providers/wave/adapter';
import {
  WAVE_SIGNATURE_TOLERANCE_SECONDS,
  waveSignature,
  waveSignatureMatches,
} from '../../src/providers/wave/callback';
import { waveSettingsSchema, type WaveSettings } from '../../src/providers/wave/settings';
import { startWaveFake, WAVE_FAKE_NUMBERS, type WaveFake } from '../fakes/wave-fake';
import { initiateRequest, rejectionOf, settledAnswer, sleep, uniqueNumber } from '../helpers/adapters';
import { startReceiver, type Receiver } from '../helpers/receiver';

const TIMEOUT_MS = 300;

/** A Senegalese number (+22177…) ending in `ending` (four digits; default: one that pays), unique per call. */
const senegalNumber = (ending = '5000') => uniqueNumber('+22177', 3, ending);

describe('Wave adapter (wave, docs/providers.md#wave-wave) against the Wave fake', function () {
  this.timeout(15_000);
  let fake: WaveFake;
  let sink: Receiver;
  let settings: WaveSettings;
  let wave: PaymentProvider;

  before(async () => {
    sink = await startReceiver();
    fake = await startWaveFake({ approvalDelayMs: 40, webhookUrl: `${sink.origin}/v1/provider-callbacks/wave` });
    settings = waveSettingsSchema.parse({
      baseUrl: fake.url,
      apiKey: fake.apiKey,
      webhookSecret: fake.webhookSecret,
      successUrl: 'https://pay.paycollect.example/wave/success',
      errorUrl: 'https://pay.paycollect.example/wave/error',
      timeoutMs: TIMEOUT_MS,
    });
    wave = createWaveProvider(settings, { requestLog: memoryRequestLog() });
  });
  after(async () => {
    await fake.close();
    await sink.close();
  });

  /** A fresh payment's initiation request: XOF 5000 from `customer` unless overridden. */
  const request = (customer: string, overrides: Partial<InitiateRequest> = {}) =>
    initiateRequest(
      customer,
      { amount: 5_000, currency: 'XOF', description: 'Order 42', callbackUrl: null },
      overrides,
    );

  /** The refund of the whole payment `reference` (XOF 5000). */
  const refundOf = (reference: string, overrides: Partial<RefundRequest> = {}): RefundRequest => ({
    providerReference: reference,
    idempotencyKey: `refund:ref_${reference}`,
    amount: 5_000,
    paymentAmount: 5_000,
    currency: 'XOF',
    ...overrides,
  });

  /** The requests the fake got on `path` since `from`. */
  const requestsTo = (method: string, path: string, from = 0) =>
    fake.requests.slice(from).filter((r) => r.method === method && r.path === path);

  describe('checkout sessions', () => {
    it("opens one documented session and sends the customer to its wave_launch_url; the payment completes with Wave's transaction id", async () => {
      const customer = senegalNumber();
      const req = request(customer);
      const from = fake.requests.length;
      const answer = await wave.initiate(req);
      const [session] = fake.sessions.filter((s) => s.client_reference === req.paymentId);
      expect(session, 'one session').to.not.equal(undefined);
      expect(answer).to.deep.equal({
        providerReference: session?.id,
        outcome: { status: 'pending' },
        nextAction: { type: 'redirect', url: session?.wave_launch_url },
      });
      expect(requestsTo('POST', '/v1/checkout/sessions', from).map((r) => r.body)).to.deep.equal([
        {
          amount: '5000',
          currency: 'XOF',
          client_reference: req.paymentId,
          restrict_payer_mobile: customer,
          success_url: settings.successUrl,
          error_url: settings.errorUrl,
        },
      ]);
      expect(fake.requests.at(-1)?.headers.authorization).to.equal(`Bearer ${fake.apiKey}`);
      const settled = await settledAnswer(wave, answer.providerReference);
      expect(settled).to.deep.equal({
        providerReference: answer.providerReference,
        outcome: { status: 'completed', receiptNumber: session?.transaction_id },
      });
    });

    it('a retried initiation whose first answer was lost finds the session the first one opened: never a second session', async () => {
      const req = request(senegalNumber(WAVE_FAKE_NUMBERS.silent));
      fake.injectFaults('hang', 1, ['/v1/checkout/sessions']);
      const lost = await rejectionOf(wave.initiate(req));
      expect(lost).to.be.instanceOf(ProviderUnknownAnswer);
      const retried = await wave.initiate(req);
      const sessions = fake.sessions.filter((s) => s.client_reference === req.paymentId);
      expect(sessions).to.have.length(1);
      expect(retried.providerReference).to.equal(sessions[0]?.id);
      expect(retried.nextAction).to.deep.equal({ type: 'redirect', url: sessions[0]?.wave_launch_url });
    });

    it('a 500 or an undocumented body at creation is an unknown answer, never a refusal', async () => {
      fake.injectFaults('error_500', 1, ['/v1/checkout/sessions']);
      const failed = await rejectionOf(wave.initiate(request(senegalNumber())));
      expect(failed).to.be.instanceOf(ProviderUnknownAnswer);
      expect(failed).to.not.be.instanceOf(ProviderRefusal);
      const req = request(senegalNumber());
      fake.requests.length = 0;
      // The first call, the search for an earlier session, answers a body that is not Wave's.
      fake.injectFaults('undocumented', 1, ['/v1/checkout/sessions']);
      const search = await rejectionOf(wave.initiate(req));
      expect(search).to.be.instanceOf(ProviderUnknownAnswer);
      expect(String(search)).to.include('documented schema');
    });

    it('refuses, before sending anything, a currency other than XOF and a number outside Senegal and Côte d’Ivoire', async () => {
      const from = fake.requests.length;
      const currency = await rejectionOf(wave.initiate(request(senegalNumber(), { currency: 'KES' })));
      expect(currency).to.be.instanceOf(ProviderRefusal);
      expect(String(currency)).to.include('Wave collects XOF, not KES');
      const kenyan = await rejectionOf(wave.initiate(request('+254712345678')));
      expect(kenyan).to.be.instanceOf(ProviderRefusal);
      expect((kenyan as ProviderRefusal).failureCode).to.equal('declined');
      expect(fake.requests.length).to.equal(from);
    });

    it('a refused API key is a fault of ours (retried as unknown), not a refusal of the payment', async () => {
      const wrong = createWaveProvider(
        { ...settings, apiKey: 'wave_sn_prod_revoked' },
        { requestLog: memoryRequestLog() },
      );
      const failed = await rejectionOf(wrong.initiate(request(senegalNumber())));
      expect(failed).to.be.instanceOf(WaveAuthenticationError);
      expect(failed).to.not.be.instanceOf(ProviderRefusal);
      expect(String(failed)).to.include('no-matching-api-key').and.not.include('revoked');
    });

    it('a failed attempt keeps the session open (pending); once it lapses its last_payment_error decides the failure', async () => {
      const poor = await wave.initiate(request(senegalNumber(WAVE_FAKE_NUMBERS.insufficient)));
      const blocked = await wave.initiate(request(senegalNumber(WAVE_FAKE_NUMBERS.blocked)));
      await sleep(150);
      expect((await wave.fetchStatus(poor.providerReference)).outcome).to.deep.equal({ status: 'pending' });
      fake.lapse(poor.providerReference);
      fake.lapse(blocked.providerReference);
      expect((await wave.fetchStatus(poor.providerReference)).outcome).to.deep.equal({
        status: 'failed',
        failureCode: 'insufficient_funds',
        failureMessage: 'Wave: The payer does not have enough funds (insufficient-funds)',
        reason: 'insufficient-funds',
      });
      expect((await wave.fetchStatus(blocked.providerReference)).outcome).to.include({
        status: 'failed',
        failureCode: 'declined',
        reason: 'blocked-account',
      });
    });

    it('a session that lapses unpaid fails as expired', async () => {
      const silent = await wave.initiate(request(senegalNumber(WAVE_FAKE_NUMBERS.silent)));
      fake.lapse(silent.providerReference);
      expect((await wave.fetchStatus(silent.providerReference)).outcome).to.deep.equal({
        status: 'failed',
        failureCode: 'expired',
        failureMessage: 'Wave: the checkout session expired unpaid',
      });
    });

    it('a session Wave does not know, or a reference that is not a session id, is refused; an undocumented answer is unknown', async () => {
      expect(await rejectionOf(wave.fetchStatus('cos-0000000000000'))).to.be.instanceOf(ProviderRefusal);
      expect(await rejectionOf(wave.fetchStatus('pay_x/../../v1/payout'))).to.be.instanceOf(ProviderRefusal);
      const paid = await wave.initiate(request(senegalNumber()));
      fake.injectFaults('undocumented', 1, [`/v1/checkout/sessions/${paid.providerReference}`]);
      expect(await rejectionOf(wave.fetchStatus(paid.providerReference))).to.be.instanceOf(ProviderUnknownAnswer);
    });
  });

  describe('cancel', () => {
    it('expires an open session: the payment is cancelled, and stays cancelled when asked again', async () => {
      const open = await wave.initiate(request(senegalNumber(WAVE_FAKE_NUMBERS.silent)));
      const cancelled = await wave.cancel(open.providerReference);
      expect(cancelled).to.deep.equal({ providerReference: open.providerReference, outcome: { status: 'cancelled' } });
      expect(fake.sessions.find((s) => s.id === open.providerReference)?.checkout_status).to.equal('expired');
      expect((await wave.fetchStatus(open.providerReference)).outcome).to.deep.equal({ status: 'cancelled' });
    });

    it('a cancel that races a payment loses: the paid session answers completed', async () => {
      const paid = await wave.initiate(request(senegalNumber()));
      await settledAnswer(wave, paid.providerReference);
      const answer = await wave.cancel(paid.providerReference);
      expect(answer.outcome.status).to.equal('completed');
    });
  });

  describe('refunds', () => {
    it('refunds a paid session whole, once: the same refund again sends nothing', async () => {
      const paid = await wave.initiate(request(senegalNumber()));
      await settledAnswer(wave, paid.providerReference);
      const refundPath = `/v1/checkout/sessions/${paid.providerReference}/refund`;
      expect(await wave.refund(refundOf(paid.providerReference))).to.deep.equal({
        status: 'succeeded',
        refundReference: paid.providerReference,
      });
      expect(fake.sessions.find((s) => s.id === paid.providerReference)?.refunded).to.equal(true);
      const sent = requestsTo('POST', refundPath).length;
      expect(await wave.refund(refundOf(paid.providerReference))).to.deep.equal({ status: 'pending' });
      expect(requestsTo('POST', refundPath)).to.have.length(sent);
    });

    it('a partial refund is refused before anything is sent; a refund Wave refuses fails with its code', async () => {
      const paid = await wave.initiate(request(senegalNumber()));
      await settledAnswer(wave, paid.providerReference);
      const partial = await rejectionOf(wave.refund(refundOf(paid.providerReference, { amount: 1_000 })));
      expect(partial).to.be.instanceOf(ProviderRefusal);
      const unpaid = await wave.initiate(request(senegalNumber(WAVE_FAKE_NUMBERS.silent)));
      expect(await wave.refund(refundOf(unpaid.providerReference))).to.deep.equal({
        status: 'failed',
        failureMessage: 'Wave refused the refund (checkout-refund-failed)',
      });
    });

    it('a refund whose answer was lost stays pending and is never sent again', async () => {
      const paid = await wave.initiate(request(senegalNumber()));
      await settledAnswer(wave, paid.providerReference);
      const refundPath = `/v1/checkout/sessions/${paid.providerReference}/refund`;
      const refund = refundOf(paid.providerReference);
      expect(await wave.fetchRefund(refund)).to.deep.equal({ status: 'not_received' });
      fake.injectFaults('hang', 1, [refundPath]);
      expect(await rejectionOf(wave.refund(refund))).to.be.instanceOf(ProviderUnknownAnswer);
      expect(await wave.fetchRefund(refund)).to.deep.equal({ status: 'pending' });
      expect(await wave.refund(refund)).to.deep.equal({ status: 'pending' });
      expect(requestsTo('POST', refundPath)).to.have.length(1);
    });
  });

  describe('events (Wave-Signature)', () => {
    /** The event the fake sent about `sessionId`, as the callback route hands it over. */
    async function eventFor(sessionId: string): Promise<CallbackRequest> {
      for (let i = 0; i < 100; i += 1) {
        const sent = fake.events.find((e) => e.body.includes(sessionId));
        if (sent) return { rawBody: sent.body, headers: { 'wave-signature': sent.signature }, query: {} };
        await sleep(20);
      }
      throw new Error(`no event for ${sessionId}`);
    }

    it('reads a signed checkout.session.completed and checkout.session.payment_failed as hints about the session', async () => {
      const paid = await wave.initiate(request(senegalNumber()));
      expect(await wave.parseCallback(await eventFor(paid.providerReference))).to.deep.equal({
        providerReference: paid.providerReference,
        claimed: 'completed',
      });
      const poor = await wave.initiate(request(senegalNumber(WAVE_FAKE_NUMBERS.insufficient)));
      const event = await eventFor(poor.providerReference);
      expect(JSON.parse(event.rawBody)).to.include({ type: 'checkout.session.payment_failed' });
      expect(await wave.parseCallback(event)).to.deep.equal({
        providerReference: poor.providerReference,
        claimed: 'pending',
      });
    });

    it('refuses an event unsigned, signed with another secret, altered after signing, or about anything but a session', async () => {
      const paid = await wave.initiate(request(senegalNumber()));
      const event = await eventFor(paid.providerReference);
      const timestamp = Math.floor(Date.now() / 1000);
      const refusals = [
        { ...event, headers: {} },
        { ...event, headers: { 'wave-signature': waveSignature(event.rawBody, timestamp, 'another-secret') } },
        { ...event, rawBody: event.rawBody.replace('"succeeded"', '"cancelled"') },
        { ...event, headers: { 'wave-signature': 'v1=deadbeef' } },
      ];
      for (const forged of refusals)
        expect(await rejectionOf(Promise.resolve().then(() => wave.parseCallback(forged)))).to.be.instanceOf(
          ProviderRefusal,
        );
      const other = JSON.stringify({ id: 'AE_1', type: 'merchant.payment_received', data: {} });
      const signed = {
        rawBody: other,
        headers: { 'wave-signature': waveSignature(other, timestamp, fake.webhookSecret) },
        query: {},
      };
      const refusal = await rejectionOf(Promise.resolve().then(() => wave.parseCallback(signed)));
      expect(String(refusal)).to.include('merchant.payment_received is not about a checkout session');
    });

    it('refuses a replayed event signed more than five minutes ago (or ahead), and takes one signed within them', async () => {
      const paid = await wave.initiate(request(senegalNumber()));
      const event = await eventFor(paid.providerReference);
      const now = Math.floor(Date.now() / 1000);
      const signedAt = (timestamp: number): CallbackRequest => ({
        ...event,
        headers: { 'wave-signature': waveSignature(event.rawBody, timestamp, fake.webhookSecret) },
      });
      for (const stale of [now - WAVE_SIGNATURE_TOLERANCE_SECONDS - 5, now - 86_400, now + 3_600]) {
        const refusal = await rejectionOf(Promise.resolve().then(() => wave.parseCallback(signedAt(stale))));
        expect(refusal, `t=${stale - now}s`).to.be.instanceOf(ProviderRefusal);
      }
      // The event Wave sent, replayed six minutes later: its own signature no longer opens the door.
      const sent = event.headers['wave-signature']!;
      const sentAt = Number(/t=([0-9]+)/.exec(sent)![1]);
      expect(waveSignatureMatches(sent, event.rawBody, fake.webhookSecret, sentAt + 360)).to.equal(false);
      expect(waveSignatureMatches(sent, event.rawBody, fake.webhookSecret, sentAt + 60)).to.equal(true);
      expect(await wave.parseCallback(signedAt(now - 240))).to.include({ providerReference: paid.providerReference });
    });

    it('accepts a signature header with several v1 (a secret being rolled) when one of them matches', async () => {
      const paid = await wave.initiate(request(senegalNumber()));
      const event = await eventFor(paid.providerReference);
      const header = `${event.headers['wave-signature']},v1=${'0'.repeat(64)}`;
      const rolled = header.replace(/^t=([0-9]+),/, `t=$1,v1=${'f'.repeat(64)},`);
      expect(await wave.parseCallback({ ...event, headers: { 'wave-signature': rolled } })).to.include({
        providerReference: paid.providerReference,
      });
    });
  });
});
