/**
 * `npm run sim`: the whole-system simulation (docs/simulation.md). Starts an embedded PostgreSQL (or uses
 * DATABASE_URL) and Temporal's time-skipping test server, then runs seeds through the real payment workflows and
 * activities against the simulated operator. `--seed N` runs (or replays) one seed; `--seeds N` runs seeds 1 … N;
 * `--days D` simulated days each (default 1); `--plant NAME` plants a bug (sim/plants.ts). Prints one line per seed
 * and the figures; on a violation, the seed, the step, the problems and the replay command, and exits 1.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { Database } from '../scripts/lib/postgres';
import { PLANTS, type Plant } from './plants';
import type { RunResult } from './run';
import { spawnSync } from 'node:child_process';

const root = path.resolve(__dirname, '..');
const say = (line: string) => process.stdout.write(`[sim] ${line}\n`);

const integer = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number');
  return n;
};
const positive = (value: string) => {
  const n = Number(value);
  if (!(n > 0)) throw new InvalidArgumentError('must be a positive number');
  return n;
};

/** Counts as `what n, what n` (those of 0 left out), or `none` when there are none. */
function list(counts: Record<string, number>): string {
  return (
    Object.entries(counts)
      .filter(([, n]) => n > 0)
      .map(([what, n]) => `${what} ${n}`)
      .join(', ') || 'none'
  );
}

/** One seed's line: what it did, in simulated and wall time. */
function summary(r: RunResult): string {
  const { sessions = 0, ...checkout } = r.checkout;
  // A payout the service refused (`insufficient_balance`) is asked for and never stored: it has no status.
  const stored = Object.values(r.payoutStatuses).reduce((sum, n) => sum + n, 0);
  return (
    `seed ${r.seed}: ${r.payments} payments (${list(r.statuses)}; ${list(r.providers)}), ` +
    `${r.refunds} refunds, ${r.cancels} cancels, ` +
    `${r.payouts} payouts (${list({ ...r.payoutStatuses, 'refused, not stored': r.payouts - stored })}; ` +
    `${r.firings} schedule firings), ` +
    `${sessions} checkout sessions (${list(checkout)}), ` +
    `${r.deliveries} webhook requests, ` +
    `reconciliation runs ${r.reconciliations.daily} daily and ${r.reconciliations.final} at rest, ` +
    `exceptions explained: ${list(r.reconciled)}, ` +
    `${r.outages.length} operator outages (${Math.round(
      r.outages.reduce((sum, o) => sum + o.toMs - o.fromMs, 0) / 60_000,
    )} min; ${r.operator['calls in outages'] ?? 0} calls in them, ${
      r.operator['initiations in outages'] ?? 0
    } of them initiations), ` +
    `process faults: ${list(r.faults)}, ` +
    `${(r.simulatedMs / 3_600_000).toFixed(1)} simulated h in ${(r.wallMs / 1000).toFixed(1)} s ` +
    `(${(r.checkMs / 1000).toFixed(1)} s of it in the checks after each step); this process's CPU ${Object.entries(
      r.cpuMs,
    )
      .map(([phase, ms]) => `${phase} ${(ms / 1000).toFixed(1)} s`)
      .join(', ')}`
  );
}

async function main(): Promise<void> {
  const options = new Command('sim')
    .option('--seed <n>', 'run (replay) this one seed', integer)
    .option('--seeds <n>', 'run seeds 1 … n', integer, 1)
    .option('--days <d>', 'simulated days of traffic per seed', positive, 1)
    .addOption(new Option('--plant <name>', 'plant a bug').choices(PLANTS))
    .option('--no-process-faults', 'run without the process faults (worker crashes, failed attempts, statements)')
    .option('--verbose', 'print every step')
    .parse()
    .opts<{
      seed?: number;
      seeds: number;
      days: number;
      plant?: Plant;
      processFaults: boolean;
      verbose?: boolean;
    }>();
  const seeds = options.seed !== undefined ? [options.seed] : Array.from({ length: options.seeds }, (_, i) => i + 1);
  // Loaded once the flags are good: the worker, the service and the database tooling take seconds to load, and a bad
  // flag is refused before them.
  const [{ DefaultLogger, Runtime }, { migratedRunDatabase }, { throwawaySecrets }, { runSeed }, { startWorld }] =
    await Promise.all([
      import('@temporalio/worker'),
      import('../scripts/lib/postgres.js'),
      import('../scripts/lib/secrets.js'),
      import('./run.js'),
      import('./world.js'),
    ]);

  const runDir = path.join(root, 'var', `sim-${process.pid}`);
  fs.mkdirSync(runDir, { recursive: true });
  const testServer = path.join(root, 'scripts', 'temporal-test-server.sh');
  if (spawnSync(testServer, ['--resolve-only'], { stdio: 'inherit' }).status !== 0)
    throw new Error('the Java time-skipping test server could not be resolved');
  let database: Database | undefined;
  try {
    database = await migratedRunDatabase(path.join(runDir, 'pgdata'), say);
    Object.assign(process.env, {
      NODE_ENV: 'test',
      DATABASE_URL: database.url,
      TEMPORAL_TEST_SERVER_PATH: testServer,
      ...throwawaySecrets(),
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
      DOCUMENT_STORE_DIR: path.join(runDir, 'documents'),
      MAIL_OUTBOX_DIR: path.join(runDir, 'mail'),
    });
    // The operator's simulated faults fail activities by the thousand: the worker's warnings about them are noise here.
    Runtime.install({ logger: new DefaultLogger(options.verbose ? 'WARN' : 'ERROR') });
    say('starting the time-skipping test server and a worker');
    const world = await startWorld();
    const cpuStart = process.cpuUsage();
    const wallStart = Date.now();
    let failed = false;
    let payments = 0;
    let simulatedMs = 0;
    try {
      for (const seed of seeds) {
        const result = await runSeed(world, {
          seed,
          days: options.days,
          plant: options.plant,
          processFaults: options.processFaults,
          log: options.verbose ? say : undefined,
        });
        payments += result.payments;
        simulatedMs += result.simulatedMs;
        say(summary(result));
        if (result.violation) {
          const v = result.violation;
          say(
            `VIOLATION seed ${v.seed}, step ${v.step} (${v.action}) at simulated ${v.at}, ` +
              `${(result.simulatedMs / 60_000).toFixed(1)} simulated minutes into the run:`,
          );
          for (const problem of v.problems) say(`  ${problem}`);
          say(`replay: ${v.replay}`);
          failed = true;
          break;
        }
      }
    } finally {
      await world.stop();
    }
    const cpu = process.cpuUsage(cpuStart);
    const cpuMinutes = (cpu.user + cpu.system) / 60e6;
    const wallMs = Date.now() - wallStart;
    say(
      `${payments} payments in ${(wallMs / 1000).toFixed(1)} s wall, ${(cpuMinutes * 60).toFixed(1)} s CPU of this ` +
        `process: ${(payments / cpuMinutes).toFixed(0)} payments per CPU-minute (this process), ` +
        `time compressed ${(simulatedMs / wallMs).toFixed(0)}×`,
    );
    process.exitCode = failed ? 1 : 0;
  } finally {
    await database?.stop();
    fs.rmSync(runDir, { recursive: true, force: true });
  }
}

// Exits explicitly: the embedded PostgreSQL's exit hook (async-exit-hook) ends the process with 0 on `beforeExit`,
// which would hide a violation's exit code 1.
main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    process.stderr.write(`[sim] ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  },
);
