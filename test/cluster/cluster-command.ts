/**
 * The production topology under test (docs/operations.md#cluster): `scripts/cluster.ts` itself, as `npm run
 * start:cluster`
 * runs it, started on free ports in a folder of the test run, with databases of its own on the test
 * run's PostgreSQL server (the service's, Temporal's and Temporal's visibility), and stopped with
 * SIGTERM afterwards, its databases dropped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { ClusterState } from '../../scripts/cluster';
import { freePort } from '../../scripts/lib/ports';
import { freeServerPort, resolveTemporalServer, resolveTemporalUiServer } from '../../scripts/lib/temporal-server';

const ROOT = path.resolve(__dirname, '../..');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A running cluster command and what it wrote about itself. */
export interface ClusterUnderTest {
  /** The command's latest `cluster.json`. */
  state(): ClusterState;
  /** The service's database URL (for reading the books). */
  databaseUrl: string;
  /** Temporal's persistence database URL. */
  temporalDatabaseUrl: string;
  /** The command's last 16 KB of output (its JSON log lines at LOG_LEVEL warn), for failure messages. */
  output(): string;
  /** Milliseconds from spawning the command until it reported ready. */
  startMs: number;
  /** SIGTERM to the command, SIGKILL to everything it started after 45 s; then its databases are dropped. */
  stop(): Promise<void>;
}

/** `url` with its database replaced by `database`. */
function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** True while process `pid` exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Builds (first run only, minutes) or finds the Temporal server, SQL tool and UI server, so that the
 * command started next finds them cached. Call it from a `before` hook with a long time-out.
 */
export async function prepareClusterBinaries(): Promise<void> {
  const say = (line: string) => process.stdout.write(`      [cluster] ${line}\n`);
  await resolveTemporalServer(say);
  await resolveTemporalUiServer(say);
}

/**
 * Starts `scripts/cluster.ts` with `env` on top of the test run's environment and resolves once
 * its `cluster.json` says ready.
 * @throws Error (with the command's output) when it exits first or is not ready within `timeoutMs`
 */
export async function startClusterCommand(env: Record<string, string>, timeoutMs = 240_000): Promise<ClusterUnderTest> {
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) throw new Error('DATABASE_URL is not set: run the tests with npm test');
  const suffix = randomBytes(4).toString('hex');
  const appDatabase = `paycollect_cluster_${suffix}`;
  const temporalDatabase = `temporal_cluster_${suffix}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${appDatabase}"`);
  } finally {
    await admin.end();
  }
  const databaseUrl = withDatabase(baseUrl, appDatabase);
  const temporalDatabaseUrl = withDatabase(baseUrl, temporalDatabase);
  const clusterDir = path.join(process.env.TEST_RUN_DIR ?? os.tmpdir(), `cluster-${suffix}`);
  const port = await freePort();

  const started = Date.now();
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path.join('scripts', 'cluster.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      CLUSTER_DIR: clusterDir,
      DATABASE_URL: databaseUrl,
      TEMPORAL_DATABASE_URL: temporalDatabaseUrl,
      PORT: String(port),
      TEMPORAL_PORT: String(await freeServerPort()),
      TEMPORAL_UI_PORT: String(await freePort()),
      WORKER_METRICS_PORT: '0',
      PROVIDER_CALLBACK_BASE_URL: `http://127.0.0.1:${port}`,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: string) => (output = (output + chunk).slice(-16_384));
  child.stdout?.setEncoding('utf8').on('data', keep);
  child.stderr?.setEncoding('utf8').on('data', keep);
  const stateFile = path.join(clusterDir, 'cluster.json');
  const state = (): ClusterState => JSON.parse(fs.readFileSync(stateFile, 'utf8')) as ClusterState;

  const dropDatabases = async () => {
    const dropper = new pg.Client({ connectionString: baseUrl });
    await dropper.connect();
    try {
      for (const name of [appDatabase, temporalDatabase, `${temporalDatabase}_visibility`])
        await dropper.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    } finally {
      await dropper.end();
    }
  };
  const stop = async () => {
    const pids = fs.existsSync(stateFile) ? state() : undefined;
    if (child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          for (const pid of [
            ...(pids?.workerPids ?? []),
            ...(pids?.webhookWorkerPids ?? []),
            ...(pids?.apiPids ?? []),
            pids?.apiPrimaryPid ?? 0,
          ])
            if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
          child.kill('SIGKILL');
        }, 45_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      });
    }
    await dropDatabases();
  };

  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await dropDatabases();
      throw new Error(
        `the cluster command exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${output}`,
      );
    }
    if (fs.existsSync(stateFile) && state().ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the cluster command was not ready within ${timeoutMs} ms:\n${output}`);
    }
    await sleep(250);
  }
  return { state, databaseUrl, temporalDatabaseUrl, output: () => output, startMs: Date.now() - started, stop };
}

/**
 * Which process holds each of `clientPorts`' connections to 127.0.0.1:`serverPort`, among `pids`:
 * the server side of each connection is found in /proc/net/tcp (its socket inode, by the client's
 * port) and the inode among each process's open files (/proc/<pid>/fd). Linux only.
 * @returns client port → pid (absent when no process of `pids` holds it)
 */
export function connectionOwners(serverPort: number, clientPorts: number[], pids: number[]): Map<number, number> {
  const inodeByClientPort = new Map<number, string>();
  for (const line of fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10) continue;
    const localPort = parseInt((fields[1] ?? '').split(':')[1] ?? '', 16);
    const remotePort = parseInt((fields[2] ?? '').split(':')[1] ?? '', 16);
    if (localPort === serverPort && clientPorts.includes(remotePort))
      inodeByClientPort.set(remotePort, fields[9] as string);
  }
  const owners = new Map<number, number>();
  for (const pid of pids) {
    let links: string[];
    try {
      links = fs.readdirSync(`/proc/${pid}/fd`).map((fd) => {
        try {
          return fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          return '';
        }
      });
    } catch {
      continue;
    }
    for (const [clientPort, inode] of inodeByClientPort)
      if (links.includes(`socket:[${inode}]`)) owners.set(clientPort, pid);
  }
  return owners;
}
