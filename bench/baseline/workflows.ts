/**
 * Baseline workflows: what Temporal costs with nothing of ours in it. Each benchmark figure of the
 * service is divided by the same figure of one of these, run on the same server at the same time.
 *
 * Deterministic: only `@temporalio/workflow`, activity types and the shared definitions.
 */
import {
  ActivityFailure,
  CancellationScope,
  condition,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import { nextPollDelayMs } from '../../src/domain/payment';
import { pollOptions } from '../../src/workflows/activity-options';
import type * as activities from './activities';
import type { FairActivities } from './fair-create';
import {
  BASELINE_DELIVERY_TASK_QUEUE,
  fairCreateUpdate,
  initiateUpdate,
  releaseSignal,
  type FairPayment,
} from './shared';

const { noop, post } = proxyActivities<typeof activities>({ startToCloseTimeout: '10 seconds' });
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
 * `fairCreateUpdate` runs one local activity that records `payment` and asks the provider simulator, and answers the
 * row. The payment then waits for its provider as the service's does (docs/payments.md#workflow), on the service's
 * own schedule: a timer of the first poll delay (2 s), then `pollSimulator` with the service's poll options (its
 * retries are the later polls, 4 s doubling to 60 s, until `expiresAt`), cut short by `releaseSignal`. The simulator
 * always answers `pending`, so the run stays open until it is released, terminated, or its polls end at expiry.
 */
export async function fairCreateWorkflow(payment: FairPayment): Promise<FairPayment> {
  let recorded: FairPayment | undefined;
  let released = false;
  setHandler(fairCreateUpdate, async () => {
    recorded ??= await fair.recordAndInitiate(payment);
    return recorded;
  });
  setHandler(releaseSignal, () => {
    released = true;
  });
  await condition(() => recorded !== undefined);
  const answered = recorded as FairPayment;
  const expiresAtMs = Date.parse(answered.expiresAt);
  const firstDelayMs = nextPollDelayMs(undefined);
  if (await condition(() => released, Math.max(1, Math.min(firstDelayMs, expiresAtMs - Date.now())))) return answered;
  if (Date.now() >= expiresAtMs) return answered;
  const { pollSimulator } = proxyActivities<FairActivities>(
    pollOptions(nextPollDelayMs(firstDelayMs), expiresAtMs - Date.now()),
  );
  const scope = new CancellationScope();
  try {
    await scope.run(() =>
      Promise.race([pollSimulator(answered.providerReference as string), condition(() => released)]),
    );
  } catch (error) {
    // The polls ended at expiry without an answer, as the service's do before it expires the payment.
    if (!(error instanceof ActivityFailure)) throw error;
  } finally {
    scope.cancel();
  }
  return answered;
}

/**
 * Figure (c)'s baseline delivery: one `post` of `body` (JSON text) to `url` on the workflow's own task queue
 * (started on the deliveries' queue: the workflow and its one activity run there, as a webhook delivery's workflow
 * and its attempt do).
 */
export async function postOnceWorkflow(url: string, body: string): Promise<void> {
  await post(url, body);
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
