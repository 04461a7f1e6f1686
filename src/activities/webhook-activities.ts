/**
 * The webhook delivery workflow's activities (`WebhookActivities` in src/workflows/activity-contracts.ts,
 * docs/webhooks.md#retries). When our own store cannot be read before the request, an attempt raises
 * `WebhookAttemptNotMade`: the endpoint was not called, and the workflow does not count it. An
 * attempt sends only with a turn at its endpoint, within its merchant's share of the delivery capacity
 * (docs/webhooks.md#isolation, src/db/webhook-turns.ts); without one it answers `waiting` at once, holding no
 * worker slot while it waits.
 */
import { activityInfo, ApplicationFailure, log } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import { isDataError } from '../db/errors';
import {
  dropEndpointWaiter,
  leaveEndpointQueues,
  releaseEndpointTurn,
  untellEndpointWaiter,
  type TurnRelease,
} from '../db/webhook-turns';
import { cancelDelivery, findDeliveryTargetTakingTurn, recordAttempt, recordAttemptGivingTurn } from '../db/webhooks';
import {
  activeSecrets,
  decideAfterAttempt,
  DEFAULT_ENDPOINT_CONCURRENCY,
  DEFAULT_MERCHANT_CONCURRENCY,
  receivesDeliveries,
  type AttemptOutcome,
} from '../domain/webhooks';
import { sendWebhook } from '../lib/webhook-sender';
import { FAILURE_TYPES, type SkipReason, type WebhookActivities } from '../workflows/activity-contracts';
import { ATTEMPT_NOT_MADE_FAILURE, endpointTurnSignal } from '../workflows/webhook-messages';
import { countWebhookAttempt } from './business-metrics';

/** Dependencies of the webhook activities. */
export interface WebhookActivityDeps {
  db: Db;
  /**
   * `WEBHOOK_ENDPOINT_CONCURRENCY` defaults to {@link DEFAULT_ENDPOINT_CONCURRENCY}, `WEBHOOK_MERCHANT_CONCURRENCY` to
   * {@link DEFAULT_MERCHANT_CONCURRENCY}.
   */
  config: Pick<Config, 'WEBHOOK_ALLOW_PRIVATE_TARGETS'> &
    Partial<Pick<Config, 'WEBHOOK_ENDPOINT_CONCURRENCY' | 'WEBHOOK_MERCHANT_CONCURRENCY'>>;
  /**
   * Tells waiting deliveries that a turn at their endpoint came free (docs/webhooks.md#isolation).
   * Without it they find their turn when their own wait ends (tests that need no promptness).
   */
  temporal?: Client;
  /**
   * Writes an attempt record and gives its turn back, in one statement (default: `recordAttemptGivingTurn` of
   * db/webhooks; tests make it fail).
   */
  recordAttempt?: typeof recordAttemptGivingTurn;
}

/**
 * What an attempt did: sent (with the outcome), skipped because the endpoint no longer takes deliveries, or queued for
 * a turn.
 */
type DeliveryAttemptResult =
  | { kind: 'attempted'; outcome: AttemptOutcome; turn: TurnRelease }
  | { kind: 'skipped'; reason: SkipReason }
  | { kind: 'waiting' };

/**
 * The workflow of the running activity, told when a turn comes free for a delivery whose row names none; undefined
 * outside an activity.
 */
function runningWorkflowId(): string | undefined {
  try {
    return activityInfo().workflowExecution?.workflowId;
  } catch {
    return undefined;
  }
}

/** The retryable failure of an attempt that could not be made: nothing was sent. */
function attemptNotMade(reason: string): ApplicationFailure {
  return ApplicationFailure.create({
    type: ATTEMPT_NOT_MADE_FAILURE,
    message: `${reason}; the endpoint was not called`,
    nonRetryable: false,
  });
}

