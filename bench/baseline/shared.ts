/**
 * What the benchmark's client and its baseline worker share: the task queue and the signal that
 * ends a waiting workflow. The baselines run on their own task queue of the same Temporal server as
 * the service, so both sides pay the same server.
 */
import { defineSignal, defineUpdate } from '@temporalio/workflow';

/** Task queue of the baseline workflows (never `payments`). */
export const BASELINE_TASK_QUEUE = 'bench-baseline';

/**
 * Task queue of the baseline's deliveries, served by a Worker of its own in the baseline worker process, as the
 * service's webhook deliveries run on `payments-webhooks` beside `payments` (docs/webhooks.md#isolation): figure (b)'s
 * delivery activity and figure (c)'s one-activity workflows.
 */
export const BASELINE_DELIVERY_TASK_QUEUE = `${BASELINE_TASK_QUEUE}-deliveries`;

/** Ends `signalWaitWorkflow`. */
export const releaseSignal = defineSignal('release');

/**
 * The update `updateWithStartWorkflow` answers once its one local activity ran (the bare Temporal
 * cost of a create that waits for its first step, reported beside figure a). Returns the string `initiated`.
 */
export const initiateUpdate = defineUpdate<string>('initiate');

/**
 * The payment the fair baseline of figure (a) records (bench/baseline/fair-create.ts): amount in minor units, times
 * ISO 8601; `providerReference` once the simulator answered.
 */
export interface FairPayment {
  id: string;
  merchantId: string;
  environment: 'sandbox' | 'live';
  amount: number;
  currency: string;
  paymentMethod: string;
  provider: string;
  customerPhone: string | null;
  status: 'pending';
  providerReference: string | null;
  expiresAt: string;
  createdAt: string;
}

/** The update `fairCreateWorkflow` answers with the recorded payment, once its one local activity ran. */
export const fairCreateUpdate = defineUpdate<FairPayment>('fairCreate');
