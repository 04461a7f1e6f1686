/**
 * Several API processes behind one port with Node's cluster module (docs/operations.md#cluster):
 * this primary forks `API_PROCESSES` (default 2) processes of `src/server.ts`, which all listen on
 * HOST:PORT through the primary's one listening socket; the primary hands each new connection to the
 * next live process in turn (round robin, Node's default on Linux). A process that dies (a crash, a
 * `kill -9`) is forked again after `API_RESTART_DELAY_MS` (default 500 ms); if processes keep dying
 * within 10 s of their start, five times in a row, the primary gives up and exits 1.
 * SIGINT/SIGTERM: each process is asked to stop (SIGTERM: it finishes its requests and closes its
 * pools), then the primary exits 0.
 *
 * Run as `node --import tsx scripts/lib/api-cluster.ts` (the forks inherit the loader). When
 * started with an IPC channel, it sends `{ type: 'api-processes', pids }` each time the set of
 * processes changes, so that its supervisor (scripts/cluster.ts) knows their pids. Its own log
 * lines are JSON (docs/operations.md#logs, process `api-cluster`, level LOG_LEVEL).
 */
import cluster, { type Worker } from 'node:cluster';
import path from 'node:path';
import { createLogger } from '../../src/logger';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const log = createLogger(
  'api-cluster',
  LOG_LEVELS.includes(process.env.LOG_LEVEL ?? '') ? (process.env.LOG_LEVEL as string) : 'info',
);

/** A process that dies within this many milliseconds of its fork counts as a crash loop. */
const QUICK_DEATH_MS = 10_000;
/** Quick deaths in a row after which the primary gives up. */
const MAX_QUICK_DEATHS = 5;

function count(name: string, fallback: number, min: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min}`);
  return value;
}

function main(): void {
  const processes = count('API_PROCESSES', 2, 1);
  const restartDelayMs = count('API_RESTART_DELAY_MS', 500, 0);
  cluster.setupPrimary({ exec: path.resolve(__dirname, '../../src/server.ts'), execArgv: process.execArgv });

  const startedAt = new Map<number, number>();
  let quickDeaths = 0;
  let stopping = false;
  let exitCode = 0;

  const live = () =>
    Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined && !worker.isDead());
  const report = () => {
    const pids = live().flatMap((worker) => (worker.process.pid ? [worker.process.pid] : []));
    process.send?.({ type: 'api-processes', pids });
  };
  const fork = (): Worker => {
    const worker = cluster.fork();
    startedAt.set(worker.id, Date.now());
    worker.once('listening', () => {
      log.info({ api_pid: worker.process.pid }, 'api process listening');
      report();
    });
    return worker;
  };

  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (startedAt.get(worker.id) ?? 0);
    startedAt.delete(worker.id);
    report();
    if (stopping) {
      if (live().length === 0) {
        log.info('api cluster stopped');
        process.exit(exitCode);
      }
      return;
    }
    quickDeaths = lived < QUICK_DEATH_MS ? quickDeaths + 1 : 0;
    if (quickDeaths >= MAX_QUICK_DEATHS) {
      log.fatal(
        { api_pid: worker.process.pid, code, signal },
        `api processes died ${quickDeaths} times in a row within ${QUICK_DEATH_MS / 1000} s of their start; giving up`,
      );
      stop(1);
      return;
    }
    log.warn({ api_pid: worker.process.pid, code, signal, lived_ms: lived }, 'api process died; starting another');
    setTimeout(() => {
      if (!stopping) fork();
    }, restartDelayMs);
  });

  const stop = (code = 0) => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    log.info('api cluster stopping');
    const workers = live();
    if (workers.length === 0) process.exit(exitCode);
    for (const worker of workers) worker.process.kill('SIGTERM');
    // A process that does not stop within 10 s is killed.
    setTimeout(() => {
      for (const worker of live()) worker.process.kill('SIGKILL');
      process.exit(exitCode);
    }, 10_000).unref();
  };
  process.once('SIGINT', () => stop());
  process.once('SIGTERM', () => stop());
  // The supervisor went away (its IPC channel closed): stop too, so no process is left behind.
  process.once('disconnect', () => stop());

  log.info({ processes, port: process.env.PORT ?? '3000' }, 'api cluster starting');
  for (let index = 0; index < processes; index += 1) fork();
}

main();