/** Builds the webhook activities around their dependencies. */
export function createWebhookActivities(deps: WebhookActivityDeps): WebhookActivities {
  const writeAttempt = deps.recordAttempt ?? recordAttemptGivingTurn;
  const limit = deps.config.WEBHOOK_ENDPOINT_CONCURRENCY ?? DEFAULT_ENDPOINT_CONCURRENCY;
  const merchantLimit = deps.config.WEBHOOK_MERCHANT_CONCURRENCY ?? DEFAULT_MERCHANT_CONCURRENCY;

  /**
   * Tells the waiting deliveries `workflowIds` that a turn is free for them (signal `endpointTurn`).
   * Never throws: one whose workflow ended is dropped from the queue; one that could not be told
   * otherwise loses its told mark, so the next turn given back or refused tells it again, and it asks
   * again when its own wait ends in any case.
   */
  async function tellWaiters(workflowIds: string[]): Promise<void> {
    const client = deps.temporal;
    if (!client) return;
    await Promise.all(
      workflowIds.map(async (workflowId) => {
        try {
          await client.workflow.getHandle(workflowId).signal(endpointTurnSignal);
        } catch (error) {
          // A waiter whose workflow ended holds no place any more; any other is told again later.
          if (error instanceof WorkflowNotFoundError)
            await dropEndpointWaiter(deps.db, workflowId).catch(() => undefined);
          else {
            log.warn('a waiting delivery was not told of its turn', { workflowId, error: String(error) });
            await untellEndpointWaiter(deps.db, workflowId).catch(() => undefined);
          }
        }
      }),
    );
  }

  /**
   * Gives the turn back and tells the waiters that may take one now. Never throws: a turn not given
   * back runs out with its lease, and an untold waiter asks again when its wait ends.
   */
  async function giveTurnBack(turn: TurnRelease): Promise<void> {
    let next: string[];
    try {
      next = await releaseEndpointTurn(deps.db, turn);
    } catch (error) {
      log.warn('the endpoint turn was not given back; its lease runs out', {
        deliveryId: turn.deliveryId,
        error: String(error),
      });
      return;
    }
    await tellWaiters(next);
  }

  /**
   * One attempt of delivery `deliveryId` (docs/webhooks.md): reads the delivery, the endpoint as it is now
   * (URL, secrets, status) and the event, and takes a turn at the endpoint, in one statement
   * (`findDeliveryTargetTakingTurn`), then POSTs the payload once, signed with every secret still valid
   * (docs/webhooks.md#secret-rotation), and counts it as attempt `attempt` in the worker's metrics
   * (src/activities/business-metrics.ts).
   * @returns `skipped` for a disabled, deleted or gone endpoint, `waiting` when the endpoint or its
   *   merchant has no turn free (nothing sent), else the attempt's outcome (a refused target, a time-out or a
   *   non-2xx answer included) with the turn it holds, which the caller gives back
   * @throws ApplicationFailure `DeliveryNotFound` (non-retryable) for an unknown delivery;
   *   `WebhookAttemptNotMade` (retryable) when the store cannot be read or the event row is not
   *   readable yet: no request was made
   */
  async function attemptDelivery(deliveryId: string, attempt: number): Promise<DeliveryAttemptResult> {
    let found: Awaited<ReturnType<typeof findDeliveryTargetTakingTurn>>;
    try {
      found = await findDeliveryTargetTakingTurn(deps.db, deliveryId, {
        workflowId: runningWorkflowId() ?? deliveryId,
        limit,
        merchantLimit,
      });
    } catch (error) {
      // Data PostgreSQL refuses will not pass: left to fail non-retryably (src/activities/data-errors.ts).
      if (isDataError(error)) throw error;
      throw attemptNotMade(
        `delivery ${deliveryId} could not be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (!found)
      throw ApplicationFailure.create({
        type: FAILURE_TYPES.deliveryNotFound,
        message: `no delivery ${deliveryId}`,
        nonRetryable: true,
      });
    const { target, turn } = found;
    const { delivery, webhook, event } = target;
    const release = webhook
      ? { webhookId: webhook.id, merchantId: webhook.merchantId, deliveryId, limit, merchantLimit }
      : undefined;
    if (!webhook || webhook.deletedAt !== null || !receivesDeliveries(webhook.status, webhook.failureKind)) {
      // A delivery that ends here leaves its endpoint's queue, so that it holds no one back.
      if (turn.taken && release) await giveTurnBack(release);
      else await leaveEndpointQueues(deps.db, deliveryId).catch(() => undefined);
      if (!webhook || webhook.deletedAt !== null) return { kind: 'skipped', reason: 'webhook_deleted' };
      return { kind: 'skipped', reason: webhook.status === 'disabled' ? 'webhook_disabled' : 'webhook_gone' };
    }
    if (!event) throw attemptNotMade(`event ${delivery.eventId} of delivery ${delivery.id} is not readable yet`);
    if (!turn.taken || !release) {
      // Turns come free without a word when a lease runs out (a worker killed mid-request), and a told
      // waiter's signal may be lost: the refused delivery tells the waiters that may go now and were
      // not told, so the queue moves on at once instead of when their own waits end.
      await tellWaiters(turn.tell);
      return { kind: 'waiting' };
    }
    try {
      const outcome = await sendWebhook({
        url: webhook.url,
        secrets: activeSecrets(webhook, Date.now()),
        payload: { id: event.id, event: event.event, created_at: event.created_at, data: event.data },
        environment: webhook.environment,
        allowPrivateTargetsInSandbox: deps.config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      });
      countWebhookAttempt({ environment: webhook.environment, attempt, outcome, eventCreatedAt: event.created_at });
      return { kind: 'attempted', outcome, turn: release };
    } catch (error) {
      await giveTurnBack(release);
      throw error;
    }
  }

  return {
    async deliverAndRecordWebhook(input) {
      const started = Date.now();
      const result = await attemptDelivery(input.deliveryId, input.attempt);
      if (result.kind !== 'attempted') return result;
      const { outcome, turn } = result;
      const decision = decideAfterAttempt(input.attempt, outcome);
      // The next attempt is due its delay after this failure, on the workflow's clock (docs/webhooks.md#retries).
      const failedAtMs = Date.parse(input.attemptedAt) + (Date.now() - started);
      const nextAttemptAt = decision.kind === 'retry' ? new Date(failedAtMs + decision.delayMs).toISOString() : null;
      const record = {
        deliveryId: input.deliveryId,
        attempt: input.attempt,
        attemptedAt: input.attemptedAt,
        outcome,
        decision,
        nextAttemptAt,
      };
      try {
        // The record and the turn given back are one statement; if it fails, the turn is given back on its own.
        const { tell } = await writeAttempt(deps.db, record, new Date(), turn);
        await tellWaiters(tell);
        return { kind: 'attempted', outcome, recorded: true };
      } catch (error) {
        log.warn('the attempt was sent but not recorded; the workflow records it', {
          deliveryId: input.deliveryId,
          attempt: input.attempt,
          error: String(error),
        });
        await giveTurnBack(turn);
        return { kind: 'attempted', outcome, recorded: false };
      }
    },

    async recordWebhookAttempt(record) {
      return recordAttempt(deps.db, record, new Date());
    },

    async recordWebhookDeliveryCancelled(input) {
      await cancelDelivery(deps.db, input.deliveryId, new Date());
    },
  };
}
