/**
 * The whole-system simulation (docs/simulation.md) in `npm test`: a bug planted by the simulator's own hooks
 * (sim/plants.ts) that the invariants find, for each plant; and a small fixed set of seeds through the real payment,
 * payout and webhook workflows and activities on the time-skipping test server and the real PostgreSQL, with no
 * invariant broken.
 */
import { expect } from 'chai';
import { migratedSiblingDatabase } from '../../scripts/lib/postgres';
import { OPERATOR_PROFILES } from '../../sim/operator';
import { PLANTS, type Plant } from '../../sim/plants';
import { runSeed, type RunResult } from '../../sim/run';
import { startWorld, type World } from '../../sim/world';
import { testConfig } from '../helpers/stack';

/**
 * The seeds `npm test` runs, and their simulated days each: a few seconds of wall time per seed. Seed 12 in place of 2
 * and 3 since checkout sessions took a share of the payments' steps (seeds 1 to 3 no longer pay a payout, nor retry an
 * attempt): it goes through every operator, pays payouts, retries an attempt, and one session's superseded attempt
 * collects late (a duplicate, refused its refund), docs/simulation.md#the-ci-budget.
 */
const CI_SEEDS = [1, 12];
const CI_DAYS = 0.05;
/**
 * The seeds tried for each plant, in order, until one finds it (a tenth of a day each). Temporal's scheduling under
 * the machine's load decides some of a run's story (docs/simulation.md#reproducibility), so a plant that seed 1
 * usually finds is given room (sixteen seeds: once, under load 15, refund-sent-on-retry was missed by the first eight);
 * the search stops at the first finding, so a found plant costs what it did.
 */
/**
 * A seed whose payment is created in an operator's outage (seed 6: its first, of 10 minutes, takes one payment's
 * initiation, tried five times), which the simulator left pending past its decision time before its watchdog told a
 * retried initiation from a leaked lock (docs/simulation.md#the-first-long-run): that run failed in 29 s of wall time.
 * The initiation costs up to its 2 real minutes, while the server's clock moves at real speed, as it must.
 */
const OUTAGE_SEED = { seed: 6, days: 0.05 };
const PLANT_SEEDS = Array.from({ length: 16 }, (_, i) => i + 1);

