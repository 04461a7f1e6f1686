/**
 * Figure (h), operator health on simulated time (docs/availability.md#statuses): how fast the real measurement sees an
 * operator fail and recover, whether it ever alarms on a healthy one, and what one measurement costs.
 *
 * A fake operator (momo, RW, collection) takes steady traffic, 30 attempts a minute (Poisson arrivals), each final
 * 10–40 s after its request (uniform). An attempt the operator fails is a provider failure; of the ones it answers,
 * 15 % are payers' declines (never counted against it), the rest successes. Its provider failures step from 2 % (10
 * minutes, which fill the bucket and the 24-hour p95) to 50 % (10 minutes), to 90 % (10 minutes) and back to 2 % (15
 * minutes). Beside it a second operator (momo, UG, collection) runs 30 minutes at 2 % with the same traffic. Every
 * attempt is recorded with `recordProviderOutcome` at its simulated decision time into the real PostgreSQL, and
 * `measureProviderHealth` runs every 30 simulated seconds with the simulated `now`, as the Schedule runs it. Reported,
 * each the worst of the seeds: the time from the 50 % step to `degraded` and from the 90 % step to `down` (targets
 * ≤ 3 minutes each; an operator already `down` at the 90 % step, its 50 % bucket above 60 % by chance, counts 0 and
 * is printed), the time from recovery to `operational` (reported: at least the 5 minutes a recovery waits), and the
 * false alarms (changes of either operator while it fails 2 %; target 0).
 *
 * It runs on a database of its own beside the stack's (the stack's worker measures the stack's database every 30 real
 * seconds and would overwrite the simulated statuses), with one connection, so that PostgreSQL's table statistics
 * count the rows one measurement reads. Randomness: pure-rand's xoroshiro128+ from each seed.
 *
 * The cost of a measurement: wall milliseconds, SQL statements and rows read per `measureProviderHealth` call with
 * 1,000 outcomes in the last 10 minutes spread over every served key, and again with 24 hours of history at that rate
 * (144,000 rows, which the 24-hour p95 reads).
 */
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { measureProviderHealth } from '../../src/activities/provider-health-activities';
import { createDb, type Db } from '../../src/db/knex';
import { recordProviderOutcome } from '../../src/db/provider-health';
import {
  servedHealthKeys,
  type DecidedAttempt,
  type HealthKey,
  type StatusChange,
} from '../../src/domain/provider-health';
import type { BenchContext } from '../lib/context';
import { migratedSiblingDatabase } from '../../scripts/lib/postgres';
import { median } from '../lib/stats';

const MINUTE = 60_000;

/** The traffic and the steps of the simulation. */
export const OPERATOR_HEALTH = {
  attemptsPerMinute: 30,
  payerDeclineShare: 0.15,
  /** Seconds from request to final, drawn uniformly. */
  durationSeconds: { min: 10, max: 40 },
  measureEveryMs: 30_000,
  /** The stepped operator's provider-failure share from each minute on. */
  steps: [
    { fromMinute: 0, share: 0.02 },
    { fromMinute: 10, share: 0.5 },
    { fromMinute: 20, share: 0.9 },
    { fromMinute: 30, share: 0.02 },
  ],
  runMinutes: 45,
  /** The healthy operator's run at 2 %. */
  healthy: { share: 0.02, minutes: 30 },
  /**
   * Seeds 1 and 4: of the five run until 2026-11-29 (1 to 5, the same times in every run), the two that hold every
   * worst value (90 s to `degraded` in 1 and 4, 90 s to `down` in 1, 390 s to `operational` in 4) and show `down`
   * before the 90 % step (4); the other three took wall time beside (f)'s seed and changed no figure (docs/bench.md).
   */
  seeds: [1, 4],
  /** Outcomes in the last 10 minutes for the cost of a measurement, and calls measured. */
  cost: { recentOutcomes: 1_000, calls: 20 },
} as const;

const STEPPED: HealthKey = { provider: 'momo', country: 'RW', operation: 'collection' };
const HEALTHY: HealthKey = { provider: 'momo', country: 'UG', operation: 'collection' };
const sameKey = (a: HealthKey, b: HealthKey) =>
  a.provider === b.provider && a.country === b.country && a.operation === b.operation;

/** One metric of a figure measured without a baseline: its value in each run (seed), the worst, and its target. */
export interface ReportedMetric {
  key: string;
  label: string;
  unit: string;
  /** The target of the worst run's value; none for a metric only reported. */
  target?: { atMost: number };
  /** What is expected where there is no target, printed in its place. */
  note?: string;
  runs: number[];
  worst: number;
  met?: boolean;
}

