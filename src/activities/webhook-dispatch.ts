/**
 * Starting webhook deliveries (docs/payments.md#events): after an event row is committed, one `webhookDeliveryWorkflow`
 * per subscribed webhook of the event's merchant and environment whose status is enabled or failed.
 * Used by the activities that write events, by the services that write them (`payment.created`,
 * `webhook.created`) and by the retry operation. Safe to repeat: the delivery id is derived from the
 * workflow id, and a workflow id that was already used is refused by Temporal and taken as done.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Db } from '../db/knex';
import type { EventInput } from '../db/payments';
import { findSubscribedWebhookIds, insertDelivery } from '../db/webhooks';
import { ID_PREFIXES } from '../domain/ids';
import type { DeliveryRecord } from '../domain/webhooks';
import { deriveId } from '../lib/ids';
import { deliverySearchAttributes } from '../workflows/messages';
import { webhookDeliveryWorkflowId, type WebhookDeliveryInput } from '../workflows/webhook-messages';

/**
 * What starting deliveries needs: the database, a Temporal client and the deliveries' task queue,
 * `TEMPORAL_WEBHOOK_TASK_QUEUE` (docs/webhooks.md#isolation).
 */
export interface DispatchDeps {
  db: Db;
  temporal: Client;
  taskQueue: string;
}

/**
 * The event a delivery carries (its row is in `events`); `objectId`, the payment or payout it is about, names that
 * object on the delivery's workflow (a search attribute, docs/operations.md#find-in-temporal-ui).
 */
export type DispatchedEvent = Pick<EventInput, 'id' | 'merchantId' | 'environment' | 'type'> &
  Partial<Pick<EventInput, 'objectId'>>;

/** A delivery to start: its row, its workflow id and the object its event is about. */
export type DeliveryStart = DeliveryRecord & { workflowId: string; objectId?: string | null };

/**
 * Writes the delivery row (once) and starts its workflow with its merchant's fairness key; a workflow id
 * already used counts as started (REJECT_DUPLICATE: a completed delivery is never started again by a
 * retried caller).
 */
export async function startDelivery(deps: DispatchDeps, delivery: DeliveryStart): Promise<void> {
  await insertDelivery(deps.db, delivery);
  const input: WebhookDeliveryInput = {
    deliveryId: delivery.id,
    webhookId: delivery.webhookId,
    eventId: delivery.eventId,
  };
  try {
    await deps.temporal.workflow.start('webhookDeliveryWorkflow', {
      taskQueue: deps.taskQueue,
      workflowId: delivery.workflowId,
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      // One fairness key per merchant (docs/webhooks.md#isolation): the deliveries' task queue dispatches the waiting
      // tasks of each merchant in turn, not in arrival order; the workflow's activities inherit it. A merchant id is
      // well within the 64 bytes a key may have.
      priority: { fairnessKey: delivery.merchantId },
      typedSearchAttributes: deliverySearchAttributes(delivery),
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/** A new, pending delivery row of `event` to `webhookId`. */
export function pendingDelivery(
  event: DispatchedEvent,
  webhookId: string,
  ids: { id: string; workflowId: string; retryOf?: string },
  now: Date,
): DeliveryStart {
  return {
    id: ids.id,
    webhookId,
    merchantId: event.merchantId,
    environment: event.environment,
    eventId: event.id,
    eventType: event.type,
    workflowId: ids.workflowId,
    retryOf: ids.retryOf ?? null,
    status: 'pending',
    attemptCount: 0,
    nextAttemptAt: null,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    objectId: event.objectId ?? null,
  };
}

/**
 * Starts one delivery of `event` per subscribed enabled-or-failed webhook (docs/payments.md#events). Call it after the
 * event row is committed.
 * @param subscribers the subscribed webhook ids when the write of the event already read them
 *   (db/payments' writes do, in the same statement); looked up here otherwise
 * @returns the ids of the deliveries (new or already started)
 */
export async function startWebhookDeliveries(
  deps: DispatchDeps,
  event: DispatchedEvent,
  subscribers?: readonly string[],
): Promise<string[]> {
  const webhookIds = subscribers ?? (await findSubscribedWebhookIds(deps.db, event, event.type));
  const now = new Date();
  return Promise.all(
    webhookIds.map(async (webhookId) => {
      const workflowId = webhookDeliveryWorkflowId(event.id, webhookId);
      const delivery = pendingDelivery(
        event,
        webhookId,
        { id: deriveId(ID_PREFIXES.delivery, workflowId), workflowId },
        now,
      );
      await startDelivery(deps, delivery);
      return delivery.id;
    }),
  );
}
