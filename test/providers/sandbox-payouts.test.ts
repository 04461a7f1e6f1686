/**
 * The sandbox payout rails (docs/payouts.md#sandbox-destinations, docs/payouts.md#rails) against the real PostgreSQL
 * records: every destination ending, a repeated or concurrent send that finds the first, the rail that is down
 * before it takes anything, the bank rail, and which rail the registry gives in each environment. The rails' clock
 * is a test clock moved by hand, so every delay is exact.
 */
import { expect } from 'chai';
import type { Db } from '../../src/db/knex';
import { createDb } from '../../src/db/knex';
import { createSandboxPayoutLedger } from '../../src/db/sandbox-payouts';
import type { PayoutDestination } from '../../src/domain/payout-rail';
import { payoutBehaviourForEnding } from '../../src/domain/sandbox-payouts';
import { newId } from '../../src/lib/ids';
import { PayoutRailUnavailable, type PayoutRail, type PayoutRequest } from '../../src/providers/payout-rail';
import { createPayoutRailRegistry } from '../../src/providers/payout-registry';
import { createSandboxPayoutRail, sandboxPayoutReference } from '../../src/providers/sandbox/payout-simulator';
import { providerSettingsFrom } from '../../src/providers/settings';
import { testConfig } from '../helpers/stack';

const DELAY_MS = 3_000;

