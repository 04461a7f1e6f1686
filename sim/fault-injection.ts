/**
 * Where the run's process faults (sim/faults.ts, docs/simulation.md#process-faults) reach the simulator's worker: a
 * wrapper around each of its activities (a crash of the worker mid-activity, an attempt failed before or after it
 * ran) and a wrapper around each PostgreSQL connection of its pool (a statement refused, a connection dropped after
 * the answer). Nothing here reaches the service: the service's activities and its `createDb` are used as they are.
 */
import { activityInfo, Context, type Info } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../src/db/knex';
import type { ProcessFaults } from './faults';

/** The failure type of an attempt failed by the simulator (retryable: no activity option lists it). */
export const SIMULATED_FAULT = 'SimulatedProcessFault';

/** A worker process as the faults see it: whether it crashed. */
export interface WorkerProcess {
  crashed: boolean;
}

/** The attempt now running, or undefined outside an activity (the driver's own statements). */
function currentAttempt(): Info | undefined {
  try {
    return activityInfo();
  } catch {
    return undefined;
  }
}

/**
 * The end of an attempt whose worker stopped under it: its answer never comes, and the attempt fails as the SDK fails
 * every attempt still running when its worker shuts down (a `CancelledFailure`, `WORKER_SHUTDOWN`), so that Temporal
 * tries it again at once instead of after its time-out (docs/simulation.md#process-faults says why).
 */
const stopped = async (): Promise<never> => {
  await Context.current().cancelled;
  throw new Error('unreachable: cancelled only rejects');
};

/**
 * `activities` (every function of the worker's activity object) with the run's process faults, `faults()` at each
 * call (none: the activity as it is). A local activity is left alone: its failures would be ones the real system
 * cannot produce (a local activity's retries are the worker's own, inside its workflow task), and the workflow worker
 * that runs them is never stopped. For a non-local attempt:
 * - on a worker that stopped (`worker.crashed`), the answer is lost: the attempt ends as the SDK ends the attempts of
 *   a worker shutting down;
 * - when `faults().crash` says the worker crashes now, `crash(worker)` and the attempt's answer is lost, the attempt
 *   having run or not;
 * - else `faults().activity` may fail it (retryably) before it runs, or after it ran (its answer lost).
 * Each attempt that ran and whose answer was lost, or that failed after it started, is told to `faults().lost`.
 */
export function withProcessFaults<T extends object>(
  activities: T,
  faults: () => ProcessFaults | undefined,
  worker: WorkerProcess,
  crash: (worker: WorkerProcess) => void,
): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, activity] of Object.entries(activities)) {
    if (typeof activity !== 'function') {
      wrapped[name] = activity;
      continue;
    }
    const run = activity as (...args: unknown[]) => Promise<unknown>;
    wrapped[name] = async (...args: unknown[]): Promise<unknown> => {
      const f = faults();
      const info = currentAttempt();
      if (!f || !info || info.isLocal) return run(...args);
      if (worker.crashed) {
        f.count('attempts given to a crashed worker');
        return stopped();
      }
      const crashing = f.crash(info);
      if (crashing) {
        crash(worker);
        if (crashing.ran) {
          await run(...args).catch(() => undefined);
          f.lost(info);
        }
        return stopped();
      }
      const fault = f.activity(info);
      if (fault === 'before')
        throw ApplicationFailure.retryable('simulated: the attempt failed before it ran', SIMULATED_FAULT);
      let result: unknown;
      try {
        result = await run(...args);
      } catch (error) {
        f.lost(info);
        if (worker.crashed) return stopped();
        throw error;
      }
      if (worker.crashed) {
        f.count('attempts lost in a crash after they ran');
        f.lost(info);
        return stopped();
      }
      if (fault === 'after') {
        f.lost(info);
        throw ApplicationFailure.retryable('simulated: the attempt ran, and its answer was lost', SIMULATED_FAULT);
      }
      return result;
    };
  }
  return wrapped as T;
}

/** A pg connection as knex's pool holds it: its `query(config, callback)`, and `end()`, which closes it. */
interface Connection {
  query: (config: unknown, ...rest: unknown[]) => unknown;
  end(): Promise<void>;
}

/**
 * Gives every connection `db`'s pool opens (the simulator's worker's pool: pg clients, as knex's pool creates them)
 * the statement faults of `faults()` (none: no fault), for statements run inside an activity only (the driver's
 * checks share the pool and get none). Each fault is a connection lost, as a real one is lost: the connection is
 * closed, so PostgreSQL rolls back a transaction it held open and the pool opens a new one for the next statement
 * (node-postgres emits `end`, which knex marks the connection disposed by, before the statement's error is answered).
 * A refused statement is never sent and fails with a reset connection (`ECONNRESET`); a dropped one is sent and
 * answered, then fails as node-postgres fails a connection that ended (`Connection terminated unexpectedly`): outside
 * a transaction, and for a transaction's `COMMIT`, its work is committed and the answer lost; inside one (its `BEGIN`
 * too), the transaction is rolled back. Both are what src/lib/outage.ts takes for a lost database, as a real
 * connection error is. `ROLLBACK` is left alone.
 */
export function faultStatements(db: Db, faults: () => ProcessFaults | undefined): void {
  const pool = (db.client as { pool?: { on(event: 'createSuccess', f: (id: number, c: object) => void): void } }).pool;
  if (!pool) throw new Error("the worker's knex has no pool to fault");
  pool.on('createSuccess', (_id, created) => {
    const connection = created as Connection;
    const query = connection.query.bind(connection);
    /** Closes the connection, then answers `error`: the pool never hands out a connection that is closing. */
    const lose = (answer: (error: Error) => void, error: Error) =>
      void connection.end().then(
        () => answer(error),
        () => answer(error),
      );
    connection.query = (config: unknown, ...rest: unknown[]) => {
      const callback = rest[rest.length - 1];
      const text = (config as { text?: unknown } | null)?.text;
      const f = faults();
      const info = f && currentAttempt();
      if (!f || !info || typeof callback !== 'function' || typeof text !== 'string' || /^\s*rollback/i.test(text))
        return query(config, ...rest);
      const answer = callback as (error: Error | null, response?: unknown) => void;
      const fault = f.statement(info);
      if (fault === 'refused') {
        lose(answer, Object.assign(new Error('write ECONNRESET (simulated)'), { code: 'ECONNRESET' }));
        return undefined;
      }
      if (fault === 'dropped')
        return query(config, (error: Error | null) =>
          lose(answer, error ?? new Error('Connection terminated unexpectedly')),
        );
      return query(config, ...rest);
    };
  });
}
