/**
 * Turns at a webhook endpoint (docs/webhooks.md#isolation), kept in PostgreSQL so that the bounds hold
 * across every worker process: at most `limit` requests in flight to one endpoint and at most
 * `merchantLimit` to all the endpoints of one merchant; a delivery that finds no turn free joins the
 * queue and gets one in the order it first asked, unless a delivery ahead of it can only wait for its
 * own full endpoint. A turn is a lease that runs out on its own ({@link ENDPOINT_LEASE_MS}), so a
 * worker killed mid-request frees its turn within that time. Taking and giving back run in
 * PostgreSQL functions (see the migrations `webhook_endpoint_turns`, `webhook_merchant_turns` and
 * `webhook_told_turns`) under transaction advisory locks on the merchant and the endpoint, so two
 * workers never both take the last turn, and the locks are held for a few index reads only. A waiter
 * that may go is named to be told once: not again until it asked, or until {@link ENDPOINT_TOLD_MS}
 * passed without it asking (its signal was lost).
 */
import { ENDPOINT_LEASE_MS, ENDPOINT_TOLD_MS, ENDPOINT_WAITER_LIVE_MS } from '../domain/webhooks';
import type { Knex } from 'knex';
import type { Db } from './knex';

/** A delivery asking for a turn at its endpoint. */
export interface TurnRequest {
  webhookId: string;
  /** The endpoint's merchant, whose share the turn counts against. */
  merchantId: string;
  deliveryId: string;
  /** The delivery's workflow, told when a turn comes free. */
  workflowId: string;
  /** Most requests in flight to the endpoint (`WEBHOOK_ENDPOINT_CONCURRENCY`). */
  limit: number;
  /** Most requests in flight to all the merchant's endpoints (`WEBHOOK_MERCHANT_CONCURRENCY`). */
  merchantLimit: number;
}

/** How long a waiter that stopped asking stays in the queue before it is dropped, in seconds (1 day). */
const FORGOTTEN_WAITER_SECONDS = 86_400;

/** What asking for a turn answered. */
export interface TurnAnswer {
  /**
   * True when the delivery holds a turn until {@link releaseEndpointTurn} or {@link ENDPOINT_LEASE_MS};
   * false when it waits.
   */
  taken: boolean;
  /**
   * When refused: the workflow ids of the merchant's waiters that may take a turn now and were not told
   * yet (turns freed without a release: a lease that ran out, a waiter gone silent, a lost signal), in
   * queue order, now marked told. Empty when taken.
   */
  tell: string[];
}

/**
 * Takes a turn at the endpoint for the delivery, or queues it: the turn is given when the delivery
 * is among the merchant's live waiters (asked within {@link ENDPOINT_WAITER_LIVE_MS}) that may go
 * now: at its endpoint fewer than `limit` requests are in flight and the waiters queued there before
 * it can take the free turns first, and for the merchant fewer than `merchantLimit` are in flight and
 * the waiters queued before it that may go at their own endpoints can take the free ones first. A
 * delivery that already holds a live turn (its activity tried again) keeps it, its lease renewed.
 * Asking clears the delivery's told mark. The merchant's turns whose lease ran out and waiters silent
 * for a day are dropped first. One call of the migration's `webhook_ask_turn` (webhook_told_turns).
 * @returns whether the turn was taken, and whom to tell when it was not
 */
export async function takeEndpointTurn(db: Db, request: TurnRequest): Promise<TurnAnswer> {
  const result = await db.raw<{ rows: { turn: TurnAnswer | null }[] }>('select ? as turn', [askTurnCall(db, request)]);
  return turnAnswer(result.rows[0]?.turn ?? null);
}

/** An SQL value: a bound value, or an expression of the statement that holds the call (a column). */
export type SqlValue = string | number | Knex.Raw;

/**
 * The call `webhook_ask_turn(…)` of {@link takeEndpointTurn} as an SQL expression whose value is the function's
 * answer as JSON, `{"taken": bool, "tell": [workflow ids]}`, for a statement that asks for the turn as it reads what
 * the attempt needs (`findDeliveryTargetTakingTurn` of db/webhooks.ts): one round trip instead of two. The request's
 * ids may be expressions of that statement. Read its value with {@link turnAnswer}.
 */
