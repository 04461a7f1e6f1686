/** Whether this process reaches what it depends on (docs/api.md#health): PostgreSQL and Temporal. */
import type { Client } from '@temporalio/client';
import { pingDb, type Db } from '../db/knex';

/** `ok` when the dependency answered, `unavailable` when it did not. */
export type CheckResult = 'ok' | 'unavailable';

/** The readiness of the API process: ready when both PostgreSQL and Temporal answered. */
export interface Readiness {
  ready: boolean;
  checks: { database: CheckResult; temporal: CheckResult };
}

/** Asks PostgreSQL (`select 1`) and Temporal (system info) at once; never throws. */
export async function checkReadiness(deps: { db: Db; temporal: Client }): Promise<Readiness> {
  const checks = await Promise.allSettled([pingDb(deps.db), deps.temporal.workflowService.getSystemInfo({})]);
  const [database, temporal] = checks.map((check): CheckResult => (check.status === 'fulfilled' ? 'ok' : 'unavailable')) as [CheckResult, CheckResult];
  return { ready: database === 'ok' && temporal === 'ok', checks: { database, temporal } };
}

/**
 * True when PostgreSQL answered a `select 1` within `timeoutMs` milliseconds; never throws. The
 * query is not cancelled when the time runs out: it ends on its own.
 */
export async function databaseAnswers(db: Db, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([pingDb(db), timeout]).then(
    () => true,
    () => false,
  ).finally(() => clearTimeout(timer));
}
