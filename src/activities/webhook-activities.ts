/**
 * Activities of the webhook delivery workflow (D27): make one attempt, and record it with the
 * statuses that follow. `deliverWebhook` returns every receiver outcome instead of throwing, so the
 * workflow's timers, not activity retries, make the schedule.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import { cancelDelivery, findDeliveryTarget, recordAttempt, type AttemptRecord } from '../db/webhooks';
import { receivesDeliveries, type AttemptOutcome, type WebhookStatus } from '../domain/webhooks';
import { sendWebhook } from '../lib/webhook-sender';

/** Dependencies of the webhook activities. */
export interface WebhookActivityDeps {
  db: Db;
  config: Pick<Config, 'WEBHOOK_ALLOW_PRIVATE_TARGETS'>;
}

/** What an attempt did: sent (with the outcome), or skipped because the endpoint no longer takes deliveries. */
export type DeliveryAttemptResult = { kind: 'attempted'; outcome: AttemptOutcome } | { kind: 'skipped'; reason: 'webhook_disabled' | 'webhook_deleted' };

/** Builds the webhook activities around their dependencies. */
export function createWebhookActivities(deps: WebhookActivityDeps) {
  return {
    /**
     * Attempt `attempt` of delivery `deliveryId` (D26–D28): reads the delivery, the endpoint as it
     * is now (URL, secret, status) and the event in one query, then POSTs the signed payload once.
     * @returns `skipped` for a disabled or deleted endpoint, else the attempt's outcome (a refused
     *   target, a time-out or a non-2xx answer included)
     * @throws ApplicationFailure `DeliveryNotFound` (non-retryable) for an unknown delivery; a
     *   retryable error while the event row is not readable
     */
    async deliverWebhook(input: { deliveryId: string; attempt: number }): Promise<DeliveryAttemptResult> {
      const target = await findDeliveryTarget(deps.db, input.deliveryId);
      if (!target) throw ApplicationFailure.create({ type: 'DeliveryNotFound', message: `no delivery ${input.deliveryId}`, nonRetryable: true });
      const { delivery, webhook, event } = target;
      if (!webhook || webhook.deletedAt !== null) return { kind: 'skipped', reason: 'webhook_deleted' };
      if (!receivesDeliveries(webhook.status)) return { kind: 'skipped', reason: 'webhook_disabled' };
      if (!event) throw new Error(`event ${delivery.eventId} of delivery ${delivery.id} is not readable yet`);
      const outcome = await sendWebhook({
        url: webhook.url,
        secret: webhook.secret,
        payload: { id: event.id, event: event.event, created_at: event.created_at, data: event.data },
        environment: webhook.environment,
        allowPrivateTargetsInSandbox: deps.config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      });
      return { kind: 'attempted', outcome };
    },

    /**
     * Records an attempt and the statuses after it (D27). Idempotent.
     * @returns the endpoint's status after the attempt
     */
    async recordWebhookAttempt(record: AttemptRecord): Promise<WebhookStatus | undefined> {
      return recordAttempt(deps.db, record, new Date());
    },

    /** Ends a delivery whose endpoint was disabled or deleted before it finished. Idempotent. */
    async recordWebhookDeliveryCancelled(input: { deliveryId: string }): Promise<void> {
      await cancelDelivery(deps.db, input.deliveryId, new Date());
    },
  };
}

/** The webhook activities' type. */
export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
