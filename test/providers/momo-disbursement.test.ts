/**
 * The MoMo payout rail (docs/payouts.md#rails) against the fake MoMo Disbursement API over real HTTP: the
 * documented transfer, its three-valued answers, a send repeated after an unknown answer that never makes a second
 * transfer, the status call, the account-holder lookup, the balance, the product's own credentials and cached token,
 * and a rail that says it is unavailable only when MoMo cannot have the transfer.
 */
import { expect } from 'chai';
import { newId } from '../../src/lib/ids';
import { momoReferenceId } from '../../src/providers/momo/adapter';
import { createMomoPayoutRail, minorFromMomoAmount } from '../../src/providers/momo/disbursement';
import { momoStatement } from '../../src/providers/momo/statement';
import { ProviderUnknownAnswer } from '../../src/providers/http';
import { momoSettingsSchema, type MomoSettings } from '../../src/providers/momo/settings';
import { PayoutRailUnavailable, type PayoutRail, type PayoutRequest } from '../../src/providers/payout-rail';
import { MOMO_FAKE_NUMBERS, startMomoFake, type MomoFake } from '../fakes/momo-fake';

const CALLBACK_SECRET = 'momo-callback-secret-for-tests-0123456789';
const APPROVAL_DELAY_MS = 40;
/** Every call's time-out here: short, so a hang is quick. */
const TIMEOUT_MS = 300;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A Rwandan MTN number (+25078…) ending in `suffix` (six digits; default: one that is paid), unique per call. */
let serial = 0;
function rwandanNumber(suffix = '300000'): string {
  serial += 1;
  return `+25078${String(serial).padStart(3, '0')}${suffix}`;
}

