/**
 * The simulator's process faults where they reach the worker (sim/fault-injection.ts,
 * docs/simulation.md#process-faults): a statement refused before it is sent, one dropped after PostgreSQL answered it
 * (committed outside a transaction, rolled back inside one), each closing its connection so that no transaction stays
 * open on the pool, none outside an activity; an activity attempt failed
 * before it ran and after it ran, and the attempt a stopping worker was running losing its answer.
 */
import { expect } from 'chai';
import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { createDb, type Db } from '../../src/db/knex';
import { isOutage } from '../../src/lib/outage';
import { faultStatements, SIMULATED_FAULT, withProcessFaults } from '../../sim/fault-injection';
import type { ActivityFault, ProcessFaults, StatementFault } from '../../sim/faults';
import { testConfig } from '../helpers/stack';

/** Process faults that give each statement and attempt the next of `statements` and `activities` (then none). */
function scripted(statements: StatementFault[], activities: ActivityFault[] = []): ProcessFaults {
  return {
    activity: () => activities.shift(),
    statement: () => statements.shift(),
    crash: () => undefined,
    sleeping: () => undefined,
    lost: () => undefined,
    count: () => undefined,
    counts: () => ({}),
  };
}

describe('simulator: process faults at the worker (sim/fault-injection.ts)', function () {
  this.timeout(30_000);
  let db: Db;
  let faults: ProcessFaults | undefined;
  // A table of this process's own: a fault closes its connection, so a temporary table would go with it.
  const table = `sim_fault_probe_${process.pid}`;
  const inActivity = <T>(fn: () => Promise<T>) => new MockActivityEnvironment().run(fn);
  const count = async () =>
    Number(((await db.raw(`select count(*)::int as n from ${table}`)) as { rows: { n: number }[] }).rows[0].n);

  beforeEach(async () => {
    // One connection: a transaction a fault left open on it would hold every later statement of the pool.
    db = createDb(testConfig().DATABASE_URL, 1);
    faultStatements(db, () => faults);
    faults = undefined;
    await db.raw(`create table ${table} (id int)`);
  });

  afterEach(async () => {
    faults = undefined;
    await db.raw(`drop table if exists ${table}`);
    await db.destroy();
  });

  /**
   * Runs `sql` inside an activity with `statementFaults` (in a transaction when `transaction`), and then, without
   * faults, how many rows the probe holds: the error it failed with (none: undefined) and that count.
   */
  const probe = async (values: number, statementFaults: StatementFault[], transaction = false) => {
    faults = scripted(statementFaults);
    const sql = `insert into ${table} values (${values})`;
    const run = () => (transaction ? db.transaction((trx) => trx.raw(sql)) : db.raw(sql));
    const error = await inActivity(run).then(
      () => undefined,
      (e: unknown) => e,
    );
    faults = undefined;
    return { error, rows: await count() };
  };

  it('refuses a statement before it is sent, with an error the service takes for a lost database', async () => {
    const { error, rows } = await probe(1, ['refused']);
    expect(isOutage(error), String(error)).to.equal(true);
    expect(rows).to.equal(0);
  });

  it('leaves no transaction open when it refuses a COMMIT or drops a BEGIN: the connection is closed', async () => {
    /** Whether the pool's next statement runs in a transaction of its own (not inside one a fault left open). */
    const fresh = async () =>
      (
        (await db.raw(
          'select xact_start = query_start as fresh from pg_stat_activity where pid = pg_backend_pid()',
        )) as {
          rows: { fresh: boolean }[];
        }
      ).rows[0].fresh;
    // BEGIN and the insert pass, the COMMIT is never sent: nothing is committed, then or later.
    const commit = await probe(1, [undefined, undefined, 'refused'], true);
    expect(isOutage(commit.error), String(commit.error)).to.equal(true);
    expect(commit.rows).to.equal(0);
    expect(await fresh()).to.equal(true);
    await db.transaction((trx) => trx.raw(`insert into ${table} values (2)`));
    expect(await count()).to.equal(1);
    // The BEGIN ran and its answer was lost: the transaction it opened goes with its connection.
    const begin = await probe(3, ['dropped'], true);
    expect(isOutage(begin.error), String(begin.error)).to.equal(true);
    expect(begin.rows).to.equal(1);
    expect(await fresh()).to.equal(true);
  });

  it('drops the answer of a statement it ran: committed outside a transaction, rolled back inside one', async () => {
    const alone = await probe(1, ['dropped']);
    expect(isOutage(alone.error), String(alone.error)).to.equal(true);
    expect(String(alone.error)).to.match(/Connection terminated unexpectedly/);
    expect(alone.rows).to.equal(1);
    // BEGIN and the insert pass, the insert's answer is lost: the transaction rolls back.
    const inside = await probe(2, [undefined, 'dropped'], true);
    expect(isOutage(inside.error), String(inside.error)).to.equal(true);
    expect(inside.rows).to.equal(1);
    // The COMMIT's answer lost: the work is committed all the same.
    const commit = await probe(3, [undefined, undefined, 'dropped'], true);
    expect(isOutage(commit.error), String(commit.error)).to.equal(true);
    expect(commit.rows).to.equal(2);
  });

  it('leaves the statements run outside an activity alone (the driver shares the pool)', async () => {
    faults = scripted(['refused', 'dropped']);
    await db.raw(`insert into ${table} values (1)`);
    expect(await count()).to.equal(1);
  });

  it('fails an attempt before the activity runs, and after it ran with its answer lost', async () => {
    let runs = 0;
    const lost: string[] = [];
    const f: ProcessFaults = {
      ...scripted([], ['before', 'after', undefined]),
      lost: (info) => void lost.push(info.activityType),
    };
    const activities = withProcessFaults(
      { work: async () => ++runs },
      () => f,
      { crashed: false },
      () => undefined,
    );
    const attempt = () =>
      inActivity(() => activities.work()).then(
        (value) => value,
        (e: unknown) => e,
      );
    const before = await attempt();
    expect(before).to.be.instanceOf(ApplicationFailure);
    expect((before as ApplicationFailure).type).to.equal(SIMULATED_FAULT);
    expect((before as ApplicationFailure).nonRetryable).to.equal(false);
    expect(runs).to.equal(0);
    const after = await attempt();
    expect((after as ApplicationFailure).type).to.equal(SIMULATED_FAULT);
    expect(runs).to.equal(1);
    expect(lost).to.have.length(1);
    expect(await attempt()).to.equal(2);
  });

  it('loses the answer of an attempt its worker stopped under, once the SDK cancels it', async () => {
    const worker = { crashed: false };
    const lost: string[] = [];
    const f: ProcessFaults = { ...scripted([]), lost: (info) => void lost.push(info.activityType) };
    let release = () => undefined as void;
    const activities = withProcessFaults(
      {
        work: () =>
          new Promise<string>((resolve) => {
            release = () => resolve('done');
          }),
      },
      () => f,
      worker,
      () => undefined,
    );
    const env = new MockActivityEnvironment();
    const running = env
      .run(() => activities.work())
      .then(
        (value) => value,
        (e: unknown) => e,
      );
    await new Promise((resolve) => setTimeout(resolve, 10));
    worker.crashed = true;
    release();
    await new Promise((resolve) => setTimeout(resolve, 10));
    env.cancel('WORKER_SHUTDOWN');
    const outcome = await running;
    expect(outcome).to.not.equal('done');
    expect(lost).to.have.length(1);
  });
});
