/**
 * Vodacom M-Pesa Tanzania's B2C payout rail (docs/payouts.md#vodacom-m-pesa-b2c) against the M-Pesa OpenAPI fake over
 * real HTTP: the documented B2C request from the B2C short code, paid and refused answers mapped onto the rail's, and
 * never paid twice: a payout whose answer was lost is `unknown`, a repeated send meets the OpenAPI's duplicate check,
 * and the status query settles it; a refused API key sends nothing and leaves the payout to be sent later.
 */
import { expect } from 'chai';
import { newId } from '../../src/lib/ids';
import { PayoutRailUnavailable, type PayoutRail, type PayoutRequest } from '../../src/providers/payout-rail';
import { memoryRequestLog } from '../../src/providers/provider';
import { createVodacomPayoutRail, payoutConversationIdOf } from '../../src/providers/vodacom/b2c';
import { vodacomSettingsSchema, type VodacomSettings } from '../../src/providers/vodacom/settings';
import {
  B2C_PATH,
  startVodacomFake,
  vodacomSettingsFor,
  VODACOM_FAKE_PAYEES,
  type VodacomFake,
} from '../fakes/vodacom-fake';
import { rejectionOf, uniqueNumber } from '../helpers/adapters';

const TIMEOUT_MS = 400;

/** A Vodacom Tanzania number (+25574…) ending in `ending` (four digits; default: one that is paid), unique per call. */
const payee = (ending = '7000') => uniqueNumber('+25574', 3, ending);

describe('Vodacom M-Pesa B2C payout rail (docs/payouts.md#vodacom-m-pesa-b2c) against the OpenAPI fake', function () {
  this.timeout(15_000);
  let fake: VodacomFake;
  let settings: VodacomSettings;
  let rail: PayoutRail;

  before(async () => {
    fake = await startVodacomFake();
    settings = vodacomSettingsSchema.parse(vodacomSettingsFor(fake, TIMEOUT_MS));
    rail = createVodacomPayoutRail(settings, { requestLog: memoryRequestLog() }) as PayoutRail;
  });
  after(async () => {
    await fake.close();
  });

  /** A TZS 25,000.00 payout to `phoneNumber`. */
  const payout = (phoneNumber: string, overrides: Partial<PayoutRequest> = {}): PayoutRequest => ({
    payoutId: newId('po_'),
    amount: 2_500_000,
    currency: 'TZS',
    destination: { type: 'mobile_money', phoneNumber },
    description: 'Payout #7 (week 48)',
    callbackUrl: null,
    ...overrides,
  });
  const b2cCalls = (payoutId: string) =>
    fake.requests.filter(
      (r) =>
        r.path === B2C_PATH &&
        (r.body as { input_ThirdPartyConversationID?: string }).input_ThirdPartyConversationID ===
          payoutConversationIdOf(payoutId),
    );

  it('is configured only with a B2C short code', () => {
    const { b2cServiceProviderCode: _, ...collectionOnly } = settings;
    expect(createVodacomPayoutRail(collectionOnly, { requestLog: memoryRequestLog() })).to.equal(undefined);
  });

  it('pays with the documented request from the B2C short code, and answers a repeated send from what it kept', async () => {
    const request = payout(payee());
    const answer = await rail.sendPayout(request);
    expect(answer).to.deep.equal({ outcome: 'paid', providerReference: request.payoutId });
    const [sent] = b2cCalls(request.payoutId);
    expect(sent?.body).to.deep.equal({
      input_Amount: '25000',
      input_Country: 'TZN',
      input_Currency: 'TZS',
      input_CustomerMSISDN: request.destination.type === 'mobile_money' ? request.destination.phoneNumber.slice(1) : '',
      input_ServiceProviderCode: fake.b2cServiceProviderCode,
      input_ThirdPartyConversationID: payoutConversationIdOf(request.payoutId),
      input_TransactionReference: payoutConversationIdOf(request.payoutId).slice(-12),
      input_PaymentItemsDesc: 'Payout 7 week 48',
    });
    expect(await rail.sendPayout(request)).to.deep.equal(answer);
    expect(await rail.payoutStatus(request.payoutId)).to.deep.equal(answer);
    expect(b2cCalls(request.payoutId)).to.have.length(1);
  });

  const refusals: [string, string, string][] = [
    [VODACOM_FAKE_PAYEES.orgInsufficient, 'platform_funds', 'INS-2006'],
    [VODACOM_FAKE_PAYEES.inactive, 'account_restricted', 'INS-996'],
    [VODACOM_FAKE_PAYEES.invalidReceiver, 'account_invalid', 'INS-2002'],
  ];
  for (const [ending, failureCode, code] of refusals) {
    it(`maps ${code} to refused, ${failureCode}`, async () => {
      const request = payout(payee(ending));
      expect(await rail.sendPayout(request)).to.deep.include({ outcome: 'refused', failureCode, providerReason: code });
    });
  }

  it('refuses cents and a number outside Tanzania before sending anything', async () => {
    const cents = payout(payee(), { amount: 2_500_050 });
    const kenyan = payout('+254712345678');
    expect(await rail.sendPayout(cents)).to.deep.include({ outcome: 'refused', failureCode: 'amount_invalid' });
    expect(await rail.sendPayout(kenyan)).to.deep.include({ outcome: 'refused', failureCode: 'account_invalid' });
    expect([...b2cCalls(cents.payoutId), ...b2cCalls(kenyan.payoutId)]).to.deep.equal([]);
  });

  it('a lost answer is unknown; a repeated send meets the duplicate check, and the query says paid: paid once', async () => {
    const request = payout(payee());
    fake.injectFaults('hang', 1, [B2C_PATH]);
    expect(await rail.sendPayout(request)).to.include({ outcome: 'unknown' });
    expect(await rail.sendPayout(request)).to.include({ outcome: 'unknown' });
    expect(await rail.payoutStatus(request.payoutId)).to.deep.equal({
      outcome: 'paid',
      providerReference: request.payoutId,
    });
    expect(b2cCalls(request.payoutId)).to.have.length(2);
    expect(
      fake.transactions.filter(
        (t) => t.kind === 'b2c' && t.thirdPartyConversationId === payoutConversationIdOf(request.payoutId),
      ),
    ).to.have.length(1);
  });

  it('a payout the OpenAPI does not know is not_received', async () => {
    expect(await rail.payoutStatus(newId('po_'))).to.include({ outcome: 'not_received' });
  });

  it('a refused API key sends nothing: the payout waits (PayoutRailUnavailable)', async () => {
    const wrong = createVodacomPayoutRail({ ...settings, apiKey: 'not-the-key' }, { requestLog: memoryRequestLog() });
    const request = payout(payee());
    expect(await rejectionOf(wrong!.sendPayout(request))).to.be.instanceOf(PayoutRailUnavailable);
    expect(b2cCalls(request.payoutId)).to.deep.equal([]);
  });
});
