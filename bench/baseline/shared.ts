/**
 * What the benchmark's client and its baseline worker share: the task queue and the signal that
 * ends a waiting workflow. The baselines run on their own task queue of the same Temporal server as
 * the service, so both sides pay the same server.
 */
import { defineSignal, defineUpdate } from '@temporalio/workflow';

/** Task queue of the baseline workflows (never `payments`). */
export const BASELINE_TASK_QUEUE = 'bench-baseline';

/** Ends `signalWaitWorkflow`. */
export const releaseSignal = defineSignal('release');

/**
 * The update `updateWithStartWorkflow` answers once its one local activity ran (figure a's
 * baseline: what a create costs Temporal at the least, since the service's create waits for the
 * provider through Update-with-Start). Returns the string `initiated`.
 */
export const initiateUpdate = defineUpdate<string>('initiate');
