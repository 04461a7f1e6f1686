/**
 * `payoutWorkflow` (docs/payouts.md#workflow): one per payout, id `payout:{po_id}`, started by the API after the payout
 * was stored `pending` with its reservation. It sends the payout on its rail once, asks about it until the provider
 * says, and records each state with its journals and event:
 * - send: `paid`, `in_transit` (the provider has it) and `unknown` (it may have it: recorded `in_transit` and asked
 *   about, never sent again) or `refused` (`failed`, funds back); a rail that is down keeps the payout `pending` with a
 *   reason, and it is sent again when the rail is back (docs/payouts.md#rails);
 * - in transit: the status call, 2 s doubling to 60 s, until `paid`, `refused` or `returned`; `not_received` (the
 *   provider has no such transfer) sends again under the same reference;
 * - paid: watched for a return for RETURN_WATCH_MS;
 * - the `sendPayout` Update (the create's wait) answers once the first send was decided, or with the payout `pending`
 *   after PROVIDER_ANSWER_WAIT_MS while the rail has not answered; `cancelPayout` applies while
 *   the payout is `pending` and no send is under way.
 * Sends and cancels run one at a time, so a cancelled payout is never sent and a sent one never cancelled. The
 * `askPayoutRail` signal (an operator's "ask again") ends the current wait, so the next status call (or, for a payout
 * whose rail was down, the next send) happens now.
 *
 * Deterministic: only `@temporalio/workflow`, domain code and messages are imported.
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  ParentClosePolicy,
  proxyActivities,
  setHandler,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { FINAL_PAYOUT_STATUSES, notCancellablePayoutMessage, type PayoutSnapshot } from '../domain/payout';
import {
  askPayoutRailSignal,
  cancelPayoutUpdate,
  getPayoutQuery,
  payoutWorkflowId,
  sendPayoutUpdate,
  type AutomaticPayoutInput,
  type PayoutActivities,
  type PayoutRailResult,
  type PayoutSweepInput,
  type PayoutWorkflowInput,
} from './payout-messages';
import { payoutSearchAttributes, PROVIDER_ANSWER_WAIT_MS } from './messages';
import { PROVIDER_OPTIONS, RECORD_OPTIONS } from './activity-options';

/** First and longest wait between status calls of a payout in transit (ms). */
const STATUS_FIRST_MS = 2_000;
const STATUS_MAX_MS = 60_000;
/** First wait before sending again to a rail that is down, when it does not say how long, and the longest (ms). */
const DOWN_FIRST_MS = 5_000;
const DOWN_MAX_MS = 300_000;
/** How long a paid payout is watched for a return (3 days, ms), asked 5 s doubling to an hour apart. */
export const RETURN_WATCH_MS = 3 * 86_400_000;
const RETURN_FIRST_MS = 5_000;
const RETURN_MAX_MS = 3_600_000;
/** History length past which the workflow continues as new (its state is the stored payout). */
const HISTORY_EVENTS_BEFORE_CONTINUE = 2_000;

const records = proxyActivities<PayoutActivities>(RECORD_OPTIONS);
const rails = proxyActivities<PayoutActivities>(PROVIDER_OPTIONS);

const nowIso = () => new Date(Date.now()).toISOString();

