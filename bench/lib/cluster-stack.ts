/**
 * The production topology (docs/operations.md#cluster) for figure (e), started beside the dev stack with the cluster
 * command's own building blocks (scripts/lib/temporal-server.ts, scripts/lib/api-cluster.ts): the
 * Temporal server v1.29.1 on PostgreSQL (the bench's server, databases `bench_temporal` and
 * `bench_temporal_visibility`, {@link HISTORY_SHARDS} history shards), the service's own database
 * `paycollect_cluster` on the same server, two worker processes (`src/worker.ts`) and two API
 * processes (`src/server.ts`) behind one port through Node's cluster module. Everything listens on
 * 127.0.0.1, logs into `<runDir>/cluster/`, and `stop()` ends every process started here.
 *
 * What differs from `npm run start:cluster` (scripts/cluster.ts): no Temporal UI and no dashboard
 * build (nothing the bench measures), throwaway secrets, the rate limits raised as on the dev
 * stack, and each worker with the bench's probes (SQL statements counted, like the dev worker's).
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createDb, type Db } from '../../src/db/knex';
import { freePort } from '../../scripts/lib/ports';
import { throwawaySecrets } from '../../scripts/lib/secrets';
import { stopChild } from '../../scripts/lib/temporal-dev-server';
import {
  HISTORY_SHARDS,
  resolveTemporalServer,
  setupTemporalSchemas,
  startTemporalServer,
  temporalDatabasesAt,
  TEMPORAL_SERVER_VERSION,
  type TemporalServer,
} from '../../scripts/lib/temporal-server';
import { migratedSiblingDatabase } from '../../scripts/lib/postgres';
import { SERVICE_TASK_QUEUE, spawnEntry, waitForPoller, waitForReady } from './stack';

/** Worker and API processes of the topology (two of each). */
export const CLUSTER_WORKERS = 2;
export const CLUSTER_APIS = 2;

/** How the cluster is started. */
export interface ClusterOptions {
  root: string;
  /** The run folder; the cluster keeps its files in `<runDir>/cluster`. */
  runDir: string;
  /** The bench's PostgreSQL (the dev stack's), on whose server the cluster's databases are created. */
  databaseUrl: string;
  /** `WORKER_MAX_CACHED_WORKFLOWS` of its workers, as the dev stack's. */
  maxCachedWorkflows: number;
  /** The service's workflow bundle the dev stack built for the run (`WORKER_WORKFLOW_BUNDLE` of every worker). */
  workflowBundle?: string;
  say: (line: string) => void;
}

/** A running cluster. */
export interface ClusterStack {
  /** The shared port of the API processes. */
  apiUrl: string;
  /** The service's database of the cluster (`paycollect_cluster`). */
  databaseUrl: string;
  db: Db;
  temporal: TemporalServer;
  client: Client;
  workers: ChildProcess[];
  /** The API cluster's primary (its forks are the API processes). */
  apiPrimary: ChildProcess;
  /** What was started: server version, shards, processes, and how long each step took (ms). */
  description: {
    server: string;
    historyShards: number;
    workers: number;
    apis: number;
    startMs: Record<string, number>;
  };
  /** Stops everything started here; safe to call twice. */
  stop(): Promise<void>;
}

