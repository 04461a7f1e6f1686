/**
 * `webhookDeliveryWorkflow` (docs/payments.md#workflow, docs/webhooks.md#retries): one per event and endpoint, id
 * `webhook-delivery:{evt_id}:{whk_id}`. Attempt 1 at once, then 5 min, 30 min, 2 h and 24 h after
 * the previous failure, as workflow timers; a longer `Retry-After` on 429/503 stretches a wait (up to
 * 24 h); a 2xx ends it `succeeded`, a 410 or the fifth failure `failed`. Every attempt, with the
 * delivery's and the endpoint's status after it, is recorded through an activity. The attempt
 * activity never retries a receiver's failure: it returns the outcome and this workflow decides.
 * An attempt counts only once the endpoint was called: while our own store cannot be read (a
 * PostgreSQL outage), the same attempt is tried again, 30 s later doubling to 10 min, for up to 72 h.
 * Nor does waiting for a turn at the endpoint (docs/webhooks.md#isolation): while as many requests as
 * the endpoint, or its merchant's share of the delivery capacity, may take are in flight, the attempt
 * is queued and asked for again when the signal `endpointTurn` says a turn came free, or at the latest
 * 15–45 s later, growing to 1–3 min; the workflow holds no worker slot meanwhile.
 *
 * Deterministic: only `@temporalio/workflow`, domain code, messages and activity contracts are imported.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  log,
  metricMeter,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  type ActivityOptions,
} from '@temporalio/workflow';
import {
  attemptNotMadeDelayMs,
  decideAfterAttempt,
  endpointTurnWaitMs,
  MAX_ATTEMPT_NOT_MADE_MS,
  MAX_DELIVERY_ATTEMPTS,
  type AttemptOutcome,
} from '../domain/webhooks';
import { FAILURE_TYPES, type RecordedAttemptResult, type WebhookActivities } from './activity-contracts';
import { applicationCause, failureReason, isActivityError, type ActivityError } from './activity-errors';
import { DELIVERY_RECORD_OPTIONS } from './activity-options';
import {
  ATTEMPT_NOT_MADE_FAILURE,
  endpointTurnSignal,
  type WebhookDeliveryInput,
  type WebhookDeliveryResult,
} from './webhook-messages';

/**
 * The attempt: 10 s for the HTTP request plus DNS and reading the endpoint. Retried only when it
 * could not run to its end (a database fault before sending, a lost worker); a receiver's failure is
 * an outcome, not an error.
 */
const ATTEMPT_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 3 },
};

const attempts = proxyActivities<WebhookActivities>(ATTEMPT_OPTIONS);
/**
 * The delivery log's own writes (an attempt the attempt activity could not record, a cancelled
 * delivery) run as local activities, inside the workflow task that decides after an attempt: they
 * are idempotent writes of what the attempt activity already did, and move no money.
 */
const records = proxyLocalActivities<WebhookActivities>(DELIVERY_RECORD_OPTIONS);

/** The activity's failure type (`ApplicationFailure.type`), if any. */
function failureType(error: ActivityError): string | undefined {
  return applicationCause(error)?.type ?? undefined;
}

/**
 * An attempt whose activity gave no outcome for another reason than {@link ATTEMPT_NOT_MADE_FAILURE}
 * (it timed out or its worker was lost, possibly after the request went out) counts as a failed
 * attempt with the reason as its error.
 */
function unattempted(error: ActivityFailure): AttemptOutcome {
  return {
    statusCode: null,
    durationMs: 0,
    responseBody: null,
    error: `the attempt could not be made: ${failureReason(error)}`,
    retryAfterMs: null,
  };
}

/** Counts a try of an attempt that could not be made (worker metric `paycollect_webhook_attempts_not_made`). */
function countNotMade(): void {
  metricMeter
    .createCounter(
      'paycollect_webhook_attempts_not_made',
      'tries',
      'webhook delivery attempts not made because the store could not be read',
    )
    .add(1);
}

/**
 * Runs `step` until it succeeds, waiting {@link attemptNotMadeDelayMs} after each failure for which
 * `again` is true, for at most {@link MAX_ATTEMPT_NOT_MADE_MS} of workflow time.
 * @throws the step's ActivityFailure when `again` is false for it; ApplicationFailure
 *   `WebhookAttemptNotMade` (non-retryable, the workflow fails) after 72 h of failures
 */