export function askTurnCall(
  db: Db,
  request: { [K in 'webhookId' | 'merchantId' | 'deliveryId' | 'workflowId']: SqlValue } & Pick<
    TurnRequest,
    'limit' | 'merchantLimit'
  >,
): Knex.Raw {
  return db.raw('to_jsonb(webhook_ask_turn(?, ?, ?, ?, ?, ?, ?, ?, ?, ?))', [
    request.webhookId,
    request.merchantId,
    request.deliveryId,
    request.workflowId,
    request.limit,
    request.merchantLimit,
    ENDPOINT_LEASE_MS / 1000,
    ENDPOINT_WAITER_LIVE_MS / 1000,
    FORGOTTEN_WAITER_SECONDS,
    ENDPOINT_TOLD_MS / 1000,
  ]);
}

/** The answer of {@link askTurnCall}'s value; null (no turn was asked for) is not taken, nobody to tell. */
export function turnAnswer(value: Partial<TurnAnswer> | null): TurnAnswer {
  return { taken: value?.taken === true, tell: value?.tell ?? [] };
}

/**
 * Gives back the delivery's turn (or its place in the queue) and names the merchant's waiters that
 * may now take a turn, as {@link takeEndpointTurn} would give them, and that were not told yet (or
 * told more than {@link ENDPOINT_TOLD_MS} ago without asking since); they are marked told. One call of
 * the migration's `webhook_give_turn` (webhook_told_turns).
 * @returns the workflow ids of those waiters, in queue order, to be told (they also ask again on their own)
 */
export async function releaseEndpointTurn(db: Db, request: TurnRelease): Promise<string[]> {
  const result = await db.raw<{ rows: { tell: string[] }[] }>('select ? as tell', [giveTurnCall(db, request)]);
  return result.rows[0]?.tell ?? [];
}

/** The turn {@link releaseEndpointTurn} gives back. */
export type TurnRelease = Pick<TurnRequest, 'webhookId' | 'merchantId' | 'deliveryId' | 'limit' | 'merchantLimit'>;

/**
 * The call `webhook_give_turn(…)` of {@link releaseEndpointTurn} as an SQL expression (a `text[]` of the workflow ids
 * to tell), for a statement that gives the turn back as it records the attempt (`recordAttemptGivingTurn` of
 * db/webhooks.ts): one round trip instead of two.
 */
export function giveTurnCall(db: Db, request: TurnRelease): Knex.Raw {
  return db.raw('webhook_give_turn(?, ?, ?, ?, ?, ?, ?)', [
    request.webhookId,
    request.merchantId,
    request.deliveryId,
    request.limit,
    request.merchantLimit,
    ENDPOINT_WAITER_LIVE_MS / 1000,
    ENDPOINT_TOLD_MS / 1000,
  ]);
}

/**
 * Clears the told mark of the waiter whose workflow is `workflowId`: its signal could not be sent, so
 * the next turn given back or refused names it again.
 */
export async function untellEndpointWaiter(db: Db, workflowId: string): Promise<void> {
  await db('webhook_endpoint_turns')
    .where({ workflow_id: workflowId })
    .whereNull('lease_expires_at')
    .update({ told_at: null });
}

/** Removes a delivery from every endpoint's queue (it ended without a turn: cancelled, or its workflow is gone). */
export async function leaveEndpointQueues(db: Db, deliveryId: string): Promise<void> {
  await db('webhook_endpoint_turns').where({ delivery_id: deliveryId }).whereNull('lease_expires_at').del();
}

/** Removes the waiter whose workflow is `workflowId` (it could not be told: its workflow is gone). */
export async function dropEndpointWaiter(db: Db, workflowId: string): Promise<void> {
  await db('webhook_endpoint_turns').where({ workflow_id: workflowId }).whereNull('lease_expires_at').del();
}
