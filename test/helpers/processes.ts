/**
 * Parts a durability test runs on a task queue of its own: the real API app on the shared stack's
 * database and Temporal client, and API (`src/server.ts`) and worker (`src/worker.ts`) processes it
 * can kill with SIGKILL and start again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { createApp } from '../../src/api/app';
import type { Config } from '../../src/config';
import type { Db } from '../../src/db/knex';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import { createLogger } from '../../src/logger';
import { providerRegistryFromConfig } from '../../src/providers/registry';
import { freePort } from '../../scripts/lib/ports';
import { getStack } from './stack';

const ROOT = path.resolve(__dirname, '../..');

/**
 * An API listening on a free port with `config` (its task queue), and how to stop it; on the shared stack's PostgreSQL
 * and Temporal client unless `parts` names others (e.g. a client behind a TCP proxy).
 */
export async function startApp(
  config: Config,
  parts: { db?: Db; temporal?: Client } = {},
): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const stack = await getStack();
  const db = parts.db ?? stack.db;
  const app = createApp({
    config,
    db,
    temporal: parts.temporal ?? stack.client,
    providers: providerRegistryFromConfig(createSandboxLedger(db), config),
    logger: createLogger('test-app', 'silent'),
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A child process running one entry point of `src/` with tsx, in a process group of its own so that
 * a kill reaches tsx's node child too. The last 4 KB of its stderr are kept for error messages.
 */
class EntryProcess {
  protected child: ChildProcess | undefined;
  private stderrTail = '';

  /** Starts `entry` (a path under the repository) with `env` on top of the test run's environment. */
  protected spawnEntry(entry: string, env: Record<string, string>): ChildProcess {
    this.stderrTail = '';
    const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), [entry], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    });
    child.stderr
      ?.setEncoding('utf8')
      .on('data', (chunk: string) => (this.stderrTail = (this.stderrTail + chunk).slice(-4096)));
    this.child = child;
    return child;
  }

  /** What the process last wrote to stderr (at most 4 KB). */
  get stderr(): string {
    return this.stderrTail;
  }

  /** True while the process started last has not exited. */
  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Kills the process group with `signal` (default SIGKILL, as `kill -9`) and waits for the exit. */
  kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      child.once('exit', () => resolve());
      process.kill(-(child.pid as number), signal);
    });
  }
}

/**
 * A worker process on `taskQueue` (environment `env` on top of the test run's), which can be
 * killed; `entry` is `src/worker.ts` or a test's variant of it.
 */
export class WorkerProcess extends EntryProcess {
  constructor(
    private readonly taskQueue: string,
    private readonly env: Record<string, string> = {},
    private readonly entry = 'src/worker.ts',
  ) {
    super();
  }

  /** Starts the entry; `metricsPort` 0 serves no metrics. Does not wait for it to poll. */
  start(metricsPort = 0): void {
    this.spawnEntry(this.entry, {
      TEMPORAL_TASK_QUEUE: this.taskQueue,
      LOG_LEVEL: 'silent',
      WORKER_METRICS_PORT: String(metricsPort),
      ...this.env,
    });
  }
}

/**
 * An API process (`src/server.ts`, as `npm start` runs it) on 127.0.0.1 and a port chosen once, so
 * that it can be killed and started again at the same address, as a restarted server behind a
 * fixed URL. Its environment: the test run's, the task queue, `LOG_LEVEL: silent`,
 * `PROVIDER_CALLBACK_BASE_URL` its own address (as `npm start` sets it), then `env`.
 */
export class ApiProcess extends EntryProcess {
  private constructor(
    readonly port: number,
    private readonly taskQueue: string,
    private readonly env: Record<string, string>,
  ) {
    super();
  }

  /** An API process on a free port (not started yet). */
  static async create(taskQueue: string, env: Record<string, string> = {}): Promise<ApiProcess> {
    return new ApiProcess(await freePort(), taskQueue, env);
  }

  /** `http://127.0.0.1:{port}` */
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * Starts the process and resolves once `GET /healthz` answers 200.
   * @throws Error when the process exits first or is not up within `timeoutMs` (its stderr attached)
   */
  async start(timeoutMs = 60_000): Promise<void> {
    const child = this.spawnEntry('src/server.ts', {
      HOST: '127.0.0.1',
      PORT: String(this.port),
      TEMPORAL_TASK_QUEUE: this.taskQueue,
      LOG_LEVEL: 'silent',
      PROVIDER_CALLBACK_BASE_URL: this.baseUrl,
      ...this.env,
    });
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(
          `the API process exited (${child.exitCode ?? child.signalCode}) before it was up:\n${this.stderr}`,
        );
      const up = await fetch(`${this.baseUrl}/healthz`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (up) return;
      if (Date.now() > deadline) {
        await this.kill();
        throw new Error(`the API process was not up within ${timeoutMs} ms:\n${this.stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * Mocha hooks for the calling `describe`: an app with `config` started before its tests, and the
 * app and `worker` stopped after them.
 * @returns the app's base URL, filled in by the `before` hook
 */
export function useAppAndWorker(config: Config, worker: WorkerProcess): { baseUrl: string } {
  const fixture = { baseUrl: '' };
  let app: Awaited<ReturnType<typeof startApp>> | undefined;
  before(async () => {
    app = await startApp(config);
    fixture.baseUrl = app.baseUrl;
  });
  after(async () => {
    await worker.kill();
    await app?.close();
  });
  return fixture;
}
