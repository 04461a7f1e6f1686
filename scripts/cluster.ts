/**
 * `npm run start:cluster`: the production topology on this machine (docs/operations.md#cluster).
 *
 * 1. Obtains the Temporal server and its SQL tool (`go install go.temporal.io/server/cmd/server@v1.29.1`
 *    and `…/cmd/tools/sql@v1.29.1`, cached) and the Temporal UI server (`github.com/temporalio/ui-server`).
 * 2. PostgreSQL: `DATABASE_URL`, or an embedded server with its data in `<CLUSTER_DIR>/pgdata`.
 * 3. Temporal's databases `temporal` and `temporal_visibility` on that server, or the database named by
 *    `TEMPORAL_DATABASE_URL` and `<name>_visibility` on its server; schemas set up or updated with the
 *    SQL tool at every start.
 * 4. The Temporal server (4 history shards, PostgreSQL persistence and visibility) on TEMPORAL_PORT
 *    (7233), the namespace and the search attributes (docs/payments.md#workflow) registered; the Web UI on
 * TEMPORAL_UI_PORT (8233).
 * 5. The service's migrations; the merchant dashboard built when stale (not under NODE_ENV=test).
 * 6. `CLUSTER_WORKERS` (2) payment worker processes and `CLUSTER_WEBHOOK_WORKERS` (1) webhook worker
 *    processes (`src/worker.ts` with WORKER_ROLE `payments` or `webhooks`: deliveries apart from payment
 *    work, docs/webhooks.md#isolation; metrics on WORKER_METRICS_PORT + n, or none when 0) and `API_PROCESSES` (2) API
 * processes (`src/server.ts`) behind one port, PORT (3000),
 *    with Node's cluster module (scripts/lib/api-cluster.ts). A worker that dies is started again
 *    after a second (the API primary does the same for its processes); five deaths in a row within
 *    10 s of their start stop everything.
 *
 * It is ready once `/readyz` answers 200 through the shared port and every worker polls its task
 * queue; then it writes `<CLUSTER_DIR>/cluster.json` (addresses, pids, start timings), rewritten
 * whenever a process is replaced, and, for the default CLUSTER_DIR, `var/runtime.json` for the admin
 * command. Ctrl-C (SIGINT) or SIGTERM stops the APIs, then the workers, the UI and Temporal (the
 * embedded PostgreSQL's package stops it on the same signal, at once). Its own lines are JSON (docs/operations.md#logs,
 * process `cluster`, level LOG_LEVEL).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import exitHook from 'async-exit-hook';
import { Connection } from '@temporalio/client';
import { temporal as proto } from '@temporalio/proto';
import { RUNTIME_SETTINGS_FILE } from '../src/config';
import { createDb, migrateLatest } from '../src/db/knex';
import { createLogger } from '../src/logger';
import { ensureDashboardBuilt } from './lib/dashboard';
import { startEmbeddedPostgres, type Database } from './lib/postgres';
import { freePort } from './lib/ports';
import { localSecrets } from './lib/secrets';
import { stopChild } from './lib/temporal-dev-server';
import {
  HISTORY_SHARDS,
  resolveTemporalServer,
  resolveTemporalUiServer,
  setupTemporalSchemas,
  startTemporalServer,
  startTemporalUi,
  temporalDatabasesAt,
  TEMPORAL_SERVER_VERSION,
  TEMPORAL_UI_SERVER_VERSION,
  type TemporalServer,
  type TemporalUi,
} from './lib/temporal-server';

const root = path.resolve(__dirname, '..');
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const log = createLogger(
  'cluster',
  LOG_LEVELS.includes(process.env.LOG_LEVEL ?? '') ? (process.env.LOG_LEVEL as string) : 'info',
);
const say = (line: string) => log.info(line);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The state file's shape (`<CLUSTER_DIR>/cluster.json`), read by the cluster tests and operators. */
export interface ClusterState {
  /** The pid of this command. */
  pid: number;
  ready: boolean;
  apiUrl: string;
  temporalAddress: string;
  namespace: string;
  taskQueue: string;
  /** The webhook deliveries' task queue (docs/webhooks.md#isolation). */
  webhookTaskQueue: string;
  uiUrl: string | null;
  temporalMetricsUrl: string;
  /** The payment worker processes' pids, in order; a replaced worker's new pid takes its place. */
  workerPids: number[];
  /** The webhook worker processes' pids, likewise. */
  webhookWorkerPids: number[];
  /** The API processes' pids (the cluster primary's children). */
  apiPids: number[];
  /** The API cluster primary's pid. */
  apiPrimaryPid: number | null;
  versions: { server: string; uiServer: string; historyShards: number };
  /** Milliseconds from the command's start: binaries found, schemas set up, Temporal ready, all ready. */
  timings: Record<string, number>;
}

