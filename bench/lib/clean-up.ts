/**
 * The figures' clean-up of the workflows they leave open (payments waiting on a provider that never answers, the
 * baselines' waiting workflows): terminated through the Temporal server, outside any side's cost, so that their
 * timers and polls do not load what is measured after them. Not part of the service: a terminated payment's row
 * stays `pending` in the read model of the figure's own merchant, which nothing after the figure reads.
 */
import type { Client } from '@temporalio/client';
import { waitUntil } from './context';
import { runClosedLoop } from './load';

/** Terminations in flight at once. */
const CONCURRENCY = 32;

/**
 * Terminates the workflows `ids` on `client`'s server with `reason`.
 * @throws Error when one could not be terminated (not found, already closed, the server failing)
 */
export async function terminateWorkflows(client: Client, ids: readonly string[], reason: string): Promise<void> {
  const run = await runClosedLoop(CONCURRENCY, { count: ids.length }, async (i) => {
    await client.workflow.getHandle(ids[i] as string).terminate(reason);
  });
  if (run.failed > 0) throw new Error(`${run.failed} workflows were not terminated: ${String(run.firstError)}`);
}

/**
 * Terminates every running workflow that the visibility `query` (e.g. `MerchantId = '…'`, without the status)
 * finds on `client`'s server, and waits until visibility counts none running.
 * @returns how many were terminated
 * @throws Error when some still run after 120 s
 */
export async function terminateRunning(client: Client, query: string, reason: string): Promise<number> {
  const running = `(${query}) AND ExecutionStatus = 'Running'`;
  let terminated = 0;
  await waitUntil(
    `the workflows of ${query} to end`,
    async () => {
      const ids: string[] = [];
      for await (const execution of client.workflow.list({ query: running })) ids.push(execution.workflowId);
      if (ids.length === 0) return (await client.workflow.count(running)).count === 0;
      // Visibility may still list a run that has just ended: its termination fails, and the next pass looks again.
      const run = await runClosedLoop(CONCURRENCY, { count: ids.length }, async (i) => {
        await client.workflow.getHandle(ids[i] as string).terminate(reason);
      });
      terminated += run.ok;
      return false;
    },
    120_000,
    250,
  );
  return terminated;
}
