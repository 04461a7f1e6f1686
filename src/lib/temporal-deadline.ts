/**
 * Temporal calls that answer by their deadline (docs/operations.md#deadlines). The client's gRPC deadline does not cut
 * short the pause between two of the client's own retries of an unreachable server (seconds, at its backoff), so a
 * call with only a gRPC deadline can answer seconds after it.
 */
import { setMaxListeners } from 'node:events';
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
