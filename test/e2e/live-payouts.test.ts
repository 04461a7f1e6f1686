/**
 * Live payouts of the new providers end to end (docs/payouts.md#wave-payouts, docs/payouts.md#vodacom-m-pesa-b2c): the
 * whole service (API and worker processes) in live mode pointed at the Wave and Vodacom fakes. A live merchant collects
 * a payment through the provider (its settlement delay set to none by the admin command, so the money is available at
 * once), adds a wallet of the provider as a payout destination with a recent two-factor code, and is paid out by
 * `POST /v1/payouts`: the rail pays it (`paid`) or the payee's refusal fails it (`failed`, the reservation returned).
 * The ledger holds each payout's journals (reserved, then paid or failed) and its invariants hold for the merchant.
 */
import { expect } from 'chai';
import { startVodacomFake, VODACOM_FAKE_PAYEES, type VodacomFake } from '../fakes/vodacom-fake';
import { startWaveFake, WAVE_FAKE_PAYEES, type WaveFake } from '../fakes/wave-fake';
import { uniqueNumber } from '../helpers/adapters';
import { runAdminProcess } from '../helpers/live-access-api';
import { ledgerProblems } from '../helpers/ledger';
import {
  approvedLiveMerchant,
  callService,
  startLiveService,
  waitForLivePayment,
  type LiveService,
} from '../helpers/live-providers';
import { turnOnTwoFactor } from '../helpers/security';
import { getStack } from '../helpers/stack';

const WAVE_API_KEY = 'wave_sn_prod_payouts-e2e-key';
const WAVE_WEBHOOK_SECRET = 'wave_sn_WHS_payouts-e2e-secret';

/** A live merchant of the service under test: its live key, merchant id and a session with a fresh two-factor code. */
interface LiveMerchant {
  liveKey: string;
  merchantId: string;
  token: string;
}