/** A figure measured without a baseline (figure h): its metrics, and what else it found, kept in the results. */
export interface ReportedFigure {
  id: string;
  title: string;
  description: string;
  reported: ReportedMetric[];
  details: Record<string, unknown>;
}

/** One simulated attempt: the key, and the attempt as the measurement stores it. */
interface SimulatedAttempt {
  key: HealthKey;
  attempt: DecidedAttempt;
}

/** The share of provider failures of the stepped operator at `minute` of the run. */
function steppedShare(minute: number): number {
  let share: number = OPERATOR_HEALTH.steps[0].share;
  for (const step of OPERATOR_HEALTH.steps) if (minute >= step.fromMinute) share = step.share;
  return share;
}

/**
 * The attempts of `key` requested from `from` to `to` (ms from the start of the run, `start` epoch ms): Poisson
 * arrivals at the traffic's rate, each failed by the provider with `shareAt(minute of its request)`, else declined by
 * its payer with the decline share, final after a uniform duration.
 */
function simulateTraffic(
  rng: ReturnType<typeof xoroshiro128plus>,
  key: HealthKey,
  start: number,
  to: number,
  shareAt: (minute: number) => number,
): SimulatedAttempt[] {
  const meanGapMs = MINUTE / OPERATOR_HEALTH.attemptsPerMinute;
  const attempts: SimulatedAttempt[] = [];
  for (let at = -Math.log(1 - uniformFloat64(rng)) * meanGapMs; at < to;) {
    const { min, max } = OPERATOR_HEALTH.durationSeconds;
    const seconds = uniformInt(rng, min * 1000, max * 1000) / 1000;
    const providerFails = uniformFloat64(rng) < shareAt(at / MINUTE);
    const payerDeclines = !providerFails && uniformFloat64(rng) < OPERATOR_HEALTH.payerDeclineShare;
    attempts.push({
      key,
      attempt: {
        decidedAt: Math.round(start + at + seconds * 1000),
        seconds,
        outcome: providerFails || payerDeclines ? 'failure' : 'success',
        side: providerFails ? 'provider' : payerDeclines ? 'payer' : null,
        neverReached: false,
      },
    });
    at += -Math.log(1 - uniformFloat64(rng)) * meanGapMs;
  }
  return attempts;
}

/** What one seed's run gave: its change times in ms from the start, per key. */
interface RunResult {
  seed: number;
  changes: (StatusChange & { atMs: number })[];
  attempts: number;
  measurements: number;
  wallMs: number;
}

async function clearHealth(db: Db): Promise<void> {
  await db.raw('TRUNCATE provider_outcomes, provider_health, provider_status_changes');
}

/** One seed: the whole simulated run, recorded and measured on `db`, starting at epoch ms `start`. */
async function runSeed(db: Db, seed: number, start: number): Promise<RunResult> {
  const started = performance.now();
  await clearHealth(db);
  const rng = xoroshiro128plus(seed);
  const runMs = OPERATOR_HEALTH.runMinutes * MINUTE;
  const attempts = [
    ...simulateTraffic(rng, STEPPED, start, runMs, steppedShare),
    ...simulateTraffic(
      rng,
      HEALTHY,
      start,
      OPERATOR_HEALTH.healthy.minutes * MINUTE,
      () => OPERATOR_HEALTH.healthy.share,
    ),
  ].sort((a, b) => a.attempt.decidedAt - b.attempt.decidedAt);
  const changes: RunResult['changes'] = [];
  let next = 0;
  let measurements = 0;
  for (let t = OPERATOR_HEALTH.measureEveryMs; t <= runMs; t += OPERATOR_HEALTH.measureEveryMs) {
    const now = start + t;
    // Every attempt decided by now is recorded, as the payment's workflow records it when it decides.
    for (; next < attempts.length && (attempts[next] as SimulatedAttempt).attempt.decidedAt <= now; next += 1) {
      const { key, attempt } = attempts[next] as SimulatedAttempt;
      await recordProviderOutcome(db, {
        ...key,
        environment: 'sandbox',
        merchantId: 'mer_bench_health',
        objectId: `pay_bench_h_${seed}_${next}`,
        attempt,
      });
    }
    for (const change of await measureProviderHealth(db, 'sandbox', now)) changes.push({ ...change, atMs: t });
    measurements += 1;
  }
  return { seed, changes, attempts: next, measurements, wallMs: performance.now() - started };
}

