/**
 * Temporal calls that answer by their deadline (docs/operations.md#deadlines). The client's gRPC deadline does not cut
 * short the pause between two of the client's own retries of an unreachable server (seconds, at its backoff), so a
 * call with only a gRPC deadline can answer seconds after it.
 */
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';

/** Thrown by {@link byDeadline} when the deadline passed before the call answered. */
export class DeadlinePassed extends Error {}

/**
 * Runs Temporal `call` with `deadline` (epoch milliseconds) as its gRPC deadline, and answers no later than the
 * deadline even while the client pauses between retries: the call is then cancelled.
 * @throws DeadlinePassed when the deadline passed first; the call's own error otherwise
 */
export async function byDeadline<T>(temporal: Client, deadline: number, call: () => Promise<T>): Promise<T> {
  const cancel = new AbortController();
  // The client listens on the signal once per attempt of each call; its retries of an unreachable server are many.
  setMaxListeners(64, cancel.signal);
  let timer: NodeJS.Timeout | undefined;
  const passed = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => {
        cancel.abort();
        reject(new DeadlinePassed('the deadline passed'));
      },
      Math.max(0, deadline - Date.now()),
    );
  });
  const answer = temporal.connection.withAbortSignal(cancel.signal, () => temporal.withDeadline(deadline, call));
  answer.catch(() => undefined); // settled after the deadline: nobody waits for it
  try {
    return await Promise.race([answer, passed]);
  } finally {
    clearTimeout(timer);
  }
}

/** How {@link updateWithStartWithin} ended: the Update's answer, or none in time with whether the workflow runs. */
export type UpdateWithStartOutcome<T> = { answered: T } | { answered?: undefined; running: boolean };

/**
 * A create's choreography (docs/payments.md#workflow, docs/payouts.md#workflow): sends `update` with the start of its
 * workflow (Update-with-Start) and waits for the Update's answer at most `waitMs` (milliseconds). With no answer by
 * then, the Update call is stopped (the workflow goes on without anyone waiting) and whether the workflow runs is
 * asked: at once when the server has it, else when the start answers, by `confirmMs` more at the latest
 * (docs/operations.md#deadlines).
 * @returns the Update's answer; or `running` true when the workflow runs, false when that could not be confirmed in
 *   time (it may or may not run)
 * @throws the Update's failure (e.g. `WorkflowUpdateFailedError` of the workflow's refusal), or the start's error
 */
export async function updateWithStartWithin<T>(
  temporal: Client,
  call: { workflowId: string; start: { workflowHandle(): Promise<unknown> }; waitMs: number; confirmMs: number },
  send: () => Promise<T>,
): Promise<UpdateWithStartOutcome<T>> {
  // Stopped once the answer no longer needs it: the client would otherwise poll the Update until a worker runs.
  const updateCall = new AbortController();
  const answer = temporal.connection.withAbortSignal(updateCall.signal, send);
  answer.catch(() => undefined); // settled after the wait: nobody waits for it
  const waited = new AbortController();
  try {
    const answered = await Promise.race([answer, sleep(call.waitMs, undefined, { signal: waited.signal })]);
    if (answered !== undefined) return { answered };
  } catch (error) {
    updateCall.abort();
    throw error;
  } finally {
    waited.abort();
  }
  try {
    return { running: await workflowRuns(temporal, call.start, call.workflowId, Date.now() + call.confirmMs) };
  } finally {
    updateCall.abort();
  }
}

/**
 * Whether workflow `workflowId` runs (or ran), by `deadline` (epoch milliseconds): at once when the server has it,
 * else when `start` answers.
 * @throws what the start threw (e.g. Temporal unreachable)
 */
async function workflowRuns(
  temporal: Client,
  start: { workflowHandle(): Promise<unknown> },
  workflowId: string,
  deadline: number,
): Promise<boolean> {
  try {
    await temporal.withDeadline(deadline, () => temporal.workflow.getHandle(workflowId).describe());
    return true;
  } catch {
    // Not there yet, or not readable: the start's own answer decides.
  }
  const timer = new AbortController();
  const started = start.workflowHandle().then(() => true);
  started.catch(() => undefined);
  try {
    return await Promise.race([started, sleep(Math.max(0, deadline - Date.now()), false, { signal: timer.signal })]);
  } finally {
    timer.abort();
  }
}
