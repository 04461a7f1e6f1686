/**
 * The Airtel Money payout rail (docs/payouts.md#rails) against the fake Airtel disbursement API over real HTTP: the
 * documented B2C disbursement with its encrypted PIN, the transaction id derived from the payout id, three-valued
 * answers, a send repeated after an unknown answer that never makes a second disbursement, the enquiry (a reversal
 * read as `returned`), the cached token, and a rail that says it is unavailable only when Airtel cannot have it.
 */
import { expect } from 'chai';
import { newId } from '../../src/lib/ids';
import { airtelTransactionId } from '../../src/providers/airtel/adapter';
import { createAirtelPayoutRail, encryptAirtelPin } from '../../src/providers/airtel/disbursement';
import { airtelSettingsSchema, type AirtelSettings } from '../../src/providers/airtel/settings';
import { PayoutRailUnavailable, type PayoutRail, type PayoutRequest } from '../../src/providers/payout-rail';
import { AIRTEL_FAKE_PAYEES, startAirtelFake, type AirtelFake } from '../fakes/airtel-fake';

const TIMEOUT_MS = 400;
const APPROVAL_DELAY_MS = 60;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A Rwandan Airtel number ending in `suffix` (three digits; default: one that is paid), unique per call. */
let serial = 0;
function rwandanNumber(suffix = '300'): string {
  serial += 1;
  return `+25072${String(serial).padStart(4, '0')}${suffix}`;
}