describe('simulation (docs/simulation.md)', function () {
  this.timeout(180_000);
  let world: World;

  // A database of its own on the suite's server: the planted bugs break the books on purpose, and the suite's last
  // check (test/zz-ledger.test.ts) proves every journal of its own database. A fresh test server for each test: a
  // search that stops at its violation leaves that run's workflows running, and every drain moves the server's clock
  // hours ahead of the wall clock, and either changed which seed finds a plant (docs/simulation.md#the-ci-budget).
  let databaseUrl: string;
  /**
   * The outage seed's run, started before the other tests and awaited by its own: its initiation is retried on the
   * wall clock for 2 real minutes during which its world does little, so it runs beside the plants' searches and the
   * clean seeds, on a test server, worker and database of its own (nothing of it meets theirs).
   */
  let outageRun: Promise<{ result: RunResult } | { error: unknown }>;
  before(async () => {
    const suiteUrl = testConfig().DATABASE_URL;
    const outageUrl = await migratedSiblingDatabase(suiteUrl, 'paycollect_sim_outage');
    outageRun = (async () => {
      const own = await startWorld(outageUrl);
      try {
        return await runSeed(own, OUTAGE_SEED);
      } finally {
        await own.stop();
      }
    })().then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    databaseUrl = await migratedSiblingDatabase(suiteUrl, 'paycollect_sim');
  });

  // Stopped before the suite goes on, whatever its test did.
  after(async () => {
    await outageRun;
  });

  describe('on a fresh world each', () => {
    beforeEach(async () => {
      world = await startWorld(databaseUrl);
    });

    afterEach(async () => {
      await world?.stop();
    });

    it('stops its world twice, as the hooks of a failed test may: the second stop is the first one', async () => {
      const first = world.stop();
      expect(world.stop()).to.equal(first);
      await first;
    });

    /** What each planted bug breaks, as the violation says it. */
    const FINDINGS: Record<Plant, RegExp> = {
      // Or, when a daily reconciliation came first (every run meets one at 02:00), the exception no fault of its kind
      // explains, or a balance off by more than the run's movements (a payment our books failed holds no posting to
      // explain its part by): sim/reconciliation.ts.
      'refund-sent-on-retry':
        /sent to the operator as|the operator's books|none of what makes|and no fault of it|beyond the run's movements/,
      'lost-answer-as-failure':
        /clearing 0, the operator's books [1-9]|none of what makes|and no fault of it|beyond the run's movements/,
      'skipped-posting': /completed has 0 collection journals/,
      'status-without-event': /without its payment\.[a-z]+ event/,
      'duplicated-delivery': /delivered to \S+ again after its 2xx/,
      // Keyed by the attempt that reserved again: the second, or a later one when a process fault failed the second.
      'payout-reserved-twice': /payout \S+ \(o\d+\) \w+ has journals .*:reserved,.*:reserved:\d+$/m,
      'checkout-attempt-twice': /never admitted as an attempt|attempts open at once|was paid twice/,
      'link-counted-twice': /payment link \S+ \(l\d+\) counts \d+ completed, but \d+ of its sessions are complete/,
    };

    for (const plant of PLANTS)
      it(`finds the planted ${plant} within ${PLANT_SEEDS.length} seeds, and names the seed and its replay`, async () => {
        let found: RunResult | undefined;
        for (const seed of PLANT_SEEDS) {
          const result = await runSeed(world, { seed, days: CI_DAYS * 2, plant });
          if (result.violation) {
            found = result;
            break;
          }
        }
        expect(found, 'no seed found the planted bug').to.not.equal(undefined);
        const violation = found!.violation!;
        expect(violation.replay).to.equal(
          `npm run sim -- --seed ${violation.seed} --days ${CI_DAYS * 2} --plant ${plant}`,
        );
        expect(violation.problems.join('\n'), violation.problems.join('\n')).to.match(FINDINGS[plant]);
      });

    it(`runs seeds ${CI_SEEDS.join(', ')} with every invariant holding after every step and at the end`, async () => {
      const results: RunResult[] = [];
      for (const seed of CI_SEEDS) results.push(await runSeed(world, { seed, days: CI_DAYS }));
      for (const result of results)
        expect(result.violation, JSON.stringify(result.violation, null, 2)).to.equal(undefined);
      // The runs did something: payments decided both ways, and refunds sent.
      const total = (status: string) => results.reduce((sum, r) => sum + (r.statuses[status] ?? 0), 0);
      expect(results.reduce((sum, r) => sum + r.payments, 0)).to.be.greaterThan(10);
      expect(total('completed') + total('refunded')).to.be.greaterThan(0);
      expect(total('failed')).to.be.greaterThan(0);
      expect(results.reduce((sum, r) => sum + r.refunds, 0)).to.be.greaterThan(0);
      // Through every simulated operator (sim/operator.ts OPERATOR_PROFILES), each holding its clearing check.
      const providers = new Set(results.flatMap((r) => Object.keys(r.providers)));
      expect([...providers].sort()).to.deep.equal(OPERATOR_PROFILES.map((p) => p.code).sort());
      // And payouts were asked for, and some paid through the simulated rail.
      const payouts = (status: string) => results.reduce((sum, r) => sum + (r.payoutStatuses[status] ?? 0), 0);
      expect(results.reduce((sum, r) => sum + r.payouts, 0)).to.be.greaterThan(0);
      expect(payouts('paid') + payouts('returned')).to.be.greaterThan(0);
      // And checkout sessions were made, retried on the same session after a failed attempt, and paid
      // (docs/simulation.md#checkout-sessions).
      const checkouts = (what: string) => results.reduce((sum, r) => sum + (r.checkout[what] ?? 0), 0);
      expect(checkouts('sessions')).to.be.greaterThan(0);
      expect(checkouts('retries')).to.be.greaterThan(0);
      expect(checkouts('sessions complete')).to.be.greaterThan(0);
      // And the operator was down for a while, with calls that fell in its outages (answered 503 or nothing).
      expect(results.reduce((sum, r) => sum + r.outages.length, 0)).to.be.greaterThan(0);
      expect(results.reduce((sum, r) => sum + (r.operator['calls in outages'] ?? 0), 0)).to.be.greaterThan(0);
      // And every process fault was met (docs/simulation.md#process-faults): the activity worker stopped mid-activity
      // and replaced, attempts failed before and after they ran, statements refused and dropped at the worker's pool.
      const faults = (what: string) => results.reduce((sum, r) => sum + (r.faults[what] ?? 0), 0);
      for (const what of [
        'worker restarts',
        'activity attempts failed before they ran',
        'activity attempts failed after they ran',
        'statements refused',
        'statements dropped',
      ])
        expect(faults(what), what).to.be.greaterThan(0);
      // Reconciliation ran through reconciliationWorkflow, at rest for every seed and at the 02:00 UTC every run meets
      // in its first half hour (sim/run.ts seedStartMs; one run per operator); every exception it recorded was
      // explained by its kind's faults or its lag, and each the lag explained cleared once the lag passed, else the run
      // would have a violation (docs/simulation.md#reconciliation). Whether a short run meets a lag exception at all
      // depends on Temporal's scheduling, so that is not asserted here.
      for (const result of results) {
        expect(result.reconciliations.final).to.be.at.least(OPERATOR_PROFILES.length);
        expect(result.reconciliations.daily).to.be.at.least(OPERATOR_PROFILES.length);
        expect(result.reconciliations.daily % OPERATOR_PROFILES.length).to.equal(0);
      }
    });
  });

  // The worker retries the initiation on the wall clock for its 2 minutes while the server's clock must move at real
  // speed (docs/simulation.md#the-first-long-run). Last: its run began with the file, beside the tests above.
  describe('beside the others', () => {
    it(`runs seed ${OUTAGE_SEED.seed}, whose payments are created in an outage, each final by its decision time`, async function () {
      this.timeout(480_000);
      const outcome = await outageRun;
      if ('error' in outcome) throw outcome.error;
      const { result } = outcome;
      expect(result.violation, JSON.stringify(result.violation, null, 2)).to.equal(undefined);
      expect(result.operator['initiations in outages'] ?? 0).to.be.greaterThan(0);
    });
  });
});
