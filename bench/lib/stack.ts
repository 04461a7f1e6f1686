/**
 * The stack under benchmark, started as the tests and `npm start` start it: an embedded PostgreSQL
 * (or DATABASE_URL; bench/lib/postgres.ts, with `pg_stat_statements`), the Temporal dev server with
 * its SQLite file and pragmas, the migrations, then
 * the service's worker (`src/worker.ts`) and API (`src/server.ts`) as separate processes, plus the
 * baseline worker (`bench/baseline/worker.ts`) and the fair baseline's API (`bench/baseline/fair-api.ts`,
 * figure a). Everything listens on 127.0.0.1 on free ports, lives
 * in one run folder under `var/`, and `stop()` ends every process this module started.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import { bundleWorkflowCode } from '@temporalio/worker';
import { writeWorkflowBundle } from '../../scripts/build-workflows';
import { createLogger } from '../../src/logger';
import { freePort } from '../../scripts/lib/ports';
import { throwawaySecrets } from '../../scripts/lib/secrets';
import { startDevServer, stopChild, type DevServer } from '../../scripts/lib/temporal-dev-server';
import { BASELINE_DELIVERY_TASK_QUEUE, BASELINE_TASK_QUEUE } from '../baseline/shared';
import { startBenchDatabase, type BenchDatabase } from './postgres';

/** The service's task queue (the default of `TEMPORAL_TASK_QUEUE`, docs/payments.md#workflow). */
export const SERVICE_TASK_QUEUE = 'payments';

/**
 * The service's webhook deliveries' task queue (the default of `TEMPORAL_WEBHOOK_TASK_QUEUE`,
 * docs/webhooks.md#isolation).
 */
export const SERVICE_WEBHOOK_TASK_QUEUE = `${SERVICE_TASK_QUEUE}-webhooks`;

/** How the stack is started. */
export interface StackOptions {
  root: string;
  cliPath: string;
  /** `maxCachedWorkflows` of both workers (WORKER_MAX_CACHED_WORKFLOWS / BENCH_MAX_CACHED_WORKFLOWS). */
  maxCachedWorkflows: number;
  say: (line: string) => void;
  /** Writes V8 CPU profiles of the service worker and the API into `<runDir>/profiles` (kept). */
  profile?: boolean;
  /**
   * Work started once the database and the workflow bundles are ready, run beside the rest of the start (the Temporal
   * dev server, the workers, the APIs) and awaited before the stack is answered: figure (e)'s cluster, which needs the
   * database and the bundle only. Nothing is measured while a stack starts. Its failure fails the start.
   */
  beside?: (ready: { runDir: string; databaseUrl: string; workflowBundle: string }) => Promise<void>;
}

/** A running stack. */
export interface Stack {
  runDir: string;
  databaseUrl: string;
  /** The service's workflow bundle, built once for every service worker of the run (`WORKER_WORKFLOW_BUNDLE`). */
  workflowBundle: string;
  temporalAddress: string;
  apiUrl: string;
  /** The fair baseline's API (figure a): `POST /v1/payments` only. */
  fairApiUrl: string;
  client: Client;
  serviceWorker: ChildProcess;
  baselineWorker: ChildProcess;
  /** The Temporal dev server's Prometheus metrics. */
  temporalMetricsUrl: string;
  /** The API process (answers `sqlStatements`). */
  api: ChildProcess;
  /** The fair baseline's API process (answers `sqlStatements`). */
  fairApi: ChildProcess;
  /** Pids of the processes started, by role (the service worker's is the current one). */
  pids(): Record<string, number | undefined>;
  /** The embedded PostgreSQL's data folder, or undefined when DATABASE_URL was given. */
  postgresDataDir: string | undefined;
  /** Whether PostgreSQL's statements per database can be read (`pg_stat_statements`). */
  statementStats: boolean;
  /**
   * Replaces both workers with fresh processes (empty workflow caches, cold alike); resolves once
   * both poll.
   */
  restartWorkers(): Promise<void>;
  /**
   * Replaces one worker with a fresh process; resolves once it polls. `nodeFlags` are added to this start of the
   * service worker only (e.g. figure f's preload); the next restart drops them.
   */
  restartWorker(which: 'service' | 'baseline', nodeFlags?: string[]): Promise<void>;
  /** Stops everything started here; safe to call twice. `keepLogs` leaves the run folder for a look. */
  stop(keepLogs?: boolean): Promise<void>;
}

/**
 * Node with tsx, as `npm start` runs the entry points, plus `nodeFlags` (after tsx, so a `--import`
 * of TypeScript works), with an IPC channel and its output appended to `logFile`.
 */
