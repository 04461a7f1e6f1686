/** What every figure gets: the running stack, a database handle for settling checks, and a printer. */
import type { Db } from '../../src/db/knex';
import type { Stack } from './stack';

/** The benchmark's shared state. */
export interface BenchContext {
  stack: Stack;
  /**
   * The figures wait on the read model to know that the service has caught up; figure (c) also
   * starts deliveries through the service's dispatch code with it, as the payment activities do.
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
export async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs: number, everyMs = 100): Promise<number> {
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
