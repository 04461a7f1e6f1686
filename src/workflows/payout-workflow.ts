/**
 * `payoutWorkflow` (docs/payouts.md#workflow): one per payout, id `payout:{po_id}`, started by the API's create (or
 * the automatic payout's schedule) with the payout to store: its first step stores it `pending` with its reservation
 * (the API writes no payout row), or answers the create's Update with the refusal. It carries out the table of
 * `domain/payout-table.ts` and nothing else: each message hands off to a method of {@link PayoutRun}, which commits
 * the table's rows and runs their effects as activities, and the main loop sends the payout once, asks about it until
 * the provider says, and watches a paid one for a return:
 * - the `sendPayout` Update (the create's wait) answers once the first send was decided, or with the payout `pending`
 *   after PROVIDER_ANSWER_WAIT_MS while the rail has not answered;
 * - `cancelPayout` applies while the payout is `pending` and no send is under way (the table refuses it otherwise);
 * - the `askPayoutRail` signal (an operator's "ask again") ends the current wait.
 *
 * Deterministic: only `@temporalio/workflow`, domain code, messages and the run are imported.
 */
import { ParentClosePolicy, proxyActivities, setHandler, startChild, workflowInfo } from '@temporalio/workflow';
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
  type PayoutWorkflowInput,
} from './payout-messages';
import { payoutSearchAttributes } from './messages';
import { RECORD_OPTIONS } from './activity-options';
import { carryOut } from './main-loop';
import { PayoutRun } from './payout-run';

const records = proxyActivities<PayoutActivities>(RECORD_OPTIONS);

/**
 * Stores (for a create), sends and watches one payout (see the module's comment).
 * @returns the payout as it ended; null when its create stored none (the balance did not hold it)
 */
export async function payoutWorkflow(input: PayoutWorkflowInput): Promise<PayoutSnapshot | null> {
  const run = new PayoutRun(input);
  setHandler(getPayoutQuery, () => run.snapshot());
  setHandler(askPayoutRailSignal, () => run.ask());
  setHandler(sendPayoutUpdate, () => run.sent());
  setHandler(cancelPayoutUpdate, () => run.cancel());
  return carryOut(run);
}

/**
 * `automaticPayoutWorkflow` (docs/payouts.md#automatic-payouts): started by a merchant's Temporal Schedule; starts the
 * `payoutWorkflow` of the payout of what the available balance holds above the merchant's minimum, which stores it as
 * its first step and outlives this one. Returns the payout id, or null when there was nothing to pay out.
 */
export async function automaticPayoutWorkflow(input: AutomaticPayoutInput): Promise<string | null> {
  const create = await records.automaticPayoutDraft({ ...input, seed: workflowInfo().workflowId });
  if (!create) return null;
  const payoutId = create.payout.id;
  try {
    await startChild(payoutWorkflow, {
      workflowId: payoutWorkflowId(payoutId),
      args: [{ payoutId, create }],
      // A child does not take its parent's search attributes: the payout's own, as every other start sets them.
      typedSearchAttributes: payoutSearchAttributes({ id: payoutId, ...input }),
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
  return payoutId;
}
