/** What every figure gets: the running stacks, a database handle for settling checks, and a printer. */
import type { Client } from '@temporalio/client';
import type { Db } from '../../src/db/knex';
import type { Stack } from './stack';

/**
 * One deployment of the service under measurement, as the figures drive it: its public API, a
 * handle on its database (the read model the figures wait on to know the service has caught up),
 * and a Temporal client of its server (for histories and visibility counts).
 */
export interface ServiceTarget {
  /**
   * `dev server` (the stack the tests run) or `cluster` (the production topology of docs/operations.md#cluster, figure
   * e).
   */
  name: 'dev server' | 'cluster';
  apiUrl: string;
  db: Db;
  client: Client;
}

/** The benchmark's shared state. */
export interface BenchContext {
  /** The dev-server stack: the service's figures (a)–(d) and every Temporal-only baseline run here. */
  stack: Stack;
  /** The service on the dev-server stack. */
  dev: ServiceTarget;
  /** The service on the cluster topology (figure e), when it could be started. */
  cluster?: ServiceTarget;
  /**
   * The dev stack's database: figure (c) starts deliveries through the service's dispatch code with
   * it, as the payment activities do.
   */
  db: Db;
  /** A short random tag of this run, for unique workflow ids. */
  runId: string;
  say: (line: string) => void;
}

/**
 * Polls `check` every `everyMs` until it returns true; rejects naming `what` after `timeoutMs`.
 * @returns the time waited, in milliseconds
 */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  everyMs = 100,
): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await check()) return performance.now() - started;
    if (performance.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Escapes a value for a Temporal visibility query string literal. */
export function visibilityLiteral(value: string): string {
  return `'${value.replace(/'/g, "\\'")}'`;
}
