/**
 * Parts a durability test runs on a task queue of its own: the real API app on the shared stack's
 * database and Temporal client, and worker processes (`src/worker.ts`) it can kill with SIGKILL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createApp } from '../../src/api/app';
import type { Config } from '../../src/config';
import { createLogger } from '../../src/logger';
import { providerRegistryFromConfig } from '../../src/providers/registry';
import { getStack } from './stack';

const ROOT = path.resolve(__dirname, '../..');

/** An API listening on a free port with `config` (its task queue), and how to stop it. */
export async function startApp(config: Config): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const stack = await getStack();
  const app = createApp({ config, db: stack.db, temporal: stack.client, providers: providerRegistryFromConfig(stack.db, config), logger: createLogger('test-app', 'silent') });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A worker process on `taskQueue` (environment `env` on top of the test run's), which can be killed. */
export class WorkerProcess {
  private child: ChildProcess | undefined;

  constructor(
    private readonly taskQueue: string,
    private readonly env: Record<string, string> = {},
  ) {}

  /** Starts `src/worker.ts` in a process group of its own; `metricsPort` 0 serves no metrics. */
  start(metricsPort = 0): void {
    this.child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['src/worker.ts'], {
      cwd: ROOT,
      env: { ...process.env, TEMPORAL_TASK_QUEUE: this.taskQueue, LOG_LEVEL: 'silent', WORKER_METRICS_PORT: String(metricsPort), ...this.env },
      stdio: 'ignore',
      detached: true, // its own process group, so the kill reaches tsx's node child too
    });
  }

  /** Kills the process group with `signal` and waits for the exit. */
  kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      child.once('exit', () => resolve());
      process.kill(-(child.pid as number), signal);
    });
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
