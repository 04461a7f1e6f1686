/**
 * Airtel Money's balance in reconciliation (docs/reconciliation.md#sources) against the fake Airtel API over real HTTP
 * and the real ledger in PostgreSQL: the documented balance enquiry asked once per country whose currency our books
 * hold, its major units read as minor units; a clean day that finds nothing, a seeded drift the run must find, and a
 * provider that answers 500, never answers or answers a body Airtel does not document, which leaves the run failed
 * with nothing stored until a retry succeeds.
 */
import { expect } from 'chai';
import { createReconciliationActivities } from '../../src/activities/reconciliation-activities';
import { writeJournal } from '../../src/db/ledger';
import { clearingCurrencies, expectedClearingBalance, inFlightAmount } from '../../src/db/reconciliation';
import { clearingAdjustmentJournal } from '../../src/domain/reconciliation';
import { newId } from '../../src/lib/ids';
import { ProviderUnknownAnswer } from '../../src/providers/http';
import { AIRTEL_COUNTRY_CURRENCIES } from '../../src/providers/airtel/client';
import { provider as airtel } from '../../src/providers/airtel';
import { airtelSettingsSchema, type AirtelSettings } from '../../src/providers/airtel/settings';
import { AIRTEL_BALANCE_PATH } from '../../src/providers/airtel/statement';
import { ledgerProblems } from '../helpers/ledger';
import { getStack } from '../helpers/stack';
import type { Db } from '../../src/db/knex';
import { startAirtelFake, type AirtelFake, type FakeFaultKind } from '../fakes/airtel-fake';

const account = { provider: 'mobile_money_b', environment: 'live' } as const;