describe('Airtel Money payout rail (docs/payouts.md#rails) against the fake Airtel disbursement API', function () {
  this.timeout(10_000);
  let fake: AirtelFake;
  let settings: AirtelSettings;
  let rail: PayoutRail;

  before(async () => {
    fake = await startAirtelFake({ approvalDelayMs: APPROVAL_DELAY_MS, disbursementBalance: 100_000 });
    settings = airtelSettingsSchema.parse({
      baseUrl: fake.url,
      clientId: 'airtel-client-id',
      clientSecret: 'airtel-client-secret',
      timeoutMs: TIMEOUT_MS,
      disbursementPin: '1234',
      pinPublicKey: fake.pinPublicKey,
    });
    rail = createAirtelPayoutRail(settings)!;
  });
  after(async () => {
    await fake.close();
  });

  /** A fresh payout of 2500 RWF to `phoneNumber` unless overridden. */
  function payout(phoneNumber: string, overrides: Partial<PayoutRequest> = {}): PayoutRequest {
    return {
      payoutId: newId('po_'),
      amount: 2500,
      currency: 'RWF',
      destination: { type: 'mobile_money', phoneNumber },
      callbackUrl: null,
      ...overrides,
    };
  }

  /** How many disbursement requests the fake got. */
  const disbursementCalls = () =>
    fake.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/standard/v2/disbursements')).length;

  it('is not configured without its PIN, and the settings name a missing half', () => {
    expect(createAirtelPayoutRail({ ...settings, disbursementPin: undefined, pinPublicKey: undefined })).to.equal(
      undefined,
    );
    const parsed = airtelSettingsSchema.safeParse({ ...settings, pinPublicKey: undefined });
    expect(parsed.error?.issues.map((i) => i.path.join('.'))).to.deep.equal(['pinPublicKey']);
    expect(airtelSettingsSchema.safeParse({ ...settings, disbursementPin: '12a4' }).success).to.equal(false);
  });

  it('sends the documented B2C disbursement with the PIN encrypted and the id derived from the payout id, and is paid', async () => {
    const request = payout(rwandanNumber());
    const before = fake.balance('RW');
    const answer = await rail.sendPayout(request);
    const id = airtelTransactionId('RW', `payout:${request.payoutId}`);
    expect(answer).to.deep.equal({ outcome: 'paid', providerReference: id });
    const sent = fake.requests.filter((r) => r.path === '/standard/v2/disbursements/').at(-1)!;
    expect(sent.headers['x-country']).to.equal('RW');
    expect(sent.headers['x-currency']).to.equal('RWF');
    const body = sent.body as { payee: unknown; reference: string; pin: string; transaction: unknown };
    expect(body.payee).to.deep.equal({
      msisdn: (request.destination as { phoneNumber: string }).phoneNumber.slice(4),
      wallet_type: 'NORMAL',
    });
    expect(body.reference).to.match(/^PO[0-9A-Za-z]{4,62}$/);
    expect(body.pin).to.not.equal('1234');
    expect(Buffer.from(body.pin, 'base64')).to.have.length(128);
    expect(body.transaction).to.deep.equal({ amount: 2500, id, type: 'B2C' });
    expect(await rail.payoutStatus(id)).to.deep.equal({ outcome: 'paid', providerReference: id });
    expect(fake.balance('RW')).to.equal(before - 2500);
  });

  it('encrypts the PIN afresh each time (random padding), and a PIN Airtel cannot read is a refusal for our configuration', async () => {
    expect(encryptAirtelPin('1234', fake.pinPublicKey)).to.not.equal(encryptAirtelPin('1234', fake.pinPublicKey));
    const wrongPin = createAirtelPayoutRail({ ...settings, disbursementPin: '9999' })!;
    expect(await wrongPin.sendPayout(payout(rwandanNumber()))).to.deep.include({
      outcome: 'refused',
      failureCode: 'provider_error',
    });
  });

  describe('a send whose answer is lost', () => {
    for (const kind of ['error_500', 'hang'] as const) {
      it(`(${kind}) is unknown; the enquiry tells, and sending again makes no second disbursement`, async () => {
        const request = payout(rwandanNumber());
        const before = fake.balance('RW');
        fake.injectFaults(kind, 1, ['/standard/v2/disbursements']);
        const calls = disbursementCalls();
        const answer = await rail.sendPayout(request);
        expect(answer.outcome).to.equal('unknown');
        expect((await rail.payoutStatus(answer.providerReference)).outcome).to.equal('paid');
        expect(await rail.sendPayout(request)).to.deep.equal({
          outcome: 'paid',
          providerReference: answer.providerReference,
        });
        expect(disbursementCalls() - calls).to.equal(2);
        expect(fake.balance('RW')).to.equal(before - 2500);
      });
    }

    it('an ambiguous answer (DP00900001000) is unknown, and the enquiry follows it to paid', async () => {
      const { outcome, providerReference } = await rail.sendPayout(payout(rwandanNumber(AIRTEL_FAKE_PAYEES.ambiguous)));
      expect(outcome).to.equal('unknown');
      expect((await rail.payoutStatus(providerReference)).outcome).to.equal('in_transit');
      await sleep(APPROVAL_DELAY_MS * 3);
      expect((await rail.payoutStatus(providerReference)).outcome).to.equal('paid');
    });

    it('an enquiry that fails or is undocumented is unknown, never not_received', async () => {
      const { providerReference } = await rail.sendPayout(payout(rwandanNumber()));
      fake.injectFaults('error_500', 1, ['/standard/v1/disbursements/']);
      expect((await rail.payoutStatus(providerReference)).outcome).to.equal('unknown');
      fake.injectFaults('undocumented', 1, ['/standard/v1/disbursements/']);
      expect((await rail.payoutStatus(providerReference)).outcome).to.equal('unknown');
    });
  });

  it('maps the disbursement codes: in process → in_transit, invalid number → account_invalid, short balance → platform_funds', async () => {
    const processing = await rail.sendPayout(payout(rwandanNumber(AIRTEL_FAKE_PAYEES.processing)));
    expect(processing.outcome).to.equal('in_transit');
    fake.decideDisbursement(processing.providerReference, 'TF');
    expect(await rail.payoutStatus(processing.providerReference)).to.deep.include({
      outcome: 'refused',
      failureCode: 'declined',
    });
    expect(await rail.sendPayout(payout(rwandanNumber(AIRTEL_FAKE_PAYEES.invalidNumber)))).to.deep.include({
      outcome: 'refused',
      failureCode: 'account_invalid',
    });
    const tooMuch = await rail.sendPayout(payout(rwandanNumber(), { amount: 10_000_000 }));
    // Airtel's own code travels with the refusal: whose it is decides the rail's health (failure-sides.ts).
    expect(tooMuch).to.deep.include({
      outcome: 'refused',
      failureCode: 'platform_funds',
      providerReason: 'DP00900001007',
    });
    expect(await rail.payoutStatus(tooMuch.providerReference)).to.deep.include({
      outcome: 'refused',
      failureCode: 'platform_funds',
    });
  });

  it('a reversal after paid is read as returned, the money is back, and sending again makes no new disbursement', async () => {
    const request = payout(rwandanNumber());
    const { providerReference } = await rail.sendPayout(request);
    const paid = fake.balance('RW');
    fake.reverse(providerReference);
    expect((await rail.payoutStatus(providerReference)).outcome).to.equal('returned');
    expect(fake.balance('RW')).to.equal(paid + 2500);
    expect((await rail.sendPayout(request)).outcome).to.equal('unknown');
    expect(fake.disbursements.get(providerReference)?.status).to.equal('TR');
    expect(fake.balance('RW')).to.equal(paid + 2500);
  });

  it('refuses without calling Airtel what it cannot pay: another country, another currency, a bank account', async () => {
    const calls = disbursementCalls();
    expect(await rail.sendPayout(payout('+233244000300', { currency: 'GHS' }))).to.deep.include({ outcome: 'refused' });
    expect(await rail.sendPayout(payout(rwandanNumber(), { currency: 'UGX' }))).to.deep.include({
      outcome: 'refused',
      failureCode: 'provider_error',
    });
    expect(
      await rail.sendPayout(
        payout('', {
          destination: { type: 'bank_account', bankCode: 'BK', accountNumber: '1', accountHolderName: 'A' },
        }),
      ),
    ).to.deep.include({ outcome: 'refused' });
    expect(disbursementCalls()).to.equal(calls);
    expect((await rail.payoutStatus(airtelTransactionId('RW', `payout:${newId('po_')}`))).outcome).to.equal(
      'not_received',
    );
  });

  it('caches the token across sends and enquiries, and is unavailable (nothing sent) when Airtel refuses the credentials', async () => {
    const cached = createAirtelPayoutRail(settings)!;
    const issued = fake.tokensIssued;
    const { providerReference } = await cached.sendPayout(payout(rwandanNumber()));
    await cached.payoutStatus(providerReference);
    await cached.sendPayout(payout(rwandanNumber()));
    expect(fake.tokensIssued - issued).to.equal(1);
    const refused = createAirtelPayoutRail({ ...settings, clientSecret: 'wrong' })!;
    const calls = disbursementCalls();
    const thrown = await refused.sendPayout(payout(rwandanNumber())).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(thrown).to.be.instanceOf(PayoutRailUnavailable);
    expect(disbursementCalls()).to.equal(calls);
  });
});