/** What a seed's changes say: the times to each status after its step (seconds), and the false alarms. */
function judge(run: RunResult) {
  const [, toHalf, toMost, back] = OPERATOR_HEALTH.steps.map((step) => step.fromMinute * MINUTE);
  const stepped = run.changes.filter((c) => sameKey(c, STEPPED));
  const level = { operational: 0, degraded: 1, down: 2 } as const;
  const worsened = stepped.find((c) => c.atMs >= toHalf && level[c.to] >= 1);
  const down = stepped.find((c) => c.atMs >= toHalf && c.to === 'down');
  const recovered = stepped.find((c) => c.atMs >= back && c.to === 'operational');
  const seconds = (at: number | undefined, from: number) => (at === undefined ? Infinity : (at - from) / 1000);
  // A change of the healthy operator, of any other key, or of the stepped one before its first step is a false alarm.
  const falseAlarms = run.changes.filter((c) => !sameKey(c, STEPPED) || c.atMs < toHalf);
  return {
    toDegraded: seconds(worsened?.atMs, toHalf),
    // Down before the 90 % step (the 50 % bucket above 60 % by chance) counts as at once.
    toDown: down === undefined ? Infinity : Math.max(0, (down.atMs - toMost) / 1000),
    downBeforeMostSeconds: down && down.atMs <= toMost ? (down.atMs - toHalf) / 1000 : null,
    toOperational: seconds(recovered?.atMs, back),
    falseAlarms: falseAlarms.length,
    statusPath: stepped.map((c) => `${c.to}@${c.atMs / 1000}s`).join(' '),
  };
}

/** The rows one set of calls read, from PostgreSQL's table statistics (this backend's, flushed first). */
async function rowsRead(db: Db): Promise<Record<string, number>> {
  await db.raw('SELECT pg_stat_force_next_flush()');
  await db.raw('SELECT pg_stat_clear_snapshot()');
  const result = await db.raw<{ rows: { relname: string; n: string }[] }>(
    `SELECT relname, (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::bigint AS n FROM pg_stat_user_tables`,
  );
  return Object.fromEntries(result.rows.map((row) => [row.relname, Number(row.n)]));
}

/** Wall ms (median and max), statements and rows read per `measureProviderHealth` call at `now` on `db`. */
async function measurementCost(db: Db, now: number, calls: number) {
  let statements = 0;
  const count = () => {
    statements += 1;
  };
  await measureProviderHealth(db, 'sandbox', now);
  const before = await rowsRead(db);
  db.on('query', count);
  const times: number[] = [];
  for (let i = 0; i < calls; i += 1) {
    const started = performance.now();
    await measureProviderHealth(db, 'sandbox', now);
    times.push(performance.now() - started);
  }
  db.off('query', count);
  const after = await rowsRead(db);
  const perTable = Object.fromEntries(
    Object.entries(after)
      .map(([table, n]): [string, number] => [table, Math.round((n - (before[table] ?? 0)) / calls)])
      .filter(([, n]) => n > 0),
  );
  return {
    medianMs: median(times),
    maxMs: Math.max(...times),
    statements: statements / calls,
    rowsRead: Object.values(perTable).reduce((sum, n) => sum + n, 0),
    rowsReadByTable: perTable,
  };
}

/**
 * The cost of a measurement at epoch ms `now`: 1,000 outcomes in the 10 minutes before it over every served key, then
 * the same with 24 hours of history at that rate before them (inserted by SQL; they are older than the bucket).
 */
async function costOfMeasurement(db: Db, now: number) {
  await clearHealth(db);
  const keys = servedHealthKeys('sandbox');
  const { recentOutcomes, calls } = OPERATOR_HEALTH.cost;
  const rows = (from: number, count: number, spanMs: number, prefix: string) =>
    `INSERT INTO provider_outcomes (environment, provider, country, operation, merchant_id, object_id, decided_at,
       duration_ms, outcome, side, never_reached)
     SELECT 'sandbox', k.provider, k.country, k.operation, 'mer_bench_health', '${prefix}' || i,
            to_timestamp((${from} + (i * ${spanMs}::float8 / ${count})) / 1000.0), 10000 + (i * 7919) % 30000,
            CASE WHEN i % 10 = 0 THEN 'failure' ELSE 'success' END, CASE WHEN i % 10 = 0 THEN 'payer' END, false
       FROM generate_series(0, ${count - 1}) AS i
       JOIN (SELECT * FROM json_to_recordset(?::json) AS x(n int, provider text, country text, operation text)) k
         ON k.n = i % ${keys.length}`;
  const keyRows = JSON.stringify(keys.map((key, n) => ({ n, ...key })));
  await db.raw(rows(now - 10 * MINUTE + 1, recentOutcomes, 10 * MINUTE - 1, 'pay_bench_recent_'), [keyRows]);
  const recent = await measurementCost(db, now, calls);
  const historyRows = recentOutcomes * 6 * 24;
  await db.raw(rows(now - 24 * 60 * MINUTE, historyRows, 24 * 60 * MINUTE - 10 * MINUTE, 'pay_bench_day_'), [keyRows]);
  await db.raw('ANALYZE provider_outcomes');
  const withDay = await measurementCost(db, now, calls);
  return { keys: keys.length, recentOutcomes, historyRows, calls, recent, withDay };
}

