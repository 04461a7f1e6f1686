/**
 * The process faults of a run (docs/simulation.md#process-faults), each drawn from the seed on streams of their own so
 * that the workload's draws do not move: the worker crashing mid-activity and a new one taking its task queue, an
 * activity attempt failed before it ran or after it ran (its answer lost), and the worker's database connections
 * refusing a statement before it is sent or dropping after it committed. The world (sim/world.ts) applies them; this
 * module only decides them and counts them.
 */
import type { Info } from '@temporalio/activity';
import { callDraws, draws } from './random';

/** The shares of each fault, per activity attempt or per statement (0 … 1). */
export interface ProcessFaultRates {
  /** An activity attempt failed (retryably) before the activity ran. */
  activityBefore: number;
  /** An activity attempt failed (retryably) after the activity ran: its answer lost. */
  activityAfter: number;
  /** A statement refused with a connection error before it is sent. */
  statementRefused: number;
  /** A statement's connection dropped after PostgreSQL answered it (committed, when outside a transaction). */
  statementDropped: number;
}

/** The rates the simulator runs with. */
export const PROCESS_FAULT_RATES: ProcessFaultRates = {
  activityBefore: 0.02,
  activityAfter: 0.02,
  statementRefused: 0.004,
  statementDropped: 0.004,
};

/** What happens to one activity attempt: nothing, a failure before it runs, or its answer lost after it ran. */
export type ActivityFault = 'before' | 'after' | undefined;

/** What happens to one statement: nothing, refused before it is sent, or its connection dropped after the answer. */
export type StatementFault = 'refused' | 'dropped' | undefined;

/** A run's process faults: the draws, and the counts for the seed's line. */
export interface ProcessFaults {
  /** The fault of the activity attempt `info` (non-local activities only; a local one is never failed here). */
  activity(info: Info): ActivityFault;
  /** The fault of the next statement of activity attempt `info` (the n-th such call about its object has its draw). */
  statement(info: Info): StatementFault;
  /**
   * Whether the worker running activity attempt `info` is to stop now (once per drawn restart moment): the driver is
   * sleeping on the test server (only then does the server skip the lost attempts' retry back-offs) and the attempt
   * was scheduled at or after the next drawn restart moment. `ran`: whether the attempt ran before the process
   * died (its work done, its answer lost) or not.
   */
  crash(info: Info): { ran: boolean } | undefined;
  /** Tells whether the driver is sleeping on the test server now (see {@link ProcessFaults.crash}). */
  sleeping(now: boolean): void;
  /**
   * Notes that attempt `info` ended without its answer reaching Temporal (a crash, a fault after it ran, or its own
   * error), so Temporal tries it again: `onLost` of {@link createProcessFaults} hears of each.
   */
  lost(info: Info): void;
  /** Adds one to the count `what`. */
  count(what: string): void;
  /** The counts by fault. */
  counts(): Record<string, number>;
}

/**
 * The first restart is 10 to 60 simulated minutes into the run (CI's short runs meet one), each later one 1 to 8
 * simulated hours after the one before.
 */
const FIRST_RESTART_MINUTES = [10, 60] as const;
const LATER_RESTART_MINUTES = [60, 480] as const;

/**
 * The process faults of seed `seed` for a run starting at `startMs` (simulated epoch milliseconds); `labels` are the
 * driver's labels of the run's objects, which key the draws of their activities (docs/simulation.md#reproducibility);
 * `onLost` hears of every attempt whose answer was lost (the run allows a webhook delivery's repeat for it).
 */
export function createProcessFaults(
  seed: number,
  startMs: number,
  labels: ReadonlyMap<string, string>,
  onLost: (info: Info) => void,
  rates: ProcessFaultRates = PROCESS_FAULT_RATES,
): ProcessFaults {
  const calls = callDraws(seed, labels);
  const restarts = draws(seed, 'process-faults:restarts');
  const minutes = ([from, to]: readonly [number, number]) => restarts.int(from, to) * 60_000;
  let nextRestartMs = startMs + minutes(FIRST_RESTART_MINUTES);
  let asleep = false;
  const tally: Record<string, number> = {};
  const count = (what: string) => void (tally[what] = (tally[what] ?? 0) + 1);
  /** The object an activity works on, by its workflow id (`payment:pay_…` → `pay_…`), else the activity's type. */
  const subject = (info: Info) => {
    const id = (info.workflowExecution?.workflowId ?? '').split(':')[1] ?? '';
    return labels.has(id) ? id : info.activityType;
  };
  return {
    activity(info) {
      if (info.isLocal) return undefined;
      const d = calls(subject(info), `activity-fault:${info.activityType}:${info.attempt}`);
      const fault = d.weighted<ActivityFault>([
        ['before', Math.round(rates.activityBefore * 10_000)],
        ['after', Math.round(rates.activityAfter * 10_000)],
        [undefined, Math.round((1 - rates.activityBefore - rates.activityAfter) * 10_000)],
      ]);
      if (fault) count(`activity attempts failed ${fault} they ran`);
      return fault;
    },
    statement(info) {
      const d = calls(subject(info), `statement-fault:${info.activityType}:${info.attempt}`);
      const fault = d.weighted<StatementFault>([
        ['refused', Math.round(rates.statementRefused * 10_000)],
        ['dropped', Math.round(rates.statementDropped * 10_000)],
        [undefined, Math.round((1 - rates.statementRefused - rates.statementDropped) * 10_000)],
      ]);
      if (fault) count(`statements ${fault}`);
      return fault;
    },
    crash(info) {
      if (!asleep || info.isLocal || info.currentAttemptScheduledTimestampMs < nextRestartMs) return undefined;
      nextRestartMs = info.currentAttemptScheduledTimestampMs + minutes(LATER_RESTART_MINUTES);
      count('worker restarts');
      return { ran: restarts.chance(0.5) };
    },
    sleeping: (now) => void (asleep = now),
    lost: onLost,
    count,
    counts: () => ({ ...tally }),
  };
}