describe('live payouts of Wave and Vodacom M-Pesa end to end, with the ledger (docs/payouts.md#rails)', function () {
  this.timeout(240_000);
  let wave: WaveFake;
  let vodacom: VodacomFake;
  let service: LiveService;

  before(async () => {
    wave = await startWaveFake({ apiKey: WAVE_API_KEY, webhookSecret: WAVE_WEBHOOK_SECRET, approvalDelayMs: 200 });
    vodacom = await startVodacomFake();
    service = await startLiveService({
      WAVE_BASE_URL: wave.url,
      WAVE_API_KEY,
      WAVE_WEBHOOK_SECRET,
      WAVE_SUCCESS_URL: 'https://shop.example/paid',
      WAVE_ERROR_URL: 'https://shop.example/not-paid',
      WAVE_TIMEOUT_MS: '2000',
      VODACOM_BASE_URL: vodacom.baseUrl,
      VODACOM_API_KEY: vodacom.apiKey,
      VODACOM_PUBLIC_KEY: vodacom.publicKey,
      VODACOM_SERVICE_PROVIDER_CODE: vodacom.serviceProviderCode,
      VODACOM_B2C_SERVICE_PROVIDER_CODE: vodacom.b2cServiceProviderCode,
      VODACOM_TIMEOUT_MS: '2000',
    });
    wave.setMode({ webhookUrl: `${service.baseUrl}/v1/provider-callbacks/wave` });
  });

  after(async () => {
    await service?.stop();
    await wave?.close();
    await vodacom?.close();
  });

  /** A live merchant whose collected money is available at once (settlement delay 0), with a stepped-up session. */
  async function liveMerchant(): Promise<LiveMerchant> {
    const { liveKey, merchantId, developer } = await approvedLiveMerchant();
    const run = await runAdminProcess(['merchant', 'set-settlement-delay', merchantId, '0', '--operator', 'e2e']);
    expect(run.code, run.stderr).to.equal(0);
    const stepped = await turnOnTwoFactor(developer);
    return { liveKey, merchantId, token: stepped.token };
  }

  /** Collects `body` (a generic create) live and waits for it to complete; returns the payment. */
  async function collect(merchant: LiveMerchant, body: Record<string, unknown>): Promise<any> {
    const created = await callService(service.baseUrl, '/v1/payments', merchant.liveKey, { body });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    return waitForLivePayment(service.baseUrl, merchant.liveKey, created.body.data.id, (p) => p.status === 'completed');
  }

  /**
   * Adds a live wallet destination (the dashboard's step-up session), usable at once: the 24 hours a live destination
   * waits (docs/payouts.md) are moved into the past in its row, as if they had passed.
   */
  async function destination(merchant: LiveMerchant, body: Record<string, unknown>): Promise<string> {
    const added = await callService(service.baseUrl, '/v1/payout_destinations?environment=live', merchant.token, {
      body: { type: 'mobile_money', ...body },
    });
    expect(added.status, JSON.stringify(added.body)).to.equal(201);
    const { db } = await getStack();
    await db('payout_destinations')
      .where({ id: added.body.data.id })
      .update({ usable_from: new Date(Date.now() - 1000) });
    return added.body.data.id as string;
  }

  /** Creates a live payout and waits until it is decided (`paid` or `failed`); returns it. */
  async function payOut(merchant: LiveMerchant, body: Record<string, unknown>): Promise<any> {
    const created = await callService(service.baseUrl, '/v1/payouts', merchant.liveKey, { body });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const deadline = Date.now() + 60_000;
    let last: any;
    while (Date.now() < deadline) {
      last = (await callService(service.baseUrl, `/v1/payouts/${created.body.data.id}`, merchant.liveKey)).body.data;
      if (last?.status === 'paid' || last?.status === 'failed') return last;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`payout ${created.body.data.id} was not decided; last: ${JSON.stringify(last)}`);
  }

  /** The steps of `payoutId` the ledger holds journals of, in the order written. */
  async function journalSteps(payoutId: string): Promise<string[]> {
    const { db } = await getStack();
    const rows = await db('ledger_journals')
      .where('cause', 'like', `payout:${payoutId}:%`)
      .orderBy('created_at')
      .pluck('cause');
    return rows.map((cause: string) => cause.split(':')[2]!);
  }

  /** The merchant's live available balance in `currency`, in minor units. */
  async function available(merchant: LiveMerchant, currency: string): Promise<number> {
    const balance = await callService(service.baseUrl, '/v1/balance', merchant.liveKey);
    expect(balance.status, JSON.stringify(balance.body)).to.equal(200);
    const row = (balance.body.data.available as { amount: number; currency: string }[]).find(
      (b) => b.currency === currency,
    );
    return row?.amount ?? 0;
  }

  /** One provider's payout walk-through: what it collects, where it pays and how its rail is seen to have paid. */
  interface Walk {
    /** The generic create that funds the merchant. */
    collection: Record<string, unknown> & { currency: string };
    /** The destination's fields besides its number (Wave's `operator`). */
    destinationFields: Record<string, unknown>;
    /** A payee number ending `ending` of the provider's fake. */
    payee: (ending: string) => string;
    /** The ending of a payee whose wallet refuses the payout as restricted. */
    refusingEnding: string;
    /** Amounts in minor units: the paid payout's and the failed one's. */
    paidAmount: number;
    failedAmount: number;
    /** How many requests the provider's fake took to pay the payout `payoutId` to `phone` (E.164). */
    paymentsSent: (payoutId: string, phone: string) => number;
  }

  /**
   * Funds a live merchant through the provider, pays `paidAmount` out to a wallet (paid, once, its journals reserved
   * then paid) and `failedAmount` to a refusing one (failed `account_restricted`, reserved then failed, the money
   * back), and checks the ledger's invariants for the merchant.
   */
  async function walk(w: Walk): Promise<void> {
    const merchant = await liveMerchant();
    await collect(merchant, { payment_method: 'mobile_money', description: 'Basket', ...w.collection });
    const { currency } = w.collection;
    const before = await available(merchant, currency);
    expect(before).to.be.above(w.paidAmount + w.failedAmount);

    const paidPhone = w.payee('4321');
    const paidTo = await destination(merchant, { phone_number: paidPhone, ...w.destinationFields });
    const paid = await payOut(merchant, { amount: w.paidAmount, currency, destination: paidTo });
    expect(paid).to.include({ status: 'paid', amount: w.paidAmount, currency });
    expect(w.paymentsSent(paid.id, paidPhone)).to.equal(1);
    expect(await journalSteps(paid.id)).to.deep.equal(['reserved', 'paid']);

    const refusingTo = await destination(merchant, { phone_number: w.payee(w.refusingEnding), ...w.destinationFields });
    const failed = await payOut(merchant, { amount: w.failedAmount, currency, destination: refusingTo });
    expect(failed).to.include({ status: 'failed', failure_code: 'account_restricted' });
    expect(await journalSteps(failed.id)).to.deep.equal(['reserved', 'failed']);

    // The paid payout left the balance (with its fee, under half its amount here); the failed one came back whole.
    const spent = before - (await available(merchant, currency));
    expect(spent)
      .to.be.at.least(w.paidAmount)
      .and.below(w.paidAmount * 1.5);
    const { db } = await getStack();
    expect(await ledgerProblems(db, { merchantIds: [merchant.merchantId] })).to.deep.equal([]);
  }

  it('pays out to a Wave wallet by the Payout API: paid, or failed by the payee with the money returned', async () => {
    await walk({
      collection: {
        amount: 20_000,
        currency: 'XOF',
        operator: 'wave',
        phone_number: uniqueNumber('+22178', 3, '5000'),
      },
      destinationFields: { operator: 'wave' },
      payee: (ending) => uniqueNumber('+22177', 3, ending),
      refusingEnding: WAVE_FAKE_PAYEES.blocked,
      paidAmount: 5_000,
      failedAmount: 3_000,
      paymentsSent: (payoutId) => wave.payouts.filter((p) => p.client_reference === payoutId).length,
    });
  });

  it('pays out to a Vodacom wallet by B2C: paid, or refused by M-Pesa with the money returned', async () => {
    await walk({
      collection: { amount: 3_000_000, currency: 'TZS', phone_number: uniqueNumber('+25576', 3, '5000') },
      destinationFields: {},
      payee: (ending) => uniqueNumber('+25575', 3, ending),
      refusingEnding: VODACOM_FAKE_PAYEES.inactive,
      paidAmount: 500_000,
      failedAmount: 200_000,
      // B2C payments from the B2C short code to the wallet.
      paymentsSent: (_payoutId, phone) =>
        vodacom.transactions.filter((t) => t.kind === 'b2c' && t.msisdn === phone.slice(1)).length,
    });
  });
});
