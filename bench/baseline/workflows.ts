/**
 * Baseline workflows: what Temporal costs with nothing of ours in it. Each benchmark figure of the
 * service is divided by the same figure of one of these, run on the same server at the same time.
 *
 * Deterministic: only `@temporalio/workflow`, activity types and the shared definitions.
 */
import { condition, proxyActivities, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type * as activities from './activities';
import type { FairActivities } from './fair-create';
import {
  BASELINE_DELIVERY_TASK_QUEUE,
  fairCreateUpdate,
  initiateUpdate,
  releaseSignal,
  type FairPayment,
} from './shared';

const { noop } = proxyActivities<typeof activities>({ startToCloseTimeout: '10 seconds' });
const local = proxyLocalActivities<typeof activities>({ startToCloseTimeout: '10 seconds' });
const fair = proxyLocalActivities<FairActivities>({ startToCloseTimeout: '15 seconds' });
/** The same no-op, run by the deliveries' Worker on its own task queue (never eagerly: another queue's task). */
const delivery = proxyActivities<typeof activities>({
  startToCloseTimeout: '10 seconds',
  taskQueue: BASELINE_DELIVERY_TASK_QUEUE,
});

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

/**
 * Runs `count` no-op activities one after the other on the workflow's own task queue (figure c, started on the
 * deliveries' queue: the workflow and its one activity run there, as a webhook delivery's workflow and its attempt do).
 */
export async function noopActivitiesWorkflow(count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) await noop();
}

/**
 * Figure (b)'s baseline: `count - 1` no-op activities on the workflow's own task queue, then one on the deliveries'
 * queue (`BASELINE_DELIVERY_TASK_QUEUE`), which another Worker polls, as a settled payment's delivery runs apart from
 * its payment work. `count` is at least 1.
 */
export async function settlementBaselineWorkflow(count: number): Promise<void> {
  for (let i = 1; i < count; i += 1) await noop();
  await delivery.noop();
}

/** Waits for `releaseSignal` (figure d: an open workflow that holds nothing of ours). */
export async function signalWaitWorkflow(): Promise<void> {
  let released = false;
  setHandler(releaseSignal, () => {
    released = true;
  });
  await condition(() => released);
}
