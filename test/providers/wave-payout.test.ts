/**
 * The live Wave payout rail (`wave`, docs/payouts.md#wave-payouts) against the Wave fake over real HTTP: the documented
 * payout (whole francs as a string, the E.164 mobile, the payout id as idempotency key and `client_reference`), Wave's
 * statuses and error codes mapped onto ours, a repeated send naming the same payout (never a second one), the status
 * by search (`not_received` when Wave has none), unknown answers kept unknown, and a refused key making the rail
 * unavailable before anything is paid.
 */
import { expect } from 'chai';
import { newId } from '../../src/lib/ids';
import { PayoutRailUnavailable, type PayoutRail, type PayoutRequest } from '../../src/providers/payout-rail';
import { createWavePayoutRail, PAYOUT_PATH } from '../../src/providers/wave/payout';
import { waveSettingsSchema, type WaveSettings } from '../../src/providers/wave/settings';
import { startWaveFake, WAVE_FAKE_PAYEES, type WaveFake } from '../fakes/wave-fake';
import { rejectionOf, uniqueNumber } from '../helpers/adapters';

/** An Ivorian number (+22507…, ten national digits) ending in `ending` (default: paid), unique in the run. */
const ivorianNumber = (ending = '5000') => uniqueNumber('+22507', 4, ending);

describe('Wave payout rail (wave, docs/payouts.md#wave-payouts) against the Wave fake', function () {
  this.timeout(15_000);
  let fake: WaveFake;
  let settings: WaveSettings;
  let rail: PayoutRail;

  before(async () => {
    fake = await startWaveFake();
    settings = waveSettingsSchema.parse({
      baseUrl: fake.url,
      apiKey: fake.apiKey,
      webhookSecret: fake.webhookSecret,
      successUrl: 'https://pay.paycollect.example/wave/success',
      errorUrl: 'https://pay.paycollect.example/wave/error',
      timeoutMs: 300,
    });
    rail = createWavePayoutRail(settings);
  });
  after(async () => {
    await fake.close();
  });

  /** A payout of XOF 25000 to `phone`. */
  const payout = (phone: string, overrides: Partial<PayoutRequest> = {}): PayoutRequest => ({
    payoutId: newId('po_'),
    amount: 25_000,
    currency: 'XOF',
    destination: { type: 'mobile_money', phoneNumber: phone },
    description: 'Payout for November',
    callbackUrl: null,
    ...overrides,
  });

  it('sends one documented payout, keyed by the payout id, and is paid', async () => {
    const phone = ivorianNumber();
    const request = payout(phone);
    const from = fake.requests.length;
    expect(await rail.sendPayout(request)).to.deep.equal({ outcome: 'paid', providerReference: request.payoutId });
    const [sent] = fake.requests.slice(from).filter((r) => r.path === PAYOUT_PATH);
    expect(sent?.headers['idempotency-key']).to.equal(request.payoutId);
    expect(sent?.body).to.deep.equal({
      currency: 'XOF',
      receive_amount: '25000',
      mobile: phone,
      client_reference: request.payoutId,
      payment_reason: 'Payout for November',
    });
    expect(await rail.payoutStatus(request.payoutId)).to.deep.equal({
      outcome: 'paid',
      providerReference: request.payoutId,
    });
  });

  it('a send repeated after a lost answer names the same payout: Wave pays once', async () => {
    const request = payout(ivorianNumber());
    fake.injectFaults('hang', 1, [PAYOUT_PATH]);
    expect((await rail.sendPayout(request)).outcome).to.equal('unknown');
    expect((await rail.payoutStatus(request.payoutId)).outcome).to.equal('paid');
    expect((await rail.sendPayout(request)).outcome).to.equal('paid');
    expect(fake.payouts.filter((p) => p.client_reference === request.payoutId)).to.have.length(1);
  });

  it("maps Wave's failures: our balance, a blocked recipient; a slow payout is in transit", async () => {
    const poor = payout(ivorianNumber(WAVE_FAKE_PAYEES.ourBalance));
    expect(await rail.sendPayout(poor)).to.deep.equal({
      outcome: 'refused',
      providerReference: poor.payoutId,
      failureCode: 'platform_funds',
      failureMessage: 'Wave: Insufficient funds in the business wallet (insufficient-funds)',
      providerReason: 'insufficient-funds',
    });
    const blocked = payout(ivorianNumber(WAVE_FAKE_PAYEES.blocked));
    expect(await rail.sendPayout(blocked)).to.include({
      outcome: 'refused',
      failureCode: 'account_restricted',
      providerReason: 'recipient-account-blocked',
    });
    const slow = payout(ivorianNumber(WAVE_FAKE_PAYEES.slow));
    expect((await rail.sendPayout(slow)).outcome).to.equal('in_transit');
    expect((await rail.payoutStatus(slow.payoutId)).outcome).to.equal('in_transit');
  });

  it('refuses, before sending anything, a bank account, another currency and a number Wave does not serve', async () => {
    const from = fake.requests.length;
    const bank = payout('', {
      destination: { type: 'bank_account', bankCode: 'SN001', accountNumber: '123', accountHolderName: 'A' },
    });
    expect(await rail.sendPayout(bank)).to.include({ outcome: 'refused', failureCode: 'account_invalid' });
    expect(await rail.sendPayout(payout(ivorianNumber(), { currency: 'KES' }))).to.include({
      outcome: 'refused',
      failureCode: 'amount_invalid',
    });
    expect(await rail.sendPayout(payout('+250788000001'))).to.include({
      outcome: 'refused',
      failureCode: 'account_invalid',
    });
    expect(fake.requests.length).to.equal(from);
  });

  it('answers not_received for a payout Wave does not have, and unknown for a 500 or an undocumented answer', async () => {
    const never = newId('po_');
    expect(await rail.payoutStatus(never)).to.deep.equal({ outcome: 'not_received', providerReference: never });
    fake.injectFaults('error_500', 1, ['/v1/payouts/search']);
    expect((await rail.payoutStatus(never)).outcome).to.equal('unknown');
    fake.injectFaults('undocumented', 1, [PAYOUT_PATH]);
    expect((await rail.sendPayout(payout(ivorianNumber()))).outcome).to.equal('unknown');
  });

  it('a refused API key makes the rail unavailable: nothing is paid, the payout waits', async () => {
    const wrong = createWavePayoutRail({ ...settings, apiKey: 'wave_sn_prod_revoked' });
    const request = payout(ivorianNumber());
    expect(await rejectionOf(wrong.sendPayout(request))).to.be.instanceOf(PayoutRailUnavailable);
    expect(fake.payouts.filter((p) => p.client_reference === request.payoutId)).to.deep.equal([]);
  });
});
