/**
 * What the client side (activities, API) and `webhookDeliveryWorkflow` share: workflow ids, input
 * and result (samples' `shared.ts`). Pure: safe inside the workflow sandbox.
 */
import { defineSignal } from '@temporalio/workflow';
import type { DeliveryStatus } from '../domain/webhooks';

/** Workflow id of the delivery of event `eventId` to webhook `webhookId` (docs/payments.md#workflow). */
export function webhookDeliveryWorkflowId(eventId: string, webhookId: string): string {
  return `webhook-delivery:${eventId}:${webhookId}`;
}

/**
 * Workflow id of a retry (`POST …/deliveries/{id}/retry`, docs/webhooks.md#retries): the delivery workflow id
 * (docs/payments.md#workflow) plus `:retry:{dlv_id}` of the new delivery.
 */
export function webhookRetryWorkflowId(eventId: string, webhookId: string, deliveryId: string): string {
  return `${webhookDeliveryWorkflowId(eventId, webhookId)}:retry:${deliveryId}`;
}

/**
 * `ApplicationFailure` type of a delivery attempt that could not be made (our store could not be read
 * before the request): the endpoint was not called, so the workflow tries the same attempt again
 * later instead of counting it (docs/webhooks.md).
 */
export const ATTEMPT_NOT_MADE_FAILURE = 'WebhookAttemptNotMade';

/** Input of `webhookDeliveryWorkflow`: the delivery row to run, its endpoint and its event. */
export interface WebhookDeliveryInput {
  deliveryId: string;
  webhookId: string;
  eventId: string;
}

/** How a delivery ended, and after how many attempts (0 when the endpoint was disabled before the first). */
export interface WebhookDeliveryResult {
  deliveryId: string;
  status: Exclude<DeliveryStatus, 'pending'>;
  attempts: number;
}

/**
 * Tells a delivery waiting for its endpoint's turn that one may be free (docs/webhooks.md#isolation):
 * sent by the attempt that gave a turn back. The delivery asks again at once instead of at the end
 * of its wait; a lost signal only delays it to that end.
 */
export const endpointTurnSignal = defineSignal('endpointTurn');