/** Resolves once the API primary reported `count` listening processes. */
function apiProcesses(primary: ChildProcess, count: number, timeoutMs = 120_000): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the API cluster did not report ${count} processes within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onMessage = (message: { type?: string; pids?: number[] }) => {
      if (message?.type !== 'api-processes' || (message.pids?.length ?? 0) < count) return;
      clearTimeout(timer);
      primary.off('message', onMessage);
      resolve(message.pids as number[]);
    };
    primary.on('message', onMessage);
    primary.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the API cluster exited with ${code}`));
    });
  });
}

/**
 * Starts the cluster (see module comment). The Temporal server binary must be cached or buildable
 * (`go install`, about 3½ minutes on first use).
 * @throws Error when a step fails; what was started by then is stopped
 */
export async function startClusterStack(options: ClusterOptions): Promise<ClusterStack> {
  const { root, say } = options;
  const dir = path.join(options.runDir, 'cluster');
  fs.mkdirSync(dir, { recursive: true });
  const startMs: Record<string, number> = {};
  const started = performance.now();
  const mark = (step: string) => (startMs[step] = Math.round(performance.now() - started));
  const children: ChildProcess[] = [];
  let temporal: TemporalServer | undefined;
  let client: Client | undefined;
  let db: Db | undefined;
  let stopped = false;

  async function stop(): Promise<void> {
    if (stopped) return;
    stopped = true;
    // APIs and workers first (they hold connections to Temporal and PostgreSQL), then the server.
    await Promise.all([...children].reverse().map((child) => stopChild(child, 15_000)));
    await client?.connection.close().catch(() => undefined);
    await db?.destroy().catch(() => undefined);
    await temporal?.stop();
  }

  try {
    const binaries = await resolveTemporalServer(say);
    mark('binaries');
    const databaseUrl = await migratedSiblingDatabase(options.databaseUrl, 'paycollect_cluster');
    const target = temporalDatabasesAt(options.databaseUrl, 'bench_temporal');
    await setupTemporalSchemas(binaries.sqlTool, target, say);
    mark('schemas');
    say(`starting the Temporal server ${TEMPORAL_SERVER_VERSION} (${HISTORY_SHARDS} history shards on PostgreSQL)`);
    temporal = await startTemporalServer({
      binary: binaries.server,
      target,
      dir: path.join(dir, 'temporal'),
      namespace: 'default',
      logFile: path.join(dir, 'temporal.log'),
    });
    mark('temporal');
    client = new Client({ connection: await Connection.connect({ address: temporal.address }), namespace: 'default' });
    db = createDb(databaseUrl, 8);

    const apiPort = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'development',
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: SERVICE_TASK_QUEUE,
      ...throwawaySecrets(),
      HOST: '127.0.0.1',
      RATE_LIMIT_MULTIPLIER: '1000000',
      WORKER_MAX_CACHED_WORKFLOWS: String(options.maxCachedWorkflows),
      ...(options.workflowBundle ? { WORKER_WORKFLOW_BUNDLE: options.workflowBundle } : {}),
    };
    say(`starting ${CLUSTER_WORKERS} workers and ${CLUSTER_APIS} API processes behind one port`);
    const workers: ChildProcess[] = [];
    for (let index = 0; index < CLUSTER_WORKERS; index += 1) {
      const worker = spawnEntry(
        root,
        'src/worker.ts',
        ['--import', './bench/lib/probe-preload.mjs'],
        { ...env, WORKER_METRICS_PORT: String(await freePort()) },
        path.join(dir, `worker-${index + 1}.log`),
      );
      children.push(worker);
      workers.push(worker);
    }
    const apiPrimary = spawnEntry(
      root,
      path.join('scripts', 'lib', 'api-cluster.ts'),
      [],
      { ...env, PORT: String(apiPort), API_PROCESSES: String(CLUSTER_APIS) },
      path.join(dir, 'api.log'),
    );
    children.push(apiPrimary);
    const listening = apiProcesses(apiPrimary, CLUSTER_APIS);
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const polling = Promise.all(
      workers.map((worker) => waitForPoller(client as Client, SERVICE_TASK_QUEUE, worker.pid as number, worker)),
    );
    await Promise.all([listening, polling, waitForReady(apiUrl, apiPrimary)]);
    mark('ready');
    return {
      apiUrl,
      databaseUrl,
      db,
      temporal,
      client,
      workers,
      apiPrimary,
      description: {
        server: TEMPORAL_SERVER_VERSION,
        historyShards: HISTORY_SHARDS,
        workers: CLUSTER_WORKERS,
        apis: CLUSTER_APIS,
        startMs,
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
