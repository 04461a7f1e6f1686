/**
 * Starts the Temporal dev server (`temporal server start-dev`) with its SQLite file, Web UI and the
 * custom search attributes (docs/payments.md#workflow), and waits until its namespace answers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_FLAGS } from '../../src/workflows/messages';
import { freePort, waitForPort } from './ports';

/** A running dev server; `stop()` ends it. */
export interface DevServer {
  address: string;
  uiUrl: string | undefined;
  /** The server's Prometheus metrics (requests and persistence calls by operation). */
  metricsUrl: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/** SQLite pragmas for the dev server's store: WAL, so writers do not block readers. */
export const SQLITE_PRAGMAS = ['journal_mode=wal', 'synchronous=normal'];

/** Options: the binary, the SQLite file, ports (free ones when omitted) and whether to serve the UI. */
export interface DevServerOptions {
  cliPath: string;
  /** SQLite file; omitted = in memory (tests). */
  dbFile?: string;
  port?: number;
  uiPort?: number;
  ui: boolean;
  logFile: string;
}

/** Starts the dev server and resolves once namespace `default` is usable. */
export async function startDevServer(options: DevServerOptions): Promise<DevServer> {
  const port = options.port ?? (await freePort());
  const uiPort = options.ui ? (options.uiPort ?? (await freePort())) : undefined;
  const metricsPort = await freePort();
  if (options.dbFile) fs.mkdirSync(path.dirname(options.dbFile), { recursive: true });
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--http-port',
    String(await freePort()),
    '--metrics-port',
    String(metricsPort),
    ...(options.dbFile ? ['--db-filename', options.dbFile] : []),
    '--namespace',
    'default',
    '--log-level',
    'warn',
    // As the production topology's ops/temporal/dynamicconfig.yaml (docs/capacity.md#eager-activities).
    '--dynamic-config-value',
    'system.enableActivityEagerExecution=true',
    // Task queue fairness, keyed by merchant on the deliveries (docs/webhooks.md#isolation), as
    // ops/temporal/dynamicconfig.yaml has it for the deliveries' queue.
    '--dynamic-config-value',
    'matching.enableFairness=true',
    ...SQLITE_PRAGMAS.flatMap((pragma) => ['--sqlite-pragma', pragma]),
    ...SEARCH_ATTRIBUTE_FLAGS.flatMap((flag) => ['--search-attribute', flag]),
    ...(uiPort !== undefined ? ['--ui-port', String(uiPort), '--ui-ip', '127.0.0.1'] : ['--headless']),
  ];
  const log = fs.openSync(options.logFile, 'a');
  const child = spawn(options.cliPath, args, { stdio: ['ignore', log, log], detached: false });
  fs.closeSync(log);
  const exited = new Promise<never>((_, reject) => {
    child.once('exit', (code) => reject(new Error(`temporal dev server exited with ${code}; see ${options.logFile}`)));
  });
  const address = `127.0.0.1:${port}`;
  await Promise.race([waitForPort(port, 60_000), exited]);
  await Promise.race([waitForNamespace(address), exited]);
  exited.catch(() => undefined);
  return {
    address,
    uiUrl: uiPort !== undefined ? `http://127.0.0.1:${uiPort}` : undefined,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    process: child,
    stop: () => stopChild(child),
  };
}

async function waitForNamespace(address: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        await connection.workflowService.describeNamespace({ namespace: 'default' });
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  } finally {
    await connection.close();
  }
}

/** Sends SIGTERM, then SIGKILL after 10 s, and resolves when the child is gone. */
export function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