describe('MoMo payout rail (docs/payouts.md#rails) against the fake MoMo Disbursement API', function () {
  this.timeout(10_000);
  let fake: MomoFake;
  let settings: MomoSettings;
  let rail: PayoutRail;

  before(async () => {
    fake = await startMomoFake({ approvalDelayMs: APPROVAL_DELAY_MS, disbursementBalance: 50_000 });
    settings = momoSettingsSchema.parse({
      baseUrl: fake.url,
      apiUser: '0b6bd5f4-5b1e-4c9f-9d3e-2d1c8f0a7e11',
      apiKey: 'momo-api-key',
      subscriptionKey: 'momo-subscription-key',
      disbursementApiUser: '7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
      disbursementApiKey: 'momo-disbursement-api-key',
      disbursementSubscriptionKey: 'momo-disbursement-subscription-key',
      targetEnvironment: 'mtnrwanda',
      timeoutMs: TIMEOUT_MS,
    });
    rail = createMomoPayoutRail(settings, { callbackSecret: CALLBACK_SECRET }) as PayoutRail;
  });
  after(async () => {
    await fake.close();
  });

  /** A fresh payout of 1200 RWF to `phoneNumber` unless overridden. */
  function payout(phoneNumber: string, overrides: Partial<PayoutRequest> = {}): PayoutRequest {
    return {
      payoutId: newId('po_'),
      amount: 1200,
      currency: 'RWF',
      destination: { type: 'mobile_money', phoneNumber },
      description: "Merchant's payout",
      callbackUrl: null,
      ...overrides,
    };
  }

  /** The rail's answer for `reference` once MoMo finished it (or the last one after ~2 s). */
  async function finished(reference: string) {
    for (let i = 0; i < 80; i += 1) {
      const answer = await rail.payoutStatus(reference);
      if (answer.outcome !== 'in_transit') return answer;
      await sleep(25);
    }
    return rail.payoutStatus(reference);
  }

  /** How many transfer requests the fake got. */
  const transferCalls = () =>
    fake.requests.filter((r) => r.method === 'POST' && r.path === '/disbursement/v1_0/transfer').length;

  it('is not configured without all three Disbursement credentials, and the settings name the missing ones', () => {
    const { disbursementApiKey: _key, ...partial } = settings;
    expect(
      createMomoPayoutRail(
        { ...partial, disbursementApiUser: undefined, disbursementSubscriptionKey: undefined },
        { callbackSecret: CALLBACK_SECRET },
      ),
    ).to.equal(undefined);
    const parsed = momoSettingsSchema.safeParse(partial);
    expect(parsed.success).to.equal(false);
    expect(parsed.error?.issues.map((i) => i.path.join('.'))).to.deep.equal(['disbursementApiKey']);
  });

  it('sends the documented transfer with the Disbursement credentials and a reference derived from the payout id, and answers in_transit, then paid', async () => {
    const request = payout(rwandanNumber());
    const before = fake.balance('mtnrwanda');
    const answer = await rail.sendPayout({ ...request, callbackUrl: 'https://api.example/v1/provider-callbacks/momo' });
    expect(answer).to.deep.equal({ outcome: 'in_transit', providerReference: momoReferenceId(request.payoutId) });
    const sent = fake.requests.filter((r) => r.path === '/disbursement/v1_0/transfer').at(-1)!;
    expect(sent.headers['x-reference-id']).to.equal(answer.providerReference);
    expect(sent.headers['x-target-environment']).to.equal('mtnrwanda');
    expect(sent.headers['ocp-apim-subscription-key']).to.equal('momo-disbursement-subscription-key');
    expect(sent.headers['x-callback-url']).to.match(
      /^https:\/\/api\.example\/v1\/provider-callbacks\/momo\?reference=/,
    );
    expect(sent.body).to.deep.equal({
      amount: '1200',
      currency: 'RWF',
      externalId: request.payoutId,
      payee: { partyIdType: 'MSISDN', partyId: (request.destination as { phoneNumber: string }).phoneNumber.slice(1) },
      payerMessage: 'Merchants payout',
      payeeNote: `Payout ${request.payoutId}`,
    });
    expect(await finished(answer.providerReference)).to.deep.equal({
      outcome: 'paid',
      providerReference: answer.providerReference,
    });
    expect(fake.balance('mtnrwanda')).to.equal(before - 1200);
  });

  it('caches the Disbursement token: many calls, one token; and a Collection token is not taken for it', async () => {
    const cached = createMomoPayoutRail(settings, { callbackSecret: CALLBACK_SECRET })!;
    const issued = fake.tokensIssued;
    const request = payout(rwandanNumber());
    await cached.sendPayout(request);
    await cached.payoutStatus(momoReferenceId(request.payoutId));
    await cached.verifyAccountHolder!(rwandanNumber());
    await cached.balance!();
    expect(fake.tokensIssued - issued).to.equal(1);
    const tokenCall = fake.requests.filter((r) => r.path === '/disbursement/token/').at(-1)!;
    expect(tokenCall.headers.authorization).to.equal(
      `Basic ${Buffer.from('7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f:momo-disbursement-api-key').toString('base64')}`,
    );
    const collectionToken = (await (
      await fetch(`${fake.url}/collection/token/`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${settings.apiUser}:${settings.apiKey}`).toString('base64')}`,
          'ocp-apim-subscription-key': settings.subscriptionKey,
        },
      })
    ).json()) as { access_token: string };
    const withCollectionToken = await fetch(`${fake.url}/disbursement/v1_0/account/balance`, {
      headers: {
        authorization: `Bearer ${collectionToken.access_token}`,
        'ocp-apim-subscription-key': 'momo-disbursement-subscription-key',
        'x-target-environment': 'mtnrwanda',
      },
    });
    expect(withCollectionToken.status).to.equal(401);
  });

  describe('a send whose answer is lost', () => {
    for (const kind of ['error_500', 'hang'] as const) {
      it(`(${kind}) is unknown; asking tells what MoMo did, and sending again for the payout makes no second transfer`, async () => {
        const request = payout(rwandanNumber());
        fake.injectFaults(kind, 1, ['/disbursement/v1_0/transfer']);
        const calls = transferCalls();
        const answer = await rail.sendPayout(request);
        expect(answer.outcome).to.equal('unknown');
        expect(answer.providerReference).to.equal(momoReferenceId(request.payoutId));
        expect((await finished(answer.providerReference)).outcome).to.equal('paid');
        const again = await rail.sendPayout(request);
        expect(again).to.deep.equal({ outcome: 'paid', providerReference: answer.providerReference });
        expect(transferCalls() - calls).to.equal(2);
        expect([...fake.transfers.values()].filter((t) => t.externalId === request.payoutId)).to.have.length(1);
      });
    }

    it('a status call that fails is unknown too, never not_received nor refused', async () => {
      const request = payout(rwandanNumber());
      const { providerReference } = await rail.sendPayout(request);
      fake.injectFaults('error_500', 1, ['/disbursement/v1_0/transfer/']);
      expect((await rail.payoutStatus(providerReference)).outcome).to.equal('unknown');
      fake.injectFaults('undocumented', 1, ['/disbursement/v1_0/transfer/']);
      expect((await rail.payoutStatus(providerReference)).outcome).to.equal('unknown');
    });
  });

  it('a paid payout called back twice and sent again stays one transfer and one debit', async () => {
    // Uganda's account, which no other test pays from, so no other transfer moves its balance meanwhile.
    const uganda = createMomoPayoutRail(
      { ...settings, targetEnvironment: 'mtnuganda' },
      { callbackSecret: CALLBACK_SECRET },
    )!;
    fake.setMode({ callbacks: 'twice' });
    try {
      const request = payout(`+25677${String(++serial).padStart(4, '0')}3000`, { currency: 'UGX' });
      const before = fake.balance('mtnuganda');
      const { providerReference } = await uganda.sendPayout({ ...request, callbackUrl: 'http://127.0.0.1:9/cb' });
      for (let i = 0; i < 80 && (await uganda.payoutStatus(providerReference)).outcome === 'in_transit'; i += 1)
        await sleep(25);
      await sleep(100);
      expect((await uganda.sendPayout(request)).outcome).to.equal('paid');
      expect(fake.balance('mtnuganda')).to.equal(before - 1200);
    } finally {
      fake.setMode({ callbacks: 'once' });
    }
  });

  it('maps FAILED with its reason to a refusal: the payee not found, our account short of funds, an unknown reason', async () => {
    const notFound = await rail.sendPayout(payout(rwandanNumber(MOMO_FAKE_NUMBERS.notFound)));
    // MoMo's own reason travels with the refusal: whose it is decides the rail's health (failure-sides.ts).
    expect(await finished(notFound.providerReference)).to.deep.include({
      outcome: 'refused',
      failureCode: 'account_invalid',
      providerReason: 'PAYEE_NOT_FOUND',
    });
    const tooMuch = await rail.sendPayout(payout(rwandanNumber(), { amount: 10_000_000 }));
    expect(await finished(tooMuch.providerReference)).to.deep.include({
      outcome: 'refused',
      failureCode: 'platform_funds',
    });
    const odd = await rail.sendPayout(payout(rwandanNumber(MOMO_FAKE_NUMBERS.ongoing)));
    fake.decideTransfer(odd.providerReference, 'FAILED', 'SOMETHING_NEW');
    expect(await rail.payoutStatus(odd.providerReference)).to.deep.include({
      outcome: 'refused',
      failureCode: 'declined',
    });
  });

  it("pays only numbers of its target environment's country: a Beninese wallet is refused by mtnivorycoast, without a call", async () => {
    const ivorian = createMomoPayoutRail(
      { ...settings, targetEnvironment: 'mtnivorycoast' },
      { callbackSecret: CALLBACK_SECRET },
    ) as PayoutRail;
    const calls = transferCalls();
    const answer = await ivorian.sendPayout(payout('+2290197000001', { amount: 1200, currency: 'XOF' }));
    expect(answer).to.deep.include({
      outcome: 'refused',
      failureCode: 'provider_error',
      failureMessage: 'MTN MoMo (mtnivorycoast) serves numbers of CI, not of BJ',
    });
    expect(transferCalls()).to.equal(calls);
    const paid = await ivorian.sendPayout(payout('+2250555000001', { amount: 1200, currency: 'XOF' }));
    expect(paid.outcome).to.equal('in_transit');
    expect(transferCalls()).to.equal(calls + 1);
  });

  it('a transfer MoMo refuses outright (400) is refused, a reference MoMo does not know is not_received', async () => {
    const wrong = await rail.sendPayout(payout(rwandanNumber(), { currency: 'GHS' }));
    expect(wrong).to.deep.include({ outcome: 'refused', failureCode: 'provider_error' });
    const other = createMomoPayoutRail(
      { ...settings, targetEnvironment: 'sandbox' },
      { callbackSecret: CALLBACK_SECRET },
    )!;
    const refused = await other.sendPayout(payout(rwandanNumber(), { currency: 'RWF' }));
    expect(refused).to.deep.include({ outcome: 'refused', failureCode: 'provider_error' });
    expect(refused.failureMessage).to.contain('INVALID_CURRENCY');
    expect(await rail.payoutStatus(momoReferenceId(newId('po_')))).to.deep.include({ outcome: 'not_received' });
    expect(await rail.payoutStatus('not-a-uuid')).to.deep.include({ outcome: 'not_received' });
  });

  it('a reversal by MTN leaves the transfer paid and shows in the balance (reconciliation by balance)', async () => {
    const { providerReference } = await rail.sendPayout(payout(rwandanNumber()));
    expect((await finished(providerReference)).outcome).to.equal('paid');
    const paidBalance = (await rail.balance!()).amount;
    fake.reverse(providerReference);
    expect((await rail.payoutStatus(providerReference)).outcome).to.equal('paid');
    expect(await rail.balance!()).to.deep.equal({ amount: paidBalance + 1200, currency: 'RWF' });
  });

  it('looks up account holders: active, not active, and unknown when MoMo does not answer', async () => {
    const active = rwandanNumber();
    const inactive = rwandanNumber();
    fake.inactiveHolders.add(inactive.slice(1));
    expect(await rail.verifyAccountHolder!(active)).to.equal('verified');
    expect(await rail.verifyAccountHolder!(inactive)).to.equal('unverified');
    expect(await rail.verifyAccountHolder!(rwandanNumber(MOMO_FAKE_NUMBERS.notFound))).to.equal('unverified');
    fake.injectFaults('error_500', 1, ['/disbursement/v1_0/accountholder/']);
    expect(await rail.verifyAccountHolder!(active)).to.equal('unknown');
    const paths = fake.requests.map((r) => r.path);
    expect(paths).to.include(`/disbursement/v1_0/accountholder/msisdn/${active.slice(1)}/active`);
  });

  it('is unavailable (nothing sent) when MoMo refuses the Disbursement credentials, and never calls the transfer', async () => {
    const refused = createMomoPayoutRail(
      { ...settings, disbursementApiKey: 'wrong' },
      { callbackSecret: CALLBACK_SECRET },
    )!;
    const calls = transferCalls();
    let thrown: unknown;
    try {
      await refused.sendPayout(payout(rwandanNumber()));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).to.be.instanceOf(PayoutRailUnavailable);
    expect(transferCalls()).to.equal(calls);
    expect((await refused.payoutStatus(momoReferenceId(newId('po_')))).outcome).to.equal('unknown');
  });

  it('reads MoMo amounts in major units as minor units, digit by digit', () => {
    expect(minorFromMomoAmount('1500', 'RWF')).to.equal(1500);
    expect(minorFromMomoAmount('12.50', 'GHS')).to.equal(1250);
    expect(minorFromMomoAmount('12.5', 'GHS')).to.equal(1250);
    expect(minorFromMomoAmount('1500.00', 'RWF')).to.equal(1500);
    expect(minorFromMomoAmount('12.505', 'GHS')).to.equal(undefined);
    expect(minorFromMomoAmount('abc', 'GHS')).to.equal(undefined);
  });

  describe('statement: the balances reconciliation compares (docs/reconciliation.md#sources)', () => {
    it('sums the Collection and Disbursement balances per currency, and follows what MoMo reports', async () => {
      const statement = momoStatement(settings);
      if (statement.method !== 'balance') throw new Error('MoMo reports balances only');
      const expected = () => fake.collectionBalance('mtnrwanda') + fake.balance('mtnrwanda');
      expect(await statement.balances([])).to.deep.equal([{ currency: 'RWF', amount: expected() }]);
      fake.adjustCollectionBalance('mtnrwanda', 700);
      const after = await statement.balances([]);
      expect(after).to.deep.equal([{ currency: 'RWF', amount: expected() }]);
      const paths = fake.requests.filter((r) => r.path.endsWith('/account/balance')).map((r) => r.path);
      expect(paths.slice(-2)).to.deep.equal(['/collection/v1_0/account/balance', '/disbursement/v1_0/account/balance']);
      const collectionOnly = momoStatement({ ...settings, disbursementApiUser: undefined });
      if (collectionOnly.method !== 'balance') throw new Error('MoMo reports balances only');
      expect(await collectionOnly.balances([])).to.deep.equal([
        { currency: 'RWF', amount: fake.collectionBalance('mtnrwanda') },
      ]);
    });

    it('fails, never reports a balance, on a 500 or an undocumented answer', async () => {
      const statement = momoStatement(settings);
      if (statement.method !== 'balance') throw new Error('MoMo reports balances only');
      for (const kind of ['error_500', 'undocumented'] as const) {
        fake.injectFaults(kind, 1, ['/collection/v1_0/account/balance']);
        let thrown: unknown;
        await statement.balances([]).catch((error: unknown) => (thrown = error));
        expect(thrown, kind).to.be.instanceOf(ProviderUnknownAnswer);
      }
    });
  });
});