/**
 * Runs figure (h) on a database of its own next to the stack's (`context.stack.databaseUrl`).
 * @param beforeCost awaited after the simulated runs and before the cost of a measurement, whose wall time is measured
 *   (figure f's seed runs beside the simulated runs, whose results do not depend on the wall clock)
 * @returns the figure, each metric the worst of the seeds, with every seed's values and the cost of a measurement
 */
export async function operatorHealthFigure(
  context: BenchContext,
  beforeCost?: () => Promise<unknown>,
): Promise<ReportedFigure> {
  const url = await migratedSiblingDatabase(context.stack.databaseUrl, 'paycollect_health_bench');
  // One connection: every statement on one backend, whose table statistics then count what the calls read.
  const db = createDb(url, 1);
  try {
    const runs: (RunResult & ReturnType<typeof judge>)[] = [];
    for (const [index, seed] of OPERATOR_HEALTH.seeds.entries()) {
      const run = await runSeed(db, seed, Date.parse('2030-01-01T00:00:00Z') + index * 86_400_000);
      const judged = { ...run, ...judge(run) };
      runs.push(judged);
      context.say(
        `(h) seed ${seed}: degraded ${judged.toDegraded} s after the 50 % step, down ${judged.toDown} s after the 90 % step` +
          `${judged.downBeforeMostSeconds === null ? '' : ` (down already ${judged.downBeforeMostSeconds} s into the 50 % step)`}, ` +
          `operational ${judged.toOperational} s after recovery, ${judged.falseAlarms} false alarm(s); ` +
          `path ${judged.statusPath}; ${run.attempts} attempts, ${run.measurements} measurements in ${Math.round(run.wallMs)} ms`,
      );
    }
    await beforeCost?.();
    const cost = await costOfMeasurement(db, Date.parse('2030-06-01T00:00:00Z'));
    context.say(
      `(h) one measurement, ${cost.keys} keys, ${cost.recentOutcomes} outcomes in the bucket's 10 minutes: ${JSON.stringify(cost.recent)}`,
    );
    context.say(
      `(h) the same with 24 hours of history (${cost.historyRows} older rows): ${JSON.stringify(cost.withDay)}`,
    );
    const metric = (
      key: 'toDegraded' | 'toDown' | 'toOperational' | 'falseAlarms',
      label: string,
      unit: string,
      target: { atMost: number } | undefined,
      note?: string,
    ): ReportedMetric => {
      const values = runs.map((run) => run[key]);
      const worst = Math.max(...values);
      return {
        key,
        label,
        unit,
        ...(target ? { target, met: worst <= target.atMost } : {}),
        ...(note ? { note } : {}),
        runs: values,
        worst,
      };
    };
    const single = (key: string, label: string, unit: string, value: number): ReportedMetric => ({
      key,
      label,
      unit,
      note: 'reported',
      runs: [value],
      worst: value,
    });
    return {
      id: 'h',
      title: 'Operator health (simulated time)',
      description: `${OPERATOR_HEALTH.attemptsPerMinute} attempts/min, ${OPERATOR_HEALTH.payerDeclineShare * 100} % payer declines, provider failures 2 → 50 → 90 → 2 %, seeds ${OPERATOR_HEALTH.seeds.join(', ')}; the real measurement on PostgreSQL every 30 simulated s`,
      reported: [
        metric('toDegraded', 'time to degraded after 2 → 50 %', 's', { atMost: 180 }),
        metric('toDown', 'time to down after 50 → 90 %', 's', { atMost: 180 }),
        metric('toOperational', 'time to operational after 90 → 2 %', 's', undefined, 'reported (≥ 300 by design)'),
        metric('falseAlarms', 'false alarms at 2 % (30 min + 10 min)', '', { atMost: 0 }),
        single(
          'costMs',
          `measurement, ${cost.recentOutcomes} recent outcomes: wall ms (median)`,
          'ms',
          cost.recent.medianMs,
        ),
        single(
          'costRows',
          `measurement, ${cost.recentOutcomes} recent outcomes: rows read`,
          'rows',
          cost.recent.rowsRead,
        ),
        single(
          'costDayMs',
          `the same + 24 h history (${cost.historyRows}): wall ms (median)`,
          'ms',
          cost.withDay.medianMs,
        ),
        single('costDayRows', `the same + 24 h history: rows read`, 'rows', cost.withDay.rowsRead),
      ],
      details: {
        settings: OPERATOR_HEALTH,
        runs: runs.map(({ changes, ...rest }) => ({ ...rest, changes: changes.length })),
        cost,
      },
    };
  } finally {
    await db.destroy();
  }
}
