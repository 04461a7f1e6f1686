/**
 * Temporal calls that answer by their deadline (docs/operations.md#deadlines). The client's gRPC deadline does not cut
 * short the pause between two of the client's own retries of an unreachable server (seconds, at its backoff), so a
 * call with only a gRPC deadline can answer seconds after it.
 */
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
  type WithStartWorkflowOperation,
} from '@temporalio/client';
import type { UpdateDefinition, Workflow } from '@temporalio/common';
import type { Config } from '../config';
import { isOutage } from './outage';

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

/**
 * Thrown by {@link updateWithin} when the Update got no answer: `outcomeKnown` false when the deadline passed or
 * Temporal was out of reach (the server may hold the Update and carry it out later: retry with the same Update id to
 * learn its outcome), true when every send failed otherwise (nothing was decided).
 */
export class UpdateUnanswered extends Error {
  constructor(readonly outcomeKnown: boolean) {
    super(outcomeKnown ? 'the Update was not taken' : 'the Update did not answer by its deadline');
  }
}

/**
 * How often an Update is sent while Temporal is out of reach before its outcome is unknown: each send already retries
 * inside the client up to the shared deadline.
 */
const OUTAGE_UPDATE_ATTEMPTS = 3;
/**
 * How often an Update the workflow never took is sent again, within the shared deadline. A run ends as soon as its
 * last handler finishes, so under a burst of Updates (docs/payments.md#refunds-happen-once) an Update can meet a run
 * that is closing several times in a row; each send re-opens the workflow. Bounded (about 8.5 s of pauses) so that an
 * error that keeps coming answers rather than waiting for ever.
 */
const MAX_UPDATE_ATTEMPTS = 20;
/**
 * How long one send of an Update waits for its outcome before it is sent again with the same id, within the shared
 * deadline (milliseconds): an Update lost with a workflow task the server dropped is otherwise waited on until the
 * deadline (docs/limits.md#update-deadlines). A workflow that has the Update answers the second send with its outcome.
 */
const UPDATE_ATTEMPT_MS = 5_000;
/** The gRPC deadline of a send can fire a little before its own timer: a failure this close counts as ran out (ms). */
const ATTEMPT_BOUND_SLACK_MS = 250;
/** The longest pause (milliseconds) between two sends of an Update; the pause grows by 100 ms per send. */
const MAX_UPDATE_PAUSE_MS = 500;

/**
 * A change's choreography (docs/limits.md#update-deadlines): sends an Update (`send`, the same Update id each time,
 * with the start of its workflow where a closed run must be re-opened) until it answers, all by `deadline` (epoch
 * milliseconds). A send that does not answer within `attemptMs` (milliseconds, 5 s unless given) is sent again, since
 * an Update lost with a dropped workflow task is otherwise waited on until the deadline; a send that fails otherwise
 * is sent again after a pause growing by 100 ms (at most 500 ms), at most 20 times (3 while Temporal is out of reach).
 * Before each send after the first, `carriedOut` may find the Update's result already done (a run that took it may
 * have closed, and a new run would take it again).
 * @returns the Update's answer, or what `carriedOut` found
 * @throws what `refusal` makes of a failure that is the workflow's decision (thrown at once); UpdateUnanswered when no
 *   answer came (`outcomeKnown` false at the deadline or with Temporal out of reach, true otherwise)
 */
export async function updateWithin<T>(
  temporal: Client,
  call: {
    deadline: number;
    attemptMs?: number;
    refusal: (error: unknown) => Error | undefined;
    carriedOut?: () => Promise<T | undefined>;
  },
  send: () => Promise<T>,
): Promise<T> {
  const { deadline } = call;
  for (let attempt = 1; ; attempt += 1) {
    const done = attempt > 1 ? await call.carriedOut?.() : undefined;
    if (done !== undefined) return done;
    const attemptDeadline = Math.min(deadline, Date.now() + (call.attemptMs ?? UPDATE_ATTEMPT_MS));
    try {
      return await byDeadline(temporal, attemptDeadline, send);
    } catch (error) {
      const refused = call.refusal(error);
      if (refused) throw refused;
      // No answer within the attempt: the Update may have been lost with a workflow task the server dropped, and its
      // call would wait for an outcome that never comes. Sent again with the same id: a run that has it answers it.
      // (Cancelled at the attempt's bound, the call may answer first with its own cancellation.)
      const ranOut = error instanceof DeadlinePassed || error instanceof WorkflowUpdateRPCTimeoutOrCancelledError;
      if (ranOut && attemptDeadline < deadline && Date.now() >= attemptDeadline - ATTEMPT_BOUND_SLACK_MS) continue;
      const pause = Math.min(100 * attempt, MAX_UPDATE_PAUSE_MS);
      if (ranOut || Date.now() + pause >= deadline) throw new UpdateUnanswered(false);
      // Temporal out of reach may have kept the Update before the connection failed: its outcome is unknown.
      if (isOutage(error)) {
        if (attempt >= OUTAGE_UPDATE_ATTEMPTS) throw new UpdateUnanswered(false);
      } else if (attempt >= MAX_UPDATE_ATTEMPTS) throw new UpdateUnanswered(true);
      await sleep(pause);
    }
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
 * A money object's create (payments, payouts, checkout sessions): {@link updateWithStartWithin} of the Update
 * `update` with id `updateId` sent with `start` (whose options name the workflow), waiting CREATE_WAIT_MS for its
 * answer and TEMPORAL_CALL_TIMEOUT_MS more to confirm that the workflow runs (milliseconds,
 * docs/operations.md#deadlines).
 * @returns and @throws as {@link updateWithStartWithin}
 */
export function createWithStart<W extends Workflow, T>(
  temporal: Client,
  config: Pick<Config, 'CREATE_WAIT_MS' | 'TEMPORAL_CALL_TIMEOUT_MS'>,
  start: WithStartWorkflowOperation<W>,
  update: UpdateDefinition<T, []>,
  updateId: string,
): Promise<UpdateWithStartOutcome<T>> {
  return updateWithStartWithin(
    temporal,
    {
      workflowId: start.options.workflowId,
      start,
      waitMs: config.CREATE_WAIT_MS,
      confirmMs: config.TEMPORAL_CALL_TIMEOUT_MS,
    },
    () => temporal.workflow.executeUpdateWithStart(update, { updateId, startWorkflowOperation: start }),
  );
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