function integerSetting(name: string, fallback: number, min: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min}`);
  return value;
}

/** The workflow task queue's pollers' identities (`pid@host` by the SDK's default). */
async function pollerIdentities(connection: Connection, namespace: string, taskQueue: string): Promise<string[]> {
  const answer = await connection.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue, kind: proto.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: proto.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return (answer.pollers ?? []).map((poller) => poller.identity ?? '');
}

async function main(): Promise<void> {
  const started = Date.now();
  const clusterDir = path.resolve(process.env.CLUSTER_DIR ?? path.join(root, 'var', 'cluster'));
  const defaultDir = process.env.CLUSTER_DIR === undefined;
  const port = integerSetting('PORT', 3000, 1);
  const workerCount = integerSetting('CLUSTER_WORKERS', 2, 1);
  const webhookWorkerCount = integerSetting('CLUSTER_WEBHOOK_WORKERS', 1, 1);
  const apiCount = integerSetting('API_PROCESSES', 2, 1);
  const metricsBase = integerSetting('WORKER_METRICS_PORT', 9464, 0);
  const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
  const taskQueue = process.env.TEMPORAL_TASK_QUEUE ?? 'payments';
  const webhookTaskQueue = process.env.TEMPORAL_WEBHOOK_TASK_QUEUE ?? `${taskQueue}-webhooks`;
  fs.mkdirSync(clusterDir, { recursive: true });
  const timings: Record<string, number> = {};
  const mark = (name: string) => (timings[name] = Date.now() - started);

  let database: Database | undefined;
  let temporal: TemporalServer | undefined;
  let ui: TemporalUi | undefined;
  let apiPrimary: ChildProcess | undefined;
  const workers: (ChildProcess | undefined)[] = [];
  let stopping = false;
  let state: ClusterState | undefined;

  const writeState = () => {
    if (!state) return;
    state.workerPids = workers.slice(0, workerCount).map((worker) => worker?.pid ?? 0);
    state.webhookWorkerPids = workers.slice(workerCount).map((worker) => worker?.pid ?? 0);
    const file = path.join(clusterDir, 'cluster.json');
    fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
    fs.renameSync(`${file}.tmp`, file);
  };

  async function stopEverything(): Promise<void> {
    if (stopping) return;
    stopping = true;
    say('stopping…');
    if (apiPrimary) await stopChild(apiPrimary, 15_000);
    await Promise.all(workers.map((worker) => (worker ? stopChild(worker) : undefined)));
    await ui?.stop();
    await temporal?.stop();
    await database?.stop();
    if (state) {
      state.ready = false;
      writeState();
    }
    say('stopped');
  }
  async function stopAll(code: number): Promise<never> {
    await stopEverything();
    process.exit(code);
  }
  exitHook((done) => void stopEverything().finally(done));

  try {
    const binaries = await resolveTemporalServer(say);
    let uiBinary: string | undefined;
    try {
      uiBinary = await resolveTemporalUiServer(say);
    } catch (error) {
      log.error(
        { err: error },
        'the Temporal UI server could not be obtained; the cluster runs without the UI (docs/operations.md#cluster)',
      );
    }
    mark('binaries');

    let databaseUrl = process.env.DATABASE_URL;
    if (!databaseUrl) {
      say(`starting the embedded PostgreSQL (${path.relative(root, path.join(clusterDir, 'pgdata'))})`);
      database = await startEmbeddedPostgres(path.join(clusterDir, 'pgdata'), await freePort());
      databaseUrl = database.url;
    }
    const target = process.env.TEMPORAL_DATABASE_URL
      ? temporalDatabasesAt(process.env.TEMPORAL_DATABASE_URL)
      : temporalDatabasesAt(databaseUrl, 'temporal');
    say(`Temporal's databases: ${target.database} and ${target.visibilityDatabase} on ${target.host}:${target.port}`);
    await setupTemporalSchemas(binaries.sqlTool, target, say);
    mark('schemas');

    say(`starting the Temporal server ${TEMPORAL_SERVER_VERSION} (${HISTORY_SHARDS} history shards, PostgreSQL)`);
    temporal = await startTemporalServer({
      binary: binaries.server,
      target,
      dir: path.join(clusterDir, 'temporal'),
      port: integerSetting('TEMPORAL_PORT', 7233, 1),
      namespace,
      logFile: path.join(clusterDir, 'temporal.log'),
    });
    mark('temporal');
    if (uiBinary) {
      try {
        ui = await startTemporalUi({
          binary: uiBinary,
          temporalAddress: temporal.address,
          namespace,
          port: integerSetting('TEMPORAL_UI_PORT', 8233, 1),
          dir: path.join(clusterDir, 'ui'),
          logFile: path.join(clusterDir, 'ui.log'),
        });
      } catch (error) {
        log.error({ err: error }, 'the Temporal UI did not start; the cluster runs without it');
      }
    }

    const db = createDb(databaseUrl, 2, log);
    try {
      const applied = await migrateLatest(db);
      say(applied.length ? `migrations applied: ${applied.join(', ')}` : 'database is up to date');
    } finally {
      await db.destroy();
    }
    const dashboardBuilt = process.env.NODE_ENV === 'test' ? false : ensureDashboardBuilt(say);

    const secrets = localSecrets(clusterDir);
    const apiUrl = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TASK_QUEUE: taskQueue,
      TEMPORAL_WEBHOOK_TASK_QUEUE: webhookTaskQueue,
      JWT_SECRET: process.env.JWT_SECRET ?? secrets.jwtSecret,
      PROVIDER_CALLBACK_SECRET: process.env.PROVIDER_CALLBACK_SECRET ?? secrets.callbackSecret,
      // The sandbox simulators call back the API here, through the shared port (docs/payments.md#provider-callbacks).
      PROVIDER_CALLBACK_BASE_URL: process.env.PROVIDER_CALLBACK_BASE_URL ?? apiUrl,
    };

    // Workers: each its own process, payment work first, then webhook deliveries; one that dies is started again after
    // a second.
    let quickDeaths = 0;
    const startWorker = (index: number) => {
      const metricsPort = metricsBase === 0 ? 0 : metricsBase + index;
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
        cwd: root,
        env: {
          ...env,
          WORKER_METRICS_PORT: String(metricsPort),
          WORKER_ROLE: index < workerCount ? 'payments' : 'webhooks',
        },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      const forkedAt = Date.now();
      workers[index] = child;
      writeState();
      child.once('exit', (code, signal) => {
        if (stopping) return;
        quickDeaths = Date.now() - forkedAt < 10_000 ? quickDeaths + 1 : 0;
        if (quickDeaths >= 5) {
          log.fatal(
            { worker: index, code, signal },
            'workers died five times in a row within 10 s of their start; stopping everything',
          );
          void stopAll(1);
          return;
        }
        log.warn({ worker: index, worker_pid: child.pid, code, signal }, 'worker died; starting another');
        setTimeout(() => {
          if (!stopping) startWorker(index);
        }, 1000);
      });
    };

    state = {
      pid: process.pid,
      ready: false,
      apiUrl,
      temporalAddress: temporal.address,
      namespace,
      taskQueue,
      webhookTaskQueue,
      uiUrl: ui?.url ?? null,
      temporalMetricsUrl: temporal.metricsUrl,
      workerPids: [],
      webhookWorkerPids: [],
      apiPids: [],
      apiPrimaryPid: null,
      versions: {
        server: TEMPORAL_SERVER_VERSION,
        uiServer: TEMPORAL_UI_SERVER_VERSION,
        historyShards: HISTORY_SHARDS,
      },
      timings,
    };
    for (let index = 0; index < workerCount + webhookWorkerCount; index += 1) startWorker(index);

    // The APIs behind one port: the cluster primary forks them and reports their pids over IPC.
    apiPrimary = spawn(process.execPath, ['--import', 'tsx', path.join('scripts', 'lib', 'api-cluster.ts')], {
      cwd: root,
      env: { ...env, HOST: '127.0.0.1', PORT: String(port), API_PROCESSES: String(apiCount) },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    state.apiPrimaryPid = apiPrimary.pid ?? null;
    apiPrimary.on('message', (message: { type?: string; pids?: number[] }) => {
      if (message?.type === 'api-processes' && state) {
        state.apiPids = message.pids ?? [];
        writeState();
      }
    });
    apiPrimary.once('exit', (code) => {
      if (!stopping) {
        log.error({ code }, 'the API cluster exited; stopping everything');
        void stopAll(1);
      }
    });
    writeState();

    // Ready: /readyz through the shared port, and every worker polling the task queue.
    const connection = await Connection.connect({ address: temporal.address });
    try {
      const deadline = Date.now() + 180_000;
      for (;;) {
        if (stopping) return;
        const apiReady = await fetch(`${apiUrl}/readyz`).then(
          (response) => response.status === 200,
          () => false,
        );
        const polling = async (queue: string, pool: (ChildProcess | undefined)[]) => {
          const identities = await pollerIdentities(connection, namespace, queue).catch(() => [] as string[]);
          return pool.filter(
            (worker) => worker?.pid && identities.some((identity) => identity.startsWith(`${worker.pid}@`)),
          ).length;
        };
        const paymentsPolling = await polling(taskQueue, workers.slice(0, workerCount));
        const webhooksPolling = await polling(webhookTaskQueue, workers.slice(workerCount));
        if (
          apiReady &&
          paymentsPolling === workerCount &&
          webhooksPolling === webhookWorkerCount &&
          state.apiPids.length === apiCount
        )
          break;
        if (Date.now() > deadline) {
          throw new Error(
            `not ready after 180 s: /readyz ${apiReady ? 'ok' : 'not ok'}, ${paymentsPolling} of ${workerCount} payment workers and ${webhooksPolling} of ${webhookWorkerCount} webhook workers polling, ${state.apiPids.length} of ${apiCount} API processes`,
          );
        }
        await sleep(500);
      }
    } finally {
      await connection.close();
    }
    mark('ready');
    state.ready = true;
    writeState();
    if (defaultDir) {
      // The admin command, run in this checkout, reads where the stack is from here
      // (docs/live-access.md#admin-command).
      fs.writeFileSync(
        path.join(root, RUNTIME_SETTINGS_FILE),
        `${JSON.stringify({ DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: temporal.address }, null, 2)}\n`,
        { mode: 0o600 },
      );
    }
    const seconds = (ms: number | undefined) => `${((ms ?? 0) / 1000).toFixed(1)} s`;
    say(
      `ready in ${seconds(timings.ready)} (binaries ${seconds(timings.binaries)}, schemas ${seconds(timings.schemas)}, Temporal ${seconds(timings.temporal)})`,
    );
    say(`API          ${apiUrl}/v1   (${apiCount} processes behind one port; health: /healthz, readiness: /readyz)`);
    say(dashboardBuilt ? `dashboard    ${apiUrl}/dashboard/` : 'dashboard    not built; the API runs without it');
    say(
      `Temporal     ${temporal.address} (namespace ${namespace}, ${HISTORY_SHARDS} history shards on PostgreSQL), metrics ${temporal.metricsUrl}`,
    );
    say(`Temporal UI  ${ui?.url ?? 'not running (see the error above)'}`);
    say(
      `workers      ${workerCount} payment and ${webhookWorkerCount} webhook processes${metricsBase === 0 ? '' : `, metrics on ports ${metricsBase}–${metricsBase + workerCount + webhookWorkerCount - 1}`}`,
    );
    say(`state        ${path.join(clusterDir, 'cluster.json')}; logs of Temporal and the UI in ${clusterDir}`);
    say('press Ctrl-C to stop everything');
  } catch (error) {
    log.error({ err: error }, error instanceof Error ? error.message : String(error));
    await stopAll(1);
  }
}

void main();
