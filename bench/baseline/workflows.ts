/**
 * Baseline workflows: what Temporal costs with nothing of ours in it. Each benchmark figure of the
 * service is divided by the same figure of one of these, run on the same server at the same time.
 *
 * Deterministic: only `@temporalio/workflow`, activity types and the shared definitions.
 */
import { condition, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type * as activities from './activities';
import type { FairActivities } from './fair-create';
import { fairCreateUpdate, initiateUpdate, releaseSignal, type FairPayment } from './shared';

const { noop } = proxyActivities<typeof activities>({ startToCloseTimeout: '10 seconds' });
const local = proxyLocalActivities<typeof activities>({ startToCloseTimeout: '10 seconds' });
const fair = proxyLocalActivities<FairActivities>({ startToCloseTimeout: '15 seconds' });

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

/**
 * The fair baseline of figure (a) (docs/capacity.md#the-fair-baseline): started with Update-with-Start, its
 * `fairCreateUpdate` runs one local activity that records `payment` and asks the provider simulator, answers the
 * row, and the run ends.
 */
export async function fairCreateWorkflow(payment: FairPayment): Promise<FairPayment> {
  let recorded: FairPayment | undefined;
  setHandler(fairCreateUpdate, async () => {
    recorded ??= await fair.recordAndInitiate(payment);
    return recorded;
  });
  await condition(() => recorded !== undefined);
  return recorded as FairPayment;
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
