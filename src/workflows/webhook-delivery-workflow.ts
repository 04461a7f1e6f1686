/**
 * `webhookDeliveryWorkflow` (D20, D27): one per event and endpoint, id
 * `webhook-delivery:{evt_id}:{whk_id}`. Attempt 1 at once, then 5 min, 30 min, 2 h and 24 h after
 * the previous failure, as workflow timers; a longer `Retry-After` on 429/503 stretches a wait (up to
 * 24 h); a 2xx ends it `succeeded`, a 410 or the fifth failure `failed`. Every attempt, with the
 * delivery's and the endpoint's status after it, is recorded through an activity. The attempt
 * activity never retries a receiver's failure: it returns the outcome and this workflow decides.
 *
 * Deterministic: only `@temporalio/workflow`, domain code, messages and activity types are imported.
 */
import { ActivityFailure, ApplicationFailure, proxyActivities, proxyLocalActivities, sleep, type ActivityOptions } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { decideAfterAttempt, MAX_DELIVERY_ATTEMPTS, type AttemptOutcome } from '../domain/webhooks';
import type { WebhookDeliveryInput, WebhookDeliveryResult } from './webhook-messages';

/**
 * The attempt: 10 s for the HTTP request plus DNS and reading the endpoint. Retried only when it
 * could not run to its end (a database fault before sending, a lost worker); a receiver's failure is
 * an outcome, not an error.
 */
const ATTEMPT_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 3 },
};

/** Delivery log writes: short, retried until PostgreSQL answers. */
const RECORD_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds' },
};

const attempts = proxyActivities<Activities>(ATTEMPT_OPTIONS);
/**
 * The delivery log's own writes (an attempt the attempt activity could not record, a cancelled
 * delivery) run as local activities, inside the workflow task that decides after an attempt: they
 * are idempotent writes of what the attempt activity already did, and move no money.
 */
const records = proxyLocalActivities<Activities>(RECORD_OPTIONS);

/** An attempt that could not be made at all counts as a failed attempt with the reason as its error. */
function unattempted(error: ActivityFailure): AttemptOutcome {
  const reason = error.cause instanceof ApplicationFailure || error.cause instanceof Error ? error.cause.message : error.message;
  return { statusCode: null, durationMs: 0, responseBody: null, error: `the attempt could not be made: ${reason}`, retryAfterMs: null };
}

/** Delivers one event to one endpoint (see module comment). */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const { deliveryId } = input;
  for (let attempt = 1; attempt <= MAX_DELIVERY_ATTEMPTS; attempt += 1) {
    const attemptedAt = new Date().toISOString();
    let outcome: AttemptOutcome;
    let recorded = false;
    try {
      // The attempt records itself; the workflow records only an attempt it could not.
      const result = await attempts.deliverAndRecordWebhook({ deliveryId, attempt, attemptedAt });
      if (result.kind === 'skipped') {
        await records.recordWebhookDeliveryCancelled({ deliveryId });
        return { deliveryId, status: 'cancelled', attempts: attempt - 1 };
      }
      outcome = result.outcome;
      recorded = result.recorded;
    } catch (error) {
      if (!(error instanceof ActivityFailure)) throw error;
      outcome = unattempted(error);
    }
    const decision = decideAfterAttempt(attempt, outcome);
    // The wait counts from the failure (D27): the timer starts with the record, not after it.
    const wait = decision.kind === 'retry' ? sleep(decision.delayMs) : undefined;
    const nextAttemptAt = decision.kind === 'retry' ? new Date(Date.now() + decision.delayMs).toISOString() : null;
    if (!recorded) await records.recordWebhookAttempt({ deliveryId, attempt, attemptedAt, outcome, decision, nextAttemptAt });
    if (decision.kind !== 'retry') return { deliveryId, status: decision.kind, attempts: attempt };
    await wait;
  }
  // decideAfterAttempt never retries after the last attempt; reaching here is a bug in the schedule.
  throw ApplicationFailure.nonRetryable(`delivery ${deliveryId} ran out of attempts without a decision`);
}