describe('Airtel Money balance in reconciliation (docs/reconciliation.md#sources)', function () {
  this.timeout(30_000);
  let fake: AirtelFake;
  let settings: AirtelSettings;

  before(async () => {
    fake = await startAirtelFake({ disbursementBalance: 0 });
    settings = airtelSettingsSchema.parse({
      baseUrl: fake.url,
      clientId: 'airtel-client-id',
      clientSecret: 'airtel-client-secret',
      timeoutMs: 400,
    });
  });
  after(async () => {
    await fake.close();
  });

  const balanceCalls = () => fake.requests.filter((r) => r.path === AIRTEL_BALANCE_PATH);

  it('asks the documented enquiry once per country of the currencies our books hold, in minor units', async () => {
    fake.setBalance('RW', 1_500);
    fake.setBalance('KE', 123_456);
    const statement = airtel.createStatement!(settings);
    expect(statement.method).to.equal('balance');
    if (statement.method !== 'balance') return;
    const before = balanceCalls().length;
    expect(await statement.balances(['KES', 'RWF', 'GHS'])).to.deep.equal([
      { currency: 'KES', amount: 123_456 },
      { currency: 'RWF', amount: 1_500 },
    ]);
    const asked = balanceCalls().slice(before);
    expect(asked.map((r) => [r.method, r.headers['x-country'], r.headers['x-currency']])).to.deep.equal([
      ['GET', 'KE', 'KES'],
      ['GET', 'RW', 'RWF'],
    ]);
    expect(asked[0]?.headers.authorization).to.match(/^Bearer \S+$/);
    expect(await statement.balances([])).to.deep.equal([]);
  });

  it('asks every country of a currency several hold (XAF: CG, TD, GA) and sums their accounts', async () => {
    fake.setBalance('CG', 1_000);
    fake.setBalance('TD', 20_000);
    fake.setBalance('GA', 300_000);
    const statement = airtel.createStatement!(settings);
    if (statement.method !== 'balance') throw new Error('Airtel reports a balance');
    const before = balanceCalls().length;
    expect(await statement.balances(['XAF'])).to.deep.equal([{ currency: 'XAF', amount: 321_000 }]);
    expect(
      balanceCalls()
        .slice(before)
        .map((r) => [r.headers['x-country'], r.headers['x-currency']]),
    ).to.deep.equal([
      ['CG', 'XAF'],
      ['TD', 'XAF'],
      ['GA', 'XAF'],
    ]);
  });

  it('gives no balance when Airtel answers 500, does not answer, or answers an undocumented body', async () => {
    const statement = airtel.createStatement!(settings);
    if (statement.method !== 'balance') throw new Error('Airtel reports a balance');
    for (const kind of ['error_500', 'hang', 'undocumented'] as FakeFaultKind[]) {
      fake.injectFaults(kind, 1, [AIRTEL_BALANCE_PATH]);
      const error = await statement.balances(['RWF']).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error, kind).to.be.instanceOf(ProviderUnknownAnswer);
    }
    expect(await statement.balances(['RWF'])).to.deep.equal([{ currency: 'RWF', amount: 1_500 }]);
  });

  /** What our books expect Airtel's live account to hold, and hold in flight, per currency. */
  async function ourBooks(db: Db, currencies: readonly string[]) {
    const ours = new Map<string, { expected: number; inFlight: number }>();
    for (const currency of currencies) {
      const expected = await expectedClearingBalance(db, account, currency);
      ours.set(currency, { expected, inFlight: await inFlightAmount(db, account, currency) });
    }
    return ours;
  }

  /** Airtel's books agree with `ours` in every country, but RWF is off by `driftRwf`. */
  function airtelAgrees(ours: Map<string, { expected: number }>, driftRwf: number): void {
    for (const [country, currency] of Object.entries(AIRTEL_COUNTRY_CURRENCIES)) {
      const figures = ours.get(currency);
      if (figures) fake.setBalance(country, figures.expected + (currency === 'RWF' ? driftRwf : 0));
    }
  }

  it('passes a clean day, finds a seeded drift beyond what is in flight, and fails a run Airtel cannot answer', async () => {
    const { db } = await getStack();
    // Our books: Airtel's live RWF clearing account holds 40,000 more than before.
    const seed = { id: newId('adj_'), ...account, currency: 'RWF', operator: 'test', reason: 'seeded collections' };
    await writeJournal(db, clearingAdjustmentJournal({ ...seed, amount: 40_000 }), new Date());
    const currencies = await clearingCurrencies(db, account);
    expect(currencies).to.include('RWF');
    const ours = await ourBooks(db, currencies);
    const airtelHolds = (driftRwf: number) => airtelAgrees(ours, driftRwf);
    const activities = createReconciliationActivities({ db, statementSource: () => airtel.createStatement!(settings) });
    const reconcile = (day: string) => activities.reconcileProviderDay({ ...account, day });

    airtelHolds(0);
    const clean = await reconcile('2026-03-10');
    expect(clean).to.include({ method: 'balance', exceptionsFound: 0 });
    expect(clean.compared).to.deep.equal({ ours: currencies.length, theirs: currencies.length });

    const rwf = ours.get('RWF')!;
    airtelHolds(Math.abs(rwf.inFlight) + 700);
    const drifted = await reconcile('2026-03-11');
    expect(drifted.exceptionsFound).to.equal(1);
    const drift = await db('reconciliation_exceptions').where({ run_id: drifted.runId }).first();
    expect(drift).to.include({
      kind: 'balance_drift',
      provider: 'mobile_money_b',
      currency: 'RWF',
      status: 'open',
    });
    expect(Number(drift.expected_amount)).to.equal(rwf.expected);
    expect(Number(drift.found_amount)).to.equal(rwf.expected + Math.abs(rwf.inFlight) + 700);

    airtelHolds(0);
    fake.injectFaults('error_500', 1, [AIRTEL_BALANCE_PATH]);
    const failed = await reconcile('2026-03-12').then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(failed).to.be.instanceOf(Error);
    const run = await db('reconciliation_runs')
      .where({ ...account, day: '2026-03-12' })
      .first();
    expect(run.status).to.equal('failed');
    expect(await db('reconciliation_exceptions').where({ run_id: run.id })).to.deep.equal([]);
    expect(await reconcile('2026-03-12')).to.include({ exceptionsFound: 0 });
    expect(await ledgerProblems(db)).to.deep.equal([]);
  });

  it('counts a payout its provider may have paid before we recorded it as in flight, and no more', async () => {
    const { db } = await getStack();
    const rolledBack = new Error('rolled back: the rows of this test stay out of the suite');
    await db
      .transaction(async (trx) => {
        const now = new Date();
        const destination = newId('dst_');
        await trx('payout_destinations').insert({
          id: destination,
          merchant_id: 'mer_in_flight_test',
          environment: 'live',
          type: 'mobile_money',
          provider: 'mobile_money_b',
          phone_number: '+250730000001',
          last4: '0001',
          status: 'verified',
          usable_from: now,
          created_at: now,
        });
        await trx('payouts').insert({
          id: newId('po_'),
          merchant_id: 'mer_in_flight_test',
          environment: 'live',
          amount: 900,
          fee: 9,
          currency: 'RWF',
          destination_id: destination,
          provider: 'mobile_money_b',
          status: 'in_transit',
          created_at: now,
          updated_at: now,
          in_transit_at: now,
        });
        const ours = await ourBooks(trx, await clearingCurrencies(trx, account));
        const rwf = ours.get('RWF')!;
        const activities = createReconciliationActivities({
          db: trx,
          statementSource: () => airtel.createStatement!(settings),
        });
        // Airtel paid it already and holds 900 less than our books: in flight.
        airtelAgrees(ours, -900);
        expect(await activities.reconcileProviderDay({ ...account, day: '2026-03-13' })).to.include({
          exceptionsFound: 0,
        });
        // Beyond everything in flight by 1: drift.
        airtelAgrees(ours, -(rwf.inFlight + 1));
        expect(rwf.inFlight).to.be.at.least(900);
        expect(await activities.reconcileProviderDay({ ...account, day: '2026-03-14' })).to.include({
          exceptionsFound: 1,
        });
        throw rolledBack;
      })
      .catch((error: unknown) => {
        if (error !== rolledBack) throw error;
      });
  });
});
