/**
 * `payoutWorkflow` (docs/payouts.md#workflow): one per payout, id `payout:{po_id}`, started by the API after the payout
 * was stored `pending` with its reservation. It carries out the table of `domain/payout-table.ts` and nothing else:
 * each message hands off to a method of {@link PayoutRun}, which commits the table's rows and runs their effects as
 * activities, and the main loop sends the payout once, asks about it until the provider says, and watches a paid one
 * for a return:
 * - the `sendPayout` Update (the create's wait) answers once the first send was decided, or with the payout `pending`
 *   after PROVIDER_ANSWER_WAIT_MS while the rail has not answered;
 * - `cancelPayout` applies while the payout is `pending` and no send is under way (the table refuses it otherwise);
 * - the `askPayoutRail` signal (an operator's "ask again") ends the current wait.
 *
 * Deterministic: only `@temporalio/workflow`, domain code, messages and the run are imported.
 */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  ParentClosePolicy,
  proxyActivities,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { PayoutSnapshot } from '../domain/payout';
import {
  askPayoutRailSignal,
  cancelPayoutUpdate,
  getPayoutQuery,
  payoutWorkflowId,
  sendPayoutUpdate,
  type AutomaticPayoutInput,
  type PayoutActivities,
  type PayoutSweepInput,
  type PayoutWorkflowInput,
} from './payout-messages';
import { payoutSearchAttributes } from './messages';
import { RECORD_OPTIONS } from './activity-options';
import { PayoutRun } from './payout-run';

const records = proxyActivities<PayoutActivities>(RECORD_OPTIONS);

/** Sends and watches one payout (see the module's comment); returns it as it ended. */
export async function payoutWorkflow(input: PayoutWorkflowInput): Promise<PayoutSnapshot> {
  const run = new PayoutRun(input);
  setHandler(getPayoutQuery, () => run.snapshot());
  setHandler(askPayoutRailSignal, () => run.ask());
  setHandler(sendPayoutUpdate, () => run.sent());
  setHandler(cancelPayoutUpdate, () => run.cancel());

  await run.begin();
  for (;;) {
    if (run.shouldContinueAsNew()) {
      await condition(allHandlersFinished);
      return continueAsNew<typeof payoutWorkflow>(run.continuation());
    }
    if (await run.step()) continue;
    await condition(allHandlersFinished);
    if (run.done()) return run.result();
  }
}

/**
 * `automaticPayoutWorkflow` (docs/payouts.md#automatic-payouts): started by a merchant's Temporal Schedule; creates the
 * payout of what the available balance holds above the merchant's minimum and starts its `payoutWorkflow`, which
 * outlives this one. Returns the payout id, or null when there was nothing to pay out.
 */
export async function automaticPayoutWorkflow(input: AutomaticPayoutInput): Promise<string | null> {
  const payoutId = await records.createAutomaticPayout({ ...input, seed: workflowInfo().workflowId });
  if (!payoutId) return null;
  try {
    await startChild(payoutWorkflow, {
      workflowId: payoutWorkflowId(payoutId),
      args: [{ payoutId }],
      // A child does not take its parent's search attributes: the payout's own, as every other start sets them.
      typedSearchAttributes: payoutSearchAttributes({ id: payoutId, ...input }),
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return payoutId;
}

/** Payouts the sweeper starts in one run at most; the next minute's run takes the rest. */
const SWEEP_LIMIT = 100;

/**
 * `payoutSweepWorkflow` (docs/payouts.md#workflow): run every minute by the Temporal Schedule `payout-sweeper`; starts
 * the workflow of each payout stored `pending` more than `graceSeconds` ago whose workflow never started (its API
 * stopped between storing it and starting it). Returns the ids of the payouts it started.
 */
export async function payoutSweepWorkflow(input: PayoutSweepInput): Promise<string[]> {
  return records.startStrandedPayouts({ graceSeconds: input.graceSeconds, limit: SWEEP_LIMIT });
}