/** Sends and watches one payout (see the module's comment); returns it as it ended. */
export async function payoutWorkflow(input: PayoutWorkflowInput): Promise<PayoutSnapshot> {
  let payout: PayoutSnapshot | undefined;
  /** True once the first send was decided (or the payout left `pending` otherwise): the create's wait ends. */
  let answered = false;
  let busy = false;
  let woken = false;
  /** An operator asked for the next turn now (askPayoutRailSignal). */
  let askedNow = false;

  async function exclusive<T>(run: () => Promise<T>): Promise<T> {
    await condition(() => !busy);
    busy = true;
    try {
      return await run();
    } finally {
      busy = false;
    }
  }

  setHandler(getPayoutQuery, () => payout);
  setHandler(askPayoutRailSignal, () => {
    askedNow = true;
  });
  setHandler(sendPayoutUpdate, async () => {
    // The rail's first word, or after PROVIDER_ANSWER_WAIT_MS the payout as it stands (`pending`): the send goes on,
    // and the payout's events say the rest (docs/payouts.md#workflow).
    await condition(() => answered && payout !== undefined, PROVIDER_ANSWER_WAIT_MS);
    await condition(() => payout !== undefined);
    return payout as PayoutSnapshot;
  });
  setHandler(cancelPayoutUpdate, async () => {
    await condition(() => payout !== undefined);
    return exclusive(async () => {
      const current = payout as PayoutSnapshot;
      if (current.status !== 'pending')
        throw ApplicationFailure.create({
          type: 'payout_not_cancellable',
          message: notCancellablePayoutMessage(current.status),
          nonRetryable: true,
        });
      payout = await records.recordPayout({ payoutId: input.payoutId, status: 'cancelled', at: nowIso() });
      answered = true;
      woken = true;
      return payout;
    });
  });

  /** Records what the rail answered; returns whether it needs asking again. */
  async function apply(result: PayoutRailResult & { kind: 'answer' }): Promise<void> {
    const base = { payoutId: input.payoutId, at: nowIso(), providerReference: result.providerReference };
    switch (result.outcome) {
      case 'paid':
        payout = await records.recordPayout({ ...base, status: 'paid' });
        return;
      case 'refused':
        payout = await records.recordPayout({
          ...base,
          status: 'failed',
          failureCode: result.failureCode ?? 'declined',
          failureMessage: result.failureMessage ?? 'the provider refused the payout',
        });
        return;
      case 'returned':
        if (payout?.status !== 'paid') payout = await records.recordPayout({ ...base, status: 'paid' });
        payout = await records.recordPayout({ ...base, at: nowIso(), status: 'returned' });
        return;
      case 'in_transit':
      case 'unknown':
        if (payout?.status === 'pending') payout = await records.recordPayout({ ...base, status: 'in_transit' });
        return;
      case 'not_received':
        return;
    }
  }

  /** Sleeps `ms` unless a cancel or an operator's ask wakes it (an ask made meanwhile ends the next sleep at once). */
  async function pause(ms: number): Promise<void> {
    woken = false;
    await condition(() => woken || askedNow, ms);
    askedNow = false;
  }

  payout = await records.loadPayout(input.payoutId);
  if (payout.status !== 'pending') answered = true;
  let downDelay = DOWN_FIRST_MS;
  let statusDelay = STATUS_FIRST_MS;
  let returnDelay = RETURN_FIRST_MS;
  let resend = false;
  for (;;) {
    if (workflowInfo().historyLength > HISTORY_EVENTS_BEFORE_CONTINUE && !busy) await continueAsNew(input);
    const current: PayoutSnapshot = payout;
    if (FINAL_PAYOUT_STATUSES.includes(current.status)) break;
    if (current.status === 'pending' || resend) {
      resend = false;
      const result = await exclusive(async () => {
        if (payout?.status !== 'pending' && payout?.status !== 'in_transit') return undefined;
        return rails.sendPayoutToRail(input.payoutId);
      });
      if (!result) continue;
      if (result.kind === 'unavailable') {
        if (payout.status === 'pending' && payout.pendingReason !== result.reason)
          payout = await records.recordPayout({
            payoutId: input.payoutId,
            status: 'pending',
            at: nowIso(),
            pendingReason: result.reason,
          });
        answered = true;
        await pause(result.retryAfterMs ?? downDelay);
        downDelay = Math.min(downDelay * 2, DOWN_MAX_MS);
        continue;
      }
      await apply(result);
      answered = true;
      continue;
    }
    if (current.status === 'in_transit') {
      await pause(statusDelay);
      statusDelay = Math.min(statusDelay * 2, STATUS_MAX_MS);
      const result = await rails.askPayoutRail(input.payoutId, current.providerReference ?? '');
      if (result.kind === 'answer') {
        if (result.outcome === 'not_received') resend = true;
        else await apply(result);
      }
      continue;
    }
    // paid: watched for a return for RETURN_WATCH_MS from when it was paid.
    const paidAt = Date.parse(current.paidAt ?? current.updatedAt);
    if (Date.now() - paidAt >= RETURN_WATCH_MS) break;
    await pause(Math.min(returnDelay, paidAt + RETURN_WATCH_MS - Date.now()));
    returnDelay = Math.min(returnDelay * 2, RETURN_MAX_MS);
    const result = await rails.askPayoutRail(input.payoutId, current.providerReference ?? '');
    if (result.kind === 'answer' && result.outcome === 'returned') await apply(result);
  }
  await condition(allHandlersFinished);
  return payout;
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
