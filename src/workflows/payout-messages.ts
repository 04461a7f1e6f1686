/**
 * The messages of `payoutWorkflow` (docs/payouts.md#workflow) and the activities it calls, shared by the API's
 * service, the worker's activities and the workflow.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AuditEntry } from '../domain/audit-log';
import type { PayoutSnapshot } from '../domain/payout';
import type { PayoutWriteOrders } from '../domain/payout-table';
import type { PayoutFailureCode, PayoutSendOutcome, PayoutStatusOutcome } from '../domain/payout-rail';
import type { RailHealth } from '../domain/payout-health';
import type { Environment } from '../domain/environment';
import type { HealthKey, OutcomeSide } from '../domain/provider-health';

/** The id of a payout's workflow: one per payout. */
export function payoutWorkflowId(payoutId: string): string {
  return `payout:${payoutId}`;
}

/**
 * A payout to store as the workflow's first step (docs/payouts.md#workflow): the payout as the request made it
 * (`pending`), stored with its reservation, its `payout.created` event and the create's audit entry in one
 * transaction; once per id, however often the step runs.
 */
export interface PayoutCreateInput {
  payout: PayoutSnapshot;
  /** An automatic payout: its amount and fee are what the available balance holds above this many minor units. */
  automaticMinimum?: number;
  /** The create's audit entry (docs/security.md#activity-log), written with the payout. */
  audit?: AuditEntry;
}

/** The workflow's input: the payout to store first (a create), or the id of one stored already. */
export interface PayoutWorkflowInput {
  payoutId: string;
  create?: PayoutCreateInput;
}

/** Why the workflow's first step stored no payout: the balance does not hold it (nothing was reserved). */
export interface PayoutNotStored {
  code: 'insufficient_balance';
  message: string;
}

/**
 * The create's wait (docs/payouts.md#workflow): answers the payout once the rail has it, refused it, or is known to
 * be down (the payout then stays `pending` with a reason).
 */
export const sendPayoutUpdate = defineUpdate<PayoutSnapshot, []>('sendPayout');

/** Update id of the create's wait. */
export const SEND_UPDATE_ID = 'send';

/**
 * Cancels a `pending` payout (docs/payouts.md#cancel): funds back. Fails `payout_not_cancellable` once the rail has
 * it or it ended.
 */
export const cancelPayoutUpdate = defineUpdate<PayoutSnapshot, []>('cancelPayout');

/** Update id of a cancel: one per workflow, so a repeated cancel reattaches. */
export const CANCEL_UPDATE_ID = 'cancel';

/**
 * The operator's "ask again" (docs/operations.md#payouts-stuck-pending): the workflow ends its current wait and takes
 * its next turn now. A payout in transit (or paid, watched for a return) is asked about with the rail's status call,
 * never sent again; a pending one asks its rail's status now and is offered to the rail (which never had it) unless
 * the rail shows `down` (docs/payouts.md#rail-down).
 */
export const askPayoutRailSignal = defineSignal<[]>('askPayoutRail');

/** The workflow's current view of the payout. */
export const getPayoutQuery = defineQuery<PayoutSnapshot | undefined>('getPayout');

/** What a send or a status call answered, as the workflow needs it. */
export type PayoutRailResult =
  | {
      kind: 'answer';
      outcome: PayoutSendOutcome | PayoutStatusOutcome;
      providerReference: string;
      failureCode?: PayoutFailureCode;
      failureMessage?: string;
      /** Whose the provider's own reason for a refusal is, when the rail named one (src/providers/failure-sides.ts). */
      reasonSide?: OutcomeSide;
    }
  /** The provider certainly did not get the payout: wait `retryAfterMs` (when it says) and send again. */
  | { kind: 'unavailable'; reason: string; retryAfterMs?: number };

/**
 * A row of the payout table to record (docs/payouts.md#states): the payout as the row left it, and the write orders of
 * its effects (the status it must still be in, the event, the ledger causes, the destination's verification).
 */
export interface PayoutRecordInput {
  payout: PayoutSnapshot;
  orders: PayoutWriteOrders;
}

/** The input of `automaticPayoutWorkflow`: whose schedule fired. */
export interface AutomaticPayoutInput {
  merchantId: string;
  environment: 'sandbox' | 'live';
}

/** The id of a merchant's Temporal Schedule of automatic payouts in one environment (docs/payouts.md). */
export function payoutScheduleId(merchantId: string, environment: string): string {
  return `payout-schedule:${merchantId}:${environment}`;
}

/**
 * The id of the Temporal Schedule that ran the payout sweeper, which the first step of a payout's workflow made
 * unnecessary: workers delete it where it is left (docs/payouts.md#workflow).
 */
export const PAYOUT_SWEEP_SCHEDULE_ID = 'payout-sweeper';

/** The activities the payout workflows call (src/activities/payout-activities.ts). */
export interface PayoutActivities {
  /**
   * The automatic payout of a firing of the merchant's schedule (`seed`: the firing's workflow id, so a retry names the
   * same payout), to be stored by its workflow; null when the setting is manual, its destination is not usable, or
   * nothing is above the minimum now.
   */
  automaticPayoutDraft(input: AutomaticPayoutInput & { seed: string }): Promise<PayoutCreateInput | null>;
  /**
   * Stores the payout of a create with its reservation, `payout.created` and audit entry, once per id (a stored one is
   * answered as stored), and starts the event's webhook deliveries (docs/payouts.md#money).
   * @returns the payout stored, or why none was: the balance does not hold it (nothing was reserved)
   */
  storePayout(input: PayoutCreateInput): Promise<{ payout: PayoutSnapshot } | { refused: PayoutNotStored }>;
  /** The stored payout. @throws when it is not stored */
  loadPayout(payoutId: string): Promise<PayoutSnapshot>;
  /** Sends the payout on its rail (the reference derives from the payout id, so a repeat names the same transfer). */
  sendPayoutToRail(payoutId: string): Promise<PayoutRailResult>;
  /**
   * The status the payout rail `key` shows in `environment` now (docs/payouts.md#rail-down): an operator's override
   * winning over the measured one, `operational` before any measurement; with the override's reason.
   * @throws when PostgreSQL does not answer (the workflow retries; nothing is sent meanwhile)
   */
  payoutRailHealth(environment: Environment, key: HealthKey): Promise<RailHealth>;
  /** Asks the rail about the payout's transfer `providerReference`. */
  askPayoutRail(payoutId: string, providerReference: string): Promise<PayoutRailResult>;
  /**
   * Records a row of the payout table with exactly its declared effects (journals, event, destination), and starts the
   * event's webhook deliveries. @throws when the stored payout is not in the row's `from` status
   */
  recordPayout(input: PayoutRecordInput): Promise<PayoutSnapshot>;
}
