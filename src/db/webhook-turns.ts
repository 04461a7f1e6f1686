/**
 * Turns at a webhook endpoint (docs/webhooks.md#isolation), kept in PostgreSQL so that the bound holds
 * across every worker process: at most `limit` requests in flight to one endpoint; a delivery that
 * finds no turn free joins the endpoint's queue and gets one in the order it first asked. A turn is
 * a lease that runs out on its own ({@link ENDPOINT_LEASE_MS}), so a worker killed mid-request
 * frees its turn within that time. Taking and giving back run in PostgreSQL functions (see the
 * migration `webhook_endpoint_turns`) under a transaction advisory lock on the endpoint, so two
 * workers never both take its last turn, and the lock is held for a few index reads only.
 */
import { ENDPOINT_LEASE_MS, ENDPOINT_WAITER_LIVE_MS } from '../domain/webhooks';
import type { Db } from './knex';

/** A delivery asking for a turn at its endpoint. */
export interface TurnRequest {
  webhookId: string;
  deliveryId: string;
  /** The delivery's workflow, told when a turn comes free. */
  workflowId: string;
  /** Most requests in flight to the endpoint (`WEBHOOK_ENDPOINT_CONCURRENCY`). */
  limit: number;
}

/** How long a waiter that stopped asking stays in the queue before it is dropped, in seconds (1 day). */
const FORGOTTEN_WAITER_SECONDS = 86_400;

/**
 * Takes a turn at the endpoint for the delivery, or queues it: the turn is given when fewer than
 * `limit` requests are in flight there and every live waiter queued before this delivery
 * (asked within {@link ENDPOINT_WAITER_LIVE_MS}) can take a free turn first. A delivery that
 * already holds a live turn (its activity tried again) keeps it, its lease renewed. Turns whose
 * lease ran out and waiters silent for a day are dropped first. One call of the migration's
 * `webhook_take_turn`.
 * @returns true when the delivery holds a turn until {@link releaseEndpointTurn} or
 *   {@link ENDPOINT_LEASE_MS}; false when it waits (queued, or its place kept)
 */
export async function takeEndpointTurn(db: Db, request: TurnRequest): Promise<boolean> {
  const result = await db.raw<{ rows: { taken: boolean }[] }>(
    'select webhook_take_turn(?, ?, ?, ?, ?, ?, ?) as taken',
    [
      request.webhookId,
      request.deliveryId,
      request.workflowId,
      request.limit,
      ENDPOINT_LEASE_MS / 1000,
      ENDPOINT_WAITER_LIVE_MS / 1000,
      FORGOTTEN_WAITER_SECONDS,
    ],
  );
  return result.rows[0]?.taken === true;
}

/**
 * Gives back the delivery's turn (or its place in the queue) and names the waiters that may now
 * take a turn: the first live ones in order, as many as turns are free. One call of the
 * migration's `webhook_release_turn`.
 * @returns the workflow ids of those waiters, to be told (they also ask again on their own)
 */
export async function releaseEndpointTurn(
  db: Db,
  request: Pick<TurnRequest, 'webhookId' | 'deliveryId' | 'limit'>,
): Promise<string[]> {
  const result = await db.raw<{ rows: { workflow_id: string }[] }>(
    'select webhook_release_turn(?, ?, ?, ?) as workflow_id',
    [request.webhookId, request.deliveryId, request.limit, ENDPOINT_WAITER_LIVE_MS / 1000],
  );
  return result.rows.map((row) => row.workflow_id);
}

/**
 * The waiters that may take the endpoint's free turns now, without giving any turn back: the first
 * live ones in order, as many as turns are free once leases that ran out are dropped. The
 * migration's `webhook_release_turn` for no delivery.
 * @returns the workflow ids of those waiters, to be told
 */
export async function waitersForFreeTurns(
  db: Db,
  request: Pick<TurnRequest, 'webhookId' | 'limit'>,
): Promise<string[]> {
  const result = await db.raw<{ rows: { workflow_id: string }[] }>(
    'select webhook_release_turn(?, NULL, ?, ?) as workflow_id',
    [request.webhookId, request.limit, ENDPOINT_WAITER_LIVE_MS / 1000],
  );
  return result.rows.map((row) => row.workflow_id);
}

/** Removes a delivery from every endpoint's queue (it ended without a turn: cancelled, or its workflow is gone). */
export async function leaveEndpointQueues(db: Db, deliveryId: string): Promise<void> {
  await db('webhook_endpoint_turns').where({ delivery_id: deliveryId }).whereNull('lease_expires_at').del();
}

/** Removes the waiter whose workflow is `workflowId` (it could not be told: its workflow is gone). */
export async function dropEndpointWaiter(db: Db, workflowId: string): Promise<void> {
  await db('webhook_endpoint_turns').where({ workflow_id: workflowId }).whereNull('lease_expires_at').del();
}
