/**
 * Baseline workflows: what Temporal costs with nothing of ours in it. Each benchmark figure of the
 * service is divided by the same figure of one of these, run on the same server at the same time.
 *
 * Deterministic: only `@temporalio/workflow`, activity types and the shared definitions.
 */
import { condition, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type * as activities from './activities';
import { initiateUpdate, releaseSignal } from './shared';

const { noop } = proxyActivities<typeof activities>({ startToCloseTimeout: '10 seconds' });
const local = proxyLocalActivities<typeof activities>({ startToCloseTimeout: '10 seconds' });

/**
 * Answers `initiateUpdate` after one no-op local activity, then ends: started with Update-with-Start,
 * it is the least a create costs Temporal when the caller waits for the workflow's first step (figure a).
 */
export async function updateWithStartWorkflow(): Promise<void> {
  let initiated = false;
  setHandler(initiateUpdate, async () => {
    await local.noop();
    initiated = true;
    return 'initiated';
  });
  await condition(() => initiated);
}

/** Runs `count` no-op activities one after the other (figures b and c). */
export async function noopActivitiesWorkflow(count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) await noop();
}

/** Waits for `releaseSignal` (figure d: an open workflow that holds nothing of ours). */
export async function signalWaitWorkflow(): Promise<void> {
  let released = false;
  setHandler(releaseSignal, () => {
    released = true;
  });
  await condition(() => released);
}
