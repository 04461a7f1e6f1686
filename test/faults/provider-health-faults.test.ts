/**
 * Operator health under faults (docs/availability.md#statuses), on the real stack:
 *
 * - a provider failing around the 20 % threshold (the bucket's share alternating between 18 % and 22 %), measured
 *   every 30 seconds by the real measurement on PostgreSQL, changes its status at most once per 5 minutes: it degrades
 *   once and stays degraded while it flaps; after a clean spell it recovers, and when it flaps again within 5 minutes
 *   of the recovery it degrades only once those 5 minutes are over;
 * - the measurement's Schedule and the worker that runs it, killed with SIGKILL while a run waits and started again,
 *   carry on where they were: the status, its `since` and the recovery clock (`better_since`) unchanged, no reset to
 *   `operational`, no second `provider.status_changed`.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { measureProviderHealth } from '../../src/activities/provider-health-activities';
import { createDb, type Db } from '../../src/db/knex';
import { recordProviderOutcome } from '../../src/db/provider-health';
import type { DecidedAttempt, HealthKey } from '../../src/domain/provider-health';
import { ENVIRONMENTS } from '../../src/domain/environment';
import { providerHealthScheduleId } from '../../src/services/provider-health-service';
import { newId } from '../../src/lib/ids';
import { insertMerchant } from '../helpers/fixtures';
import { WorkerProcess } from '../helpers/processes';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { getStack, testConfig, type Stack } from '../helpers/stack';
import { insertWebhook } from '../helpers/webhooks';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Records one attempt of `key` in the sandbox decided at `decidedAt` (epoch ms), a provider failure or a success. */
async function recordAttempt(db: Db, key: HealthKey, decidedAt: number, providerFails: boolean): Promise<void> {
  const attempt: DecidedAttempt = {
    decidedAt,
    seconds: 12,
    outcome: providerFails ? 'failure' : 'success',
    side: providerFails ? 'provider' : null,
    neverReached: false,
  };
  await recordProviderOutcome(db, {
    ...key,
    environment: 'sandbox',
    merchantId: 'mer_health_faults',
    objectId: newId('pay_'),
    attempt,
  });
}

interface HealthRow {
  status: string;
  since: Date;
  better_since: Date | null;
  provider_failure_share: number | null;
  measured_at: Date;
}

async function healthOf(db: Db, key: HealthKey): Promise<HealthRow | undefined> {
  return (await db('provider_health')
    .where({ environment: 'sandbox', ...key })
    .first('status', 'since', 'better_since', 'provider_failure_share', 'measured_at')) as HealthRow | undefined;
}

async function forget(db: Db, key: HealthKey): Promise<void> {
  await db('provider_health').where(key).del();
  await db('provider_status_changes').where(key).del();
}

describe('operator health: a status flapping at the threshold (docs/availability.md#statuses)', function () {
  this.timeout(120_000);
  const key: HealthKey = { provider: 'momo', country: 'RW', operation: 'collection' };
  /** A moment of this file's own, far from the other health tests' moments. */
  const T0 = Date.parse('2045-03-01T00:00:00Z');
  let db: Db;

  before(async () => {
    db = (await getStack()).db;
    await forget(db, key);
  });

  after(async () => {
    await forget(db, key);
  });

  it('changes at most once per 5 minutes, through the real measurement on PostgreSQL', async () => {
    // 30 attempts a minute; provider failures alternate by the minute between 30 % and 10 %, so that the bucket (the
    // last 50, 100 s) moves between 18 % and 22 %; minutes 10 to 17 are clean; from minute 18 it flaps again.
    const failureShare = (minute: number) => (minute >= 10 && minute < 18 ? 0 : minute % 2 === 0 ? 3 : 1);
    const attempts: { at: number; fails: boolean }[] = [];
    for (let minute = 0; minute < 30; minute += 1)
      for (let i = 0; i < 30; i += 1)
        attempts.push({ at: T0 + minute * MINUTE + (i + 1) * 2 * SECOND, fails: i % 10 < failureShare(minute) });

    /** Each measurement: seconds from T0, the status stored, the bucket's share of provider failures. */
    const measured: { t: number; status: string; share: number | null }[] = [];
    let next = 0;
    for (let t = 30 * SECOND; t <= 30 * MINUTE; t += 30 * SECOND) {
      for (; next < attempts.length && (attempts[next]?.at ?? Infinity) <= T0 + t; next += 1)
        await recordAttempt(db, key, attempts[next]?.at as number, attempts[next]?.fails as boolean);
      await measureProviderHealth(db, 'sandbox', T0 + t);
      const row = await healthOf(db, key);
      measured.push({ t: t / SECOND, status: row?.status as string, share: row?.provider_failure_share ?? null });
    }

    const changes = (await db('provider_status_changes')
      .where({ environment: 'sandbox', ...key })
      .orderBy('at')
      .select('to_status', 'at')) as { to_status: string; at: Date }[];
    const path = changes.map((change) => [change.to_status, (change.at.getTime() - T0) / SECOND]);
    expect(path).to.deep.equal([
      ['degraded', 60],
      ['operational', 900],
      ['degraded', 1260],
    ]);
    for (let i = 1; i < changes.length; i += 1)
      expect(changes[i]!.at.getTime() - changes[i - 1]!.at.getTime()).to.be.at.least(5 * MINUTE);

    // The figures did cross the threshold both ways meanwhile: the rule held the status, not a quiet bucket.
    const flapping = measured.filter((m) => m.t > 60 && m.t < 600);
    expect(flapping.filter((m) => (m.share ?? 0) > 0.2).length).to.be.above(0);
    expect(flapping.filter((m) => (m.share ?? 1) <= 0.2).length).to.be.above(0);
    expect(flapping.every((m) => m.status === 'degraded')).to.equal(true);
    const soonAfterRecovery = measured.filter((m) => m.t > 900 && m.t < 1200);
    expect(soonAfterRecovery.filter((m) => (m.share ?? 0) > 0.2).length).to.be.above(0);
    expect(soonAfterRecovery.every((m) => m.status === 'operational')).to.equal(true);
  });
});