describe('sandbox payout rails (docs/payouts.md#sandbox-destinations)', function () {
  this.timeout(20_000);
  let db: Db;
  /** The rails' clock; tests move it with `advance`. */
  let clock: number;
  let momo: PayoutRail;
  let bank: PayoutRail;
  const advance = (ms: number) => {
    clock += ms;
  };
  const deps = () => ({
    payoutLedger: createSandboxPayoutLedger(db),
    now: () => new Date(clock),
    payoutDelayMs: DELAY_MS,
  });

  before(() => {
    db = createDb(testConfig().DATABASE_URL, 3);
    clock = Date.now();
    momo = createSandboxPayoutRail(
      'momo',
      { destination: 'mobile_money', currencies: ['RWF', 'UGX', 'GHS'], live: true, accountHolderLookup: true },
      deps(),
    );
    bank = createSandboxPayoutRail(
      'bank_transfer',
      { destination: 'bank_account', currencies: ['RWF', 'UGX', 'KES'], live: false, accountHolderLookup: false },
      deps(),
    );
  });
  after(async () => {
    await db.destroy();
  });

  /** A fresh payout of 5000 RWF to a Rwandan MTN wallet whose number ends in `ending`. */
  function toWallet(ending: string, overrides: Partial<PayoutRequest> = {}): PayoutRequest {
    const middle = String(Math.floor(Math.random() * 1000)).padStart(3, '0');
    return {
      payoutId: newId('po_'),
      amount: 5000,
      currency: 'RWF',
      destination: { type: 'mobile_money', phoneNumber: `+25078${middle}${ending}` },
      callbackUrl: null,
      ...overrides,
    };
  }

  /** What a send threw, or undefined. */
  async function sendError(rail: PayoutRail, request: PayoutRequest): Promise<unknown> {
    return rail.sendPayout(request).then(
      () => undefined,
      (error: unknown) => error,
    );
  }

  const outcomeOf = async (reference: string) => (await momo.payoutStatus(reference)).outcome;

  it('decides by the last four digits of the number, whatever the formatting', () => {
    expect(
      ['0001', '0002', '0003', '0005', '0007', '0009', '0004', '1234'].map((e) => payoutBehaviourForEnding(e)),
    ).to.deep.equal([
      'paid_at_once',
      'account_invalid',
      'in_transit_then_paid',
      'rail_down_then_paid',
      'unknown_then_paid',
      'paid_then_returned',
      'paid_after_delay',
      'paid_after_delay',
    ]);
    expect(payoutBehaviourForEnding('+250 788-00-0002')).to.equal('account_invalid');
  });

  it('0001 is paid at once, with a reference derived from the payout id', async () => {
    const request = toWallet('0001');
    const reference = sandboxPayoutReference('momo', request.payoutId);
    expect(reference).to.match(/^momo_[0-9A-Za-z]{24}$/);
    expect(await momo.sendPayout(request)).to.deep.equal({ outcome: 'paid', providerReference: reference });
    expect(await outcomeOf(reference)).to.equal('paid');
  });

  it('0002 is refused with account_invalid', async () => {
    const answer = await momo.sendPayout(toWallet('0002'));
    expect(answer).to.deep.include({ outcome: 'refused', failureCode: 'account_invalid' });
    expect(await momo.payoutStatus(answer.providerReference)).to.deep.include({
      outcome: 'refused',
      failureCode: 'account_invalid',
    });
  });

  it('0003 is in transit for 60 s, then paid', async () => {
    const { outcome, providerReference } = await momo.sendPayout(toWallet('0003'));
    expect(outcome).to.equal('in_transit');
    advance(59_999);
    expect(await outcomeOf(providerReference)).to.equal('in_transit');
    advance(1);
    expect(await outcomeOf(providerReference)).to.equal('paid');
  });

  it('0005: the rail is down for 60 s after the first attempt and takes nothing; sent after that, it is paid', async () => {
    const request = toWallet('0005');
    const reference = sandboxPayoutReference('momo', request.payoutId);
    const first = await sendError(momo, request);
    expect(first).to.be.instanceOf(PayoutRailUnavailable);
    expect((first as PayoutRailUnavailable).retryAfterMs).to.equal(60_000);
    expect(await outcomeOf(reference)).to.equal('not_received');
    advance(30_000);
    expect(((await sendError(momo, request)) as PayoutRailUnavailable).retryAfterMs).to.equal(30_000);
    advance(30_000);
    expect(await outcomeOf(reference)).to.equal('not_received');
    expect(await momo.sendPayout(request)).to.deep.equal({ outcome: 'paid', providerReference: reference });
  });

  it('0007: the send answers unknown though the rail took it; asked about, unknown for 20 s, then paid', async () => {
    const request = toWallet('0007');
    const { outcome, providerReference } = await momo.sendPayout(request);
    expect(outcome).to.equal('unknown');
    advance(19_999);
    expect(await outcomeOf(providerReference)).to.equal('unknown');
    advance(1);
    expect(await outcomeOf(providerReference)).to.equal('paid');
  });

  it('0009 is paid at once and returned 30 s later', async () => {
    const { outcome, providerReference } = await momo.sendPayout(toWallet('0009'));
    expect(outcome).to.equal('paid');
    advance(29_999);
    expect(await outcomeOf(providerReference)).to.equal('paid');
    advance(1);
    expect(await outcomeOf(providerReference)).to.equal('returned');
  });

  it('any other ending is in transit for the delay, then paid', async () => {
    const { outcome, providerReference } = await momo.sendPayout(toWallet('4321'));
    expect(outcome).to.equal('in_transit');
    advance(DELAY_MS);
    expect(await outcomeOf(providerReference)).to.equal('paid');
  });

  it('a send repeated, even concurrently, finds the first: one record, one reference, the same answer', async () => {
    const request = toWallet('0003');
    const answers = await Promise.all(Array.from({ length: 6 }, () => momo.sendPayout(request)));
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).to.equal(1);
    advance(10_000);
    expect((await momo.sendPayout({ ...request, amount: 1 })).outcome).to.equal('in_transit');
    const rows = await db('sandbox_provider_payouts').where({ payout_id: request.payoutId });
    expect(rows).to.have.length(1);
    expect(rows[0].amount).to.equal(5000);
  });

  it('a reference the rail never saw is not_received', async () => {
    expect(await outcomeOf(sandboxPayoutReference('momo', newId('po_')))).to.equal('not_received');
  });

  it('the bank rail pays bank accounts by their ending, and refuses what it does not pay', async () => {
    const account: PayoutDestination = {
      type: 'bank_account',
      bankCode: 'BK',
      accountNumber: '0004-0001-0002',
      accountHolderName: 'Umuhoza Ltd',
    };
    const refused = await bank.sendPayout({ ...toWallet('0001'), destination: account });
    expect(refused).to.deep.include({ outcome: 'refused', failureCode: 'account_invalid' });
    const paid = await bank.sendPayout({
      ...toWallet('0001'),
      currency: 'KES',
      destination: { ...account, accountNumber: '000400010001' },
    });
    expect(paid.outcome).to.equal('paid');
    expect(paid.providerReference).to.match(/^bank_transfer_/);
    expect(await bank.sendPayout(toWallet('0001'))).to.deep.include({
      outcome: 'refused',
      failureCode: 'provider_error',
    });
    expect(await bank.sendPayout({ ...toWallet('0001'), currency: 'GHS', destination: account })).to.deep.include({
      outcome: 'refused',
      failureCode: 'provider_error',
    });
    expect(bank.verifyAccountHolder).to.equal(undefined);
  });

  it('looks up wallet holders where the provider can: 0002 is unverified, others verified', async () => {
    expect(await momo.verifyAccountHolder!('+250788000002')).to.equal('unverified');
    expect(await momo.verifyAccountHolder!('+250788000001')).to.equal('verified');
  });

  it('the registry: simulators for the rails the descriptors declare in sandbox; in live only configured rails, never the bank', () => {
    const base = {
      MOMO_BASE_URL: 'https://proxy.momoapi.example',
      MOMO_API_USER: 'user',
      MOMO_API_KEY: 'key',
      MOMO_SUBSCRIPTION_KEY: 'sub',
      MOMO_TARGET_ENVIRONMENT: 'mtnrwanda',
    };
    const registryDeps = { ...deps(), callbackSecret: 'x'.repeat(32) };
    const collecting = createPayoutRailRegistry(registryDeps, {
      live: providerSettingsFrom(base).settings.live,
      sandbox: {},
    });
    expect(
      ['momo', 'mobile_money_b', 'bank_transfer', 'card_gateway', 'wallet', 'mobile_money_c'].map(
        (code) => collecting.get('sandbox', code as never)?.code,
      ),
    ).to.deep.equal(['momo', 'mobile_money_b', 'bank_transfer', undefined, undefined, undefined]);
    expect(collecting.get('live', 'momo')).to.equal(undefined);
    expect(collecting.get('live', 'bank_transfer')).to.equal(undefined);
    const paying = createPayoutRailRegistry(registryDeps, {
      live: providerSettingsFrom({
        ...base,
        MOMO_DISBURSEMENT_API_USER: 'duser',
        MOMO_DISBURSEMENT_API_KEY: 'dkey',
        MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: 'dsub',
      }).settings.live,
      sandbox: {},
    });
    expect(paying.get('live', 'momo')?.code).to.equal('momo');
    expect(paying.get('live', 'bank_transfer')).to.equal(undefined);
    const partial = providerSettingsFrom({ ...base, MOMO_DISBURSEMENT_API_USER: 'duser' });
    expect(partial.problems).to.deep.equal([
      'MOMO_DISBURSEMENT_API_KEY: required when the other Disbursement settings are given',
      'MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: required when the other Disbursement settings are given',
    ]);
  });
});
