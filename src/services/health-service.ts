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

/**
 * Asks PostgreSQL (`select 1`) and Temporal (system info) at once, each given `timeoutMs`
 * milliseconds (READINESS_TIMEOUT_MS, docs/api.md#health): one that is down, stalled or slower counts as
 * unavailable, so the answer comes within `timeoutMs` whatever they do. Never throws.
 */
export async function checkReadiness(deps: { db: Db; temporal: Client }, timeoutMs: number): Promise<Readiness> {
  const deadline = Date.now() + timeoutMs;
  const [databaseUp, temporalUp] = await Promise.all([
    databaseAnswers(deps.db, timeoutMs),
    answersWithin(
      () => deps.temporal.withDeadline(deadline, () => deps.temporal.workflowService.getSystemInfo({})),
      timeoutMs,
    ),
  ]);
  const [database, temporal] = [databaseUp, temporalUp].map((up): CheckResult => (up ? 'ok' : 'unavailable')) as [
    CheckResult,
    CheckResult,
  ];
  return { ready: databaseUp && temporalUp, checks: { database, temporal } };
}

/**
 * True when `call` resolved within `timeoutMs` milliseconds; never throws. The call is not
 * cancelled when the time runs out: it ends on its own (within its own time bound).
 */
async function answersWithin(call: () => Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([call(), timeout])
    .then(
      () => true,
      () => false,
    )
    .finally(() => clearTimeout(timer));
}

/**
 * True when PostgreSQL answered a `select 1` within `timeoutMs` milliseconds; never throws. The
 * query is not cancelled when the time runs out: it ends on its own.
 */
export function databaseAnswers(db: Db, timeoutMs: number): Promise<boolean> {
  return answersWithin(() => pingDb(db), timeoutMs);
}