async function untilDone<T>(
  what: string,
  step: () => Promise<T>,
  again: (error: ActivityError) => boolean,
): Promise<T> {
  const since = Date.now();
  for (let tries = 1; ; tries += 1) {
    try {
      return await step();
    } catch (error) {
      // A local activity's failure (the delivery log's writes) comes unwrapped (activity-errors.ts).
      if (!isActivityError(error) || !again(error)) throw error;
      if (Date.now() - since >= MAX_ATTEMPT_NOT_MADE_MS) {
        throw ApplicationFailure.create({
          type: ATTEMPT_NOT_MADE_FAILURE,
          message: `${what} kept failing for 72 h: ${failureReason(error)}`,
          nonRetryable: true,
        });
      }
      countNotMade();
      log.warn(`${what} failed; trying again`, { tries, error: failureReason(error) });
      await sleep(attemptNotMadeDelayMs(tries));
    }
  }
}

/** Counts a wait for a turn at the endpoint (worker metric `paycollect_webhook_turn_waits`). */
function countTurnWait(): void {
  metricMeter
    .createCounter(
      'paycollect_webhook_turn_waits',
      'waits',
      'webhook delivery attempts that waited for a turn at their endpoint',
    )
    .add(1);
}

/** Whether the signal `endpointTurn` came since the attempt last asked for a turn. */
interface TurnBell {
  rung: boolean;
}

/** An attempt that was made or skipped: everything but `waiting`. */
type DecidedAttemptResult = Exclude<RecordedAttemptResult, { kind: 'waiting' }>;

/**
 * Makes attempt `attempt`: tried again, not counted, while the activity could not read our store
 * (the endpoint was not called), and asked for again, not counted, while the endpoint has no turn
 * free: when `bell` rings or after {@link endpointTurnWaitMs} (docs/webhooks.md#isolation).
 * @returns the activity's result with the time this attempt started
 * @throws ActivityFailure `DeliveryNotFound` (the delivery row is gone: the workflow fails)
 */
async function makeAttempt(
  deliveryId: string,
  attempt: number,
  bell: TurnBell,
): Promise<{ result: DecidedAttemptResult; attemptedAt: string }> {
  let attemptedAt = '';
  try {
    for (let waits = 1; ; waits += 1) {
      // Rung from here on counts: a turn freed while the activity runs is not missed.
      bell.rung = false;
      const result = await untilDone(
        `attempt ${attempt} of delivery ${deliveryId}`,
        () => {
          attemptedAt = new Date().toISOString();
          return attempts.deliverAndRecordWebhook({ deliveryId, attempt, attemptedAt });
        },
        (error) => failureType(error) === ATTEMPT_NOT_MADE_FAILURE,
      );
      if (result.kind !== 'waiting') return { result, attemptedAt };
      countTurnWait();
      await condition(() => bell.rung, endpointTurnWaitMs(waits, Math.random()));
    }
  } catch (error) {
    if (!(error instanceof ActivityFailure) || failureType(error) === FAILURE_TYPES.deliveryNotFound) throw error;
    return { result: { kind: 'attempted', outcome: unattempted(error), recorded: false }, attemptedAt };
  }
}

/** Delivers one event to one endpoint (see module comment). */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const { deliveryId } = input;
  const bell: TurnBell = { rung: false };
  setHandler(endpointTurnSignal, () => {
    bell.rung = true;
  });
  // The delivery log's own writes are retried, however their activity options bound them: what they record happened.
  const recordAgain = () => true;
  for (let attempt = 1; attempt <= MAX_DELIVERY_ATTEMPTS; attempt += 1) {
    // The attempt records itself; the workflow records only an attempt it could not.
    const { result, attemptedAt } = await makeAttempt(deliveryId, attempt, bell);
    if (result.kind === 'skipped') {
      await untilDone(
        `cancelling delivery ${deliveryId}`,
        () => records.recordWebhookDeliveryCancelled({ deliveryId }),
        recordAgain,
      );
      return { deliveryId, status: 'cancelled', attempts: attempt - 1 };
    }
    const { outcome } = result;
    const decision = decideAfterAttempt(attempt, outcome);
    // The wait counts from the failure (docs/webhooks.md#retries): the timer starts with the record, not after it.
    const wait = decision.kind === 'retry' ? sleep(decision.delayMs) : undefined;
    const nextAttemptAt = decision.kind === 'retry' ? new Date(Date.now() + decision.delayMs).toISOString() : null;
    if (!result.recorded) {
      const record = { deliveryId, attempt, attemptedAt, outcome, decision, nextAttemptAt };
      await untilDone(
        `recording attempt ${attempt} of delivery ${deliveryId}`,
        () => records.recordWebhookAttempt(record),
        recordAgain,
      );
    }
    if (decision.kind !== 'retry') return { deliveryId, status: decision.kind, attempts: attempt };
    await wait;
  }
  // decideAfterAttempt never retries after the last attempt; reaching here is a bug in the schedule.
  throw ApplicationFailure.nonRetryable(`delivery ${deliveryId} ran out of attempts without a decision`);
}