describe('operator health: the measurement survives a worker restart (docs/availability.md#statuses)', function () {
  this.timeout(240_000);
  const key: HealthKey = { provider: 'mobile_money_c', country: 'LR', operation: 'refund' };
  const taskQueue = `health-kill-${randomBytes(4).toString('hex')}`;
  let stack: Stack;
  let db: Db;
  let worker: WorkerProcess;
  let receiver: Receiver;
  let merchantId: string;
  let webhookId: string;

  const schedules = () =>
    ENVIRONMENTS.map((environment) => stack.client.schedule.getHandle(providerHealthScheduleId(environment)));
  const deleteSchedules = async () => {
    for (const handle of schedules()) await handle.delete().catch(() => undefined);
  };

  /** Triggers a run of the sandbox's Schedule now and waits until a run measured after the trigger. */
  async function measureNow(waitForRun = true): Promise<number> {
    const triggeredAt = Date.now();
    await stack.client.schedule.getHandle(providerHealthScheduleId('sandbox')).trigger();
    if (waitForRun) await measuredSince(triggeredAt);
    return triggeredAt;
  }

  async function measuredSince(from: number): Promise<HealthRow> {
    for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(250)) {
      const row = await healthOf(db, key);
      if (row && row.measured_at.getTime() >= from) return row;
    }
    throw new Error(`no measurement since ${new Date(from).toISOString()}; worker stderr: ${worker.stderr}`);
  }

  before(async () => {
    stack = await getStack();
    db = createDb(testConfig().DATABASE_URL, 2);
    await forget(db, key);
    // A Schedule left by another test's worker would send its runs to that worker's task queue.
    await deleteSchedules();
    receiver = await startReceiver();
    merchantId = await insertMerchant(db);
    webhookId = (
      await insertWebhook(db, merchantId, `${receiver.origin}/hooks`, { events: ['provider.status_changed'] })
    ).id;
    worker = new WorkerProcess(taskQueue);
    worker.start();
    for (const deadline = Date.now() + 120_000; ; await sleep(500)) {
      const described = await schedules()[0]!
        .describe()
        .catch(() => undefined);
      if (described) break;
      if (Date.now() > deadline) throw new Error(`the worker created no Schedule: ${worker.stderr}`);
    }
  });

  after(async () => {
    await worker?.kill();
    await deleteSchedules();
    await db('webhooks').where({ id: webhookId }).update({ deleted_at: new Date() });
    await forget(db, key);
    await receiver?.close();
    await db?.destroy();
  });

  it('keeps the status, its since and the recovery clock, and tells the change once', async () => {
    // A first run stores the key, operational without traffic.
    await measureNow();
    expect((await healthOf(db, key))?.status).to.equal('operational');
    // 50 attempts of the last 50 seconds, 30 % provider failures: degraded.
    const failedUpTo = Date.now();
    for (let i = 0; i < 50; i += 1) await recordAttempt(db, key, failedUpTo - i * SECOND, i % 10 < 3);
    await measureNow();
    const degraded = await healthOf(db, key);
    expect(degraded?.status).to.equal('degraded');

    // Then 50 good attempts, the bucket's most recent: the recovery clock starts, the status holds for 5 minutes.
    const goodUpTo = Date.now();
    for (let i = 0; i < 50; i += 1) await recordAttempt(db, key, goodUpTo - i * 10, false);
    const recovering = await measuredSince(await measureNow(false));
    expect(recovering.status).to.equal('degraded');
    expect(recovering.since.getTime()).to.equal(degraded?.since.getTime());
    expect(recovering.better_since, 'the recovery clock started').to.not.equal(null);

    // The worker dies; a run is started while it is down and waits for it; it comes back.
    await worker.kill();
    const whileDown = await measureNow(false);
    await sleep(2_000);
    expect((await healthOf(db, key))?.measured_at.getTime()).to.be.below(whileDown);
    worker.start();
    const after = await measuredSince(whileDown);
    expect(after.status, 'no reset to operational').to.equal('degraded');
    expect(after.since.getTime()).to.equal(degraded?.since.getTime());
    expect(after.better_since?.getTime(), 'the recovery clock carries on').to.equal(recovering.better_since?.getTime());

    const changes = await db('provider_status_changes')
      .where({ environment: 'sandbox', ...key })
      .select('to_status');
    expect(changes.map((change: { to_status: string }) => change.to_status)).to.deep.equal(['degraded']);
    const events = (await db('events')
      .where({ merchant_id: merchantId, type: 'provider.status_changed' })
      .select('data')) as { data: HealthKey }[];
    expect(
      events.filter(
        (event) =>
          event.data.provider === key.provider &&
          event.data.country === key.country &&
          event.data.operation === key.operation,
      ),
    ).to.have.length(1);
  });
});