export function spawnEntry(
  root: string,
  entry: string,
  nodeFlags: string[],
  env: NodeJS.ProcessEnv,
  logFile: string,
): ChildProcess {
  const log = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', ...nodeFlags, entry], {
    cwd: root,
    env,
    stdio: ['ignore', log, log, 'ipc'],
  });
  fs.closeSync(log);
  return child;
}

/** Resolves once a poller of process `pid` polls `taskQueue` for workflow tasks; rejects after `timeoutMs`. */
export async function waitForPoller(
  client: Client,
  taskQueue: string,
  pid: number,
  child: ChildProcess,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`process ${pid} exited with ${child.exitCode} before polling ${taskQueue}`);
    const answer = await client.workflowService.describeTaskQueue({
      namespace: 'default',
      taskQueue: { name: taskQueue },
      taskQueueType: proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    if (answer.pollers.some((poller) => poller.identity?.startsWith(`${pid}@`))) return;
    if (Date.now() > deadline) throw new Error(`process ${pid} does not poll ${taskQueue} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Resolves once `url/readyz` answers 200; rejects when `child` exits first or after `timeoutMs`. */
export async function waitForReady(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the API exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`the API is not ready after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Resolves once something answers HTTP at `url` (any status); rejects when `child` exits first or after `timeoutMs`.
 */
async function waitForListening(url: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`process ${child.pid} exited with ${child.exitCode}`);
    try {
      await fetch(url);
      return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`nothing listens at ${url} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Builds the service's workflow bundle (as `npm run build:workflows`) and the baseline worker's into `runDir` once,
 * while the databases start, so that no worker start of the run pays for webpack (about 2 s of CPU a start; a full
 * run starts the service's six times, the baseline's five); both sides are given theirs alike.
 * @returns the two files' paths
 */
async function buildWorkflowBundles(
  runDir: string,
  say: (line: string) => void,
): Promise<{ service: string; baseline: string }> {
  const started = performance.now();
  const service = path.join(runDir, 'workflow-bundle.js');
  const baseline = path.join(runDir, 'baseline-workflow-bundle.js');
  await writeWorkflowBundle(service, createLogger('bench-bundler', 'warn'));
  const built = await bundleWorkflowCode({
    workflowsPath: require.resolve('../baseline/workflows'),
    logger: quietBundlerLogger,
  });
  fs.writeFileSync(baseline, built.code);
  say(`workflow bundles built once for the run's workers in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { service, baseline };
}

/** webpack's statistics are an `info` of many lines: only its warnings and errors are printed. */
const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => process.stderr.write(`[bundler] ${message}\n`),
  error: (message: string) => process.stderr.write(`[bundler] ${message}\n`),
};

/** Starts the whole stack (see module comment). On failure, stops what it had started and rethrows. */
export async function startStack(options: StackOptions): Promise<Stack> {
  const { root, say } = options;
  const runDir = path.join(root, 'var', `bench-${process.pid}-${randomBytes(3).toString('hex')}`);
  fs.mkdirSync(runDir, { recursive: true });
  const children: ChildProcess[] = [];
  let database: BenchDatabase | undefined;
  let temporal: DevServer | undefined;
  let client: Client | undefined;
  let stopped = false;

  async function stop(keepLogs = false): Promise<void> {
    if (stopped) return;
    stopped = true;
    await Promise.all(children.map((child) => stopChild(child)));
    await client?.connection.close().catch(() => undefined);
    await temporal?.stop();
    await database?.stop();
    if (keepLogs) say(`logs kept in ${runDir}`);
    else fs.rmSync(runDir, { recursive: true, force: true });
  }

  try {
    const bundles = buildWorkflowBundles(runDir, say);
    // Caught here, thrown where awaited: a failed build must not be an unhandled rejection while the database starts.
    bundles.catch(() => undefined);
    database = await startBenchDatabase(path.join(runDir, 'pgdata'), say);
    const databaseUrl = database.url;
    const workflowBundles = await bundles;
    const besides = options.beside?.({ runDir, databaseUrl, workflowBundle: workflowBundles.service });
    // Caught here, thrown where awaited (below, after the dev stack's own start).
    besides?.catch(() => undefined);

    say('starting the Temporal dev server (SQLite file)');
    temporal = await startDevServer({
      cliPath: options.cliPath,
      dbFile: path.join(runDir, 'temporal.sqlite'),
      ui: false,
      logFile: path.join(runDir, 'temporal.log'),
    });
    client = new Client({ connection: await Connection.connect({ address: temporal.address }), namespace: 'default' });

    const profileFlags = options.profile ? ['--cpu-prof', '--cpu-prof-dir', path.join(runDir, 'profiles')] : [];
    const apiPort = await freePort();
    const serviceEnv: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'development',
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_TASK_QUEUE: SERVICE_TASK_QUEUE,
      ...throwawaySecrets(),
      HOST: '127.0.0.1',
      PORT: String(apiPort),
      RATE_LIMIT_MULTIPLIER: '1000000',
      WORKER_MAX_CACHED_WORKFLOWS: String(options.maxCachedWorkflows),
    };
    serviceEnv.WORKER_WORKFLOW_BUNDLE = workflowBundles.service;
    let workerGeneration = 0;
    const startServiceWorker = async (nodeFlags: string[] = []): Promise<ChildProcess> => {
      workerGeneration += 1;
      const child = spawnEntry(
        root,
        'src/worker.ts',
        ['--expose-gc', '--import', './bench/lib/probe-preload.mjs', ...nodeFlags, ...profileFlags],
        { ...serviceEnv, WORKER_METRICS_PORT: String(await freePort()) },
        path.join(runDir, `worker-${workerGeneration}.log`),
      );
      children.push(child);
      await waitForPoller(client as Client, SERVICE_TASK_QUEUE, child.pid as number, child);
      return child;
    };

    say('starting the service worker, the API and the baseline worker');
    const api = spawnEntry(
      root,
      'src/server.ts',
      ['--import', './bench/lib/probe-preload.mjs', ...profileFlags],
      serviceEnv,
      path.join(runDir, 'api.log'),
    );
    children.push(api);
    const fairApiPort = await freePort();
    const fairApi = spawnEntry(
      root,
      'bench/baseline/fair-api.ts',
      ['--import', './bench/lib/probe-preload.mjs'],
      {
        ...process.env,
        DATABASE_URL: databaseUrl,
        TEMPORAL_ADDRESS: temporal.address,
        HOST: '127.0.0.1',
        PORT: String(fairApiPort),
      },
      path.join(runDir, 'fair-api.log'),
    );
    children.push(fairApi);
    const startBaselineWorker = async (): Promise<ChildProcess> => {
      const child = spawnEntry(
        root,
        'bench/baseline/worker.ts',
        ['--expose-gc', '--import', './bench/lib/probe-preload.mjs'],
        {
          ...process.env,
          TEMPORAL_ADDRESS: serviceEnv.TEMPORAL_ADDRESS,
          DATABASE_URL: databaseUrl,
          BENCH_MAX_CACHED_WORKFLOWS: String(options.maxCachedWorkflows),
          BENCH_WORKFLOW_BUNDLE: workflowBundles.baseline,
        },
        path.join(runDir, 'baseline-worker.log'),
      );
      children.push(child);
      await waitForPoller(client as Client, BASELINE_TASK_QUEUE, child.pid as number, child);
      await waitForPoller(client as Client, BASELINE_DELIVERY_TASK_QUEUE, child.pid as number, child);
      return child;
    };
    const replace = async (old: ChildProcess, start: () => Promise<ChildProcess>): Promise<ChildProcess> => {
      await stopChild(old);
      children.splice(children.indexOf(old), 1);
      return start();
    };
    const baselineStarting = startBaselineWorker();
    let serviceWorker = await startServiceWorker();
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    await waitForReady(apiUrl, api);
    const fairApiUrl = `http://127.0.0.1:${fairApiPort}`;
    await waitForListening(fairApiUrl, fairApi);
    let baselineWorker = await baselineStarting;
    await besides;
    const restartWorker = async (which: 'service' | 'baseline', nodeFlags?: string[]): Promise<void> => {
      if (which === 'service') serviceWorker = await replace(serviceWorker, () => startServiceWorker(nodeFlags));
      else baselineWorker = await replace(baselineWorker, startBaselineWorker);
    };

    return {
      runDir,
      databaseUrl,
      workflowBundle: workflowBundles.service,
      temporalAddress: temporal.address,
      temporalMetricsUrl: temporal.metricsUrl,
      apiUrl,
      api,
      fairApiUrl,
      fairApi,
      client,
      get serviceWorker() {
        return serviceWorker;
      },
      get baselineWorker() {
        return baselineWorker;
      },
      pids: () => ({
        temporal: temporal?.process.pid,
        worker: serviceWorker.pid,
        api: api.pid,
        baselineWorker: baselineWorker.pid,
        baselineApi: fairApi.pid,
      }),
      postgresDataDir: database.dataDir,
      statementStats: database.statementStats,
      async restartWorkers() {
        await Promise.all([restartWorker('service'), restartWorker('baseline')]);
      },
      restartWorker,
      stop,
    };
  } catch (error) {
    await stop(true);
    throw error;
  }
}

/** One line about the machine: cores, CPU model, memory, OS. */
export function machineSummary(): { cores: number; cpuModel: string; memoryGiB: number; os: string } {
  return {
    cores: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
  };
}
