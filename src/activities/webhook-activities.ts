/**
 * Activities of the webhook delivery workflow (docs/webhooks.md#retries): make one attempt, and record it with the
 * statuses that follow. `deliverAndRecordWebhook` returns every receiver outcome instead of throwing, so the
 * workflow's timers, not activity retries, make the schedule. When our own store cannot be read
 * before the request, it raises `WebhookAttemptNotMade`: the endpoint was not called, and the
 * workflow does not count that as an attempt (docs/webhooks.md).
 */
import { ApplicationFailure, log } from '@temporalio/activity';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import { isDataError } from '../db/errors';
import { cancelDelivery, findDeliveryTarget, recordAttempt, type AttemptRecord } from '../db/webhooks';
import { activeSecrets, decideAfterAttempt, receivesDeliveries, type AttemptOutcome, type WebhookStatus } from '../domain/webhooks';
import { sendWebhook } from '../lib/webhook-sender';
import { ATTEMPT_NOT_MADE_FAILURE } from '../workflows/webhook-messages';
import { countWebhookAttempt } from './business-metrics';

/** Dependencies of the webhook activities. */
export interface WebhookActivityDeps {
  db: Db;
  config: Pick<Config, 'WEBHOOK_ALLOW_PRIVATE_TARGETS'>;
  /** Writes an attempt record (default: `recordAttempt` of db/webhooks; tests make it fail). */
  recordAttempt?: typeof recordAttempt;
}

/** Why an attempt was skipped: the endpoint was disabled, deleted, or failed by a 410 Gone. */
export type SkipReason = 'webhook_disabled' | 'webhook_deleted' | 'webhook_gone';

/** What an attempt did: sent (with the outcome), or skipped because the endpoint no longer takes deliveries. */
export type DeliveryAttemptResult = { kind: 'attempted'; outcome: AttemptOutcome } | { kind: 'skipped'; reason: SkipReason };

/** What a self-recording attempt did: as {@link DeliveryAttemptResult}, and whether the attempt's record was written. */
export type RecordedAttemptResult = { kind: 'attempted'; outcome: AttemptOutcome; recorded: boolean } | { kind: 'skipped'; reason: SkipReason };

/** The retryable failure of an attempt that could not be made: nothing was sent. */
function attemptNotMade(reason: string): ApplicationFailure {
  return ApplicationFailure.create({ type: ATTEMPT_NOT_MADE_FAILURE, message: `${reason}; the endpoint was not called`, nonRetryable: false });
}

/** Builds the webhook activities around their dependencies. */
export function createWebhookActivities(deps: WebhookActivityDeps) {
  const writeAttempt = deps.recordAttempt ?? recordAttempt;

  /**
   * One attempt of delivery `deliveryId` (docs/webhooks.md): reads the delivery, the endpoint as it is now
   * (URL, secrets, status) and the event in one query, then POSTs the payload once, signed with
   * every secret still valid (docs/webhooks.md#secret-rotation), and counts it as attempt
   * `attempt` in the worker's metrics (src/activities/business-metrics.ts).
   * @returns `skipped` for a disabled, deleted or gone endpoint, else the attempt's outcome (a
   *   refused target, a time-out or a non-2xx answer included)
   * @throws ApplicationFailure `DeliveryNotFound` (non-retryable) for an unknown delivery;
   *   `WebhookAttemptNotMade` (retryable) when the store cannot be read or the event row is not
   *   readable yet: no request was made
   */
  async function attemptDelivery(deliveryId: string, attempt: number): Promise<DeliveryAttemptResult> {
    let target: Awaited<ReturnType<typeof findDeliveryTarget>>;
    try {
      target = await findDeliveryTarget(deps.db, deliveryId);
    } catch (error) {
      // Data PostgreSQL refuses will not pass: left to fail non-retryably (src/activities/data-errors.ts).
      if (isDataError(error)) throw error;
      throw attemptNotMade(`delivery ${deliveryId} could not be read: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!target) throw ApplicationFailure.create({ type: 'DeliveryNotFound', message: `no delivery ${deliveryId}`, nonRetryable: true });
    const { delivery, webhook, event } = target;
    if (!webhook || webhook.deletedAt !== null) return { kind: 'skipped', reason: 'webhook_deleted' };
    if (!receivesDeliveries(webhook.status, webhook.failureKind)) return { kind: 'skipped', reason: webhook.status === 'disabled' ? 'webhook_disabled' : 'webhook_gone' };
    if (!event) throw attemptNotMade(`event ${delivery.eventId} of delivery ${delivery.id} is not readable yet`);
    const outcome = await sendWebhook({
      url: webhook.url,
      secrets: activeSecrets(webhook, Date.now()),
      payload: { id: event.id, event: event.event, created_at: event.created_at, data: event.data },
      environment: webhook.environment,
      allowPrivateTargetsInSandbox: deps.config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    });
    countWebhookAttempt({ environment: webhook.environment, attempt, outcome, eventCreatedAt: event.created_at });
    return { kind: 'attempted', outcome };
  }

  return {
    /**
     * Attempt `attempt` that records itself (docs/webhooks.md#retries): one attempt (see `attemptDelivery`), then, when it sent, writes the attempt with the delivery's and the
     * endpoint's statuses after it, decided as the workflow decides (`decideAfterAttempt`), so the
     * workflow needs no local activity and no second activation to record it. A failed write is not
     * a failure of the attempt (a retry would send the webhook again): it is logged and answered
     * `recorded: false`, and the workflow records the attempt itself.
     * @param input.attemptedAt when the workflow asked for the attempt (workflow time, ISO 8601)
     * @returns `skipped` for a disabled, deleted or gone endpoint, else the outcome with `recorded` for a sent attempt
     * @throws ApplicationFailure `DeliveryNotFound` (non-retryable); `WebhookAttemptNotMade` (retryable)
     *   when the store or the event cannot be read: nothing was sent, and the workflow does not count it
     */
    async deliverAndRecordWebhook(input: { deliveryId: string; attempt: number; attemptedAt: string }): Promise<RecordedAttemptResult> {
      const started = Date.now();
      const result = await attemptDelivery(input.deliveryId, input.attempt);
      if (result.kind === 'skipped') return result;
      const decision = decideAfterAttempt(input.attempt, result.outcome);
      // The next attempt is due its delay after this failure, on the workflow's clock (docs/webhooks.md#retries).
      const failedAtMs = Date.parse(input.attemptedAt) + (Date.now() - started);
      const nextAttemptAt = decision.kind === 'retry' ? new Date(failedAtMs + decision.delayMs).toISOString() : null;
      try {
        await writeAttempt(deps.db, { deliveryId: input.deliveryId, attempt: input.attempt, attemptedAt: input.attemptedAt, outcome: result.outcome, decision, nextAttemptAt }, new Date());
        return { ...result, recorded: true };
      } catch (error) {
        log.warn('the attempt was sent but not recorded; the workflow records it', { deliveryId: input.deliveryId, attempt: input.attempt, error: String(error) });
        return { ...result, recorded: false };
      }
    },

    /**
     * Records an attempt and the statuses after it (docs/webhooks.md#retries). Idempotent.
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
