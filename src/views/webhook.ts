/**
 * The API's forms of webhook endpoints (docs/webhooks.md#endpoints), their deliveries and attempts
 * (docs/webhooks.md#retries) and a test delivery (docs/webhooks.md#test).
 */
import { z } from '../lib/zod';
import type { DeliveryWithAttempts, RecordedAttempt, WebhookRecord } from '../domain/webhooks';
import { timestamp } from './timestamp';
import { createdAt, nullableText, objectId, objectName, updatedAt } from './fields';

/** A webhook endpoint (docs/webhooks.md#endpoints), never with its secret. */
export const webhook = z
  .object({
    id: objectId('Webhook', 'whk_'),
    object: objectName('webhook'),
    url: z.string().openapi({ description: 'Where deliveries are POSTed' }),
    events: z.array(z.string()).openapi({ description: 'The event names delivered to it' }),
    status: z
      .enum(['enabled', 'disabled', 'failed'])
      .openapi({ description: '`enabled`; `disabled` by you; `failed` when the endpoint refused for good' }),
    failure_reason: z
      .string()
      .nullable()
      .describe('Why the webhook is failed (e.g. "the endpoint answered 410 Gone at …"); null unless status is failed'),
    description: nullableText('Your description; null when none'),
    environment: z.enum(['sandbox', 'live']).openapi({ description: 'The environment whose events it receives' }),
    previous_secret_expires_at: timestamp
      .nullable()
      .describe(
        'Until when the secret replaced by the last rotation still signs deliveries, beside the current one; null when none does',
      ),
    created_at: timestamp.openapi({ description: 'When it was registered (ISO 8601, UTC)' }),
    updated_at: updatedAt,
  })
  .openapi('Webhook', { description: 'An endpoint that receives your events' });

/** A webhook endpoint as answered. */
export type WebhookView = z.output<typeof webhook>;

/** The API form of a webhook as it is now, without its secrets. */
export function toWebhookView(record: WebhookRecord): WebhookView {
  return webhookViewAt(record, new Date());
}

/**
 * The API form of a webhook at `now`, which decides whether the secret a rotation replaced still
 * signs (`previous_secret_expires_at` is null once it no longer does).
 */
export function webhookViewAt(record: WebhookRecord, now: Date): WebhookView {
  const overlapEnds = record.previousSecretExpiresAt;
  return {
    id: record.id,
    object: 'webhook',
    url: record.url,
    events: record.events,
    status: record.status,
    failure_reason: record.status === 'failed' ? record.failureReason : null,
    description: record.description,
    environment: record.environment,
    previous_secret_expires_at: overlapEnds !== null && Date.parse(overlapEnds) > now.getTime() ? overlapEnds : null,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}

/** A webhook with its signing secret, shown on create and rotate-secret only (docs/webhooks.md#endpoints). */
export const webhookWithSecret = webhook
  .extend({ secret: z.string().openapi({ description: 'The signing secret (`whsec_…`); shown only here, store it' }) })
  .openapi('WebhookWithSecret', {
    description: 'A webhook endpoint with its signing secret, shown on create and on rotation only',
  });

/** A webhook with its signing secret as answered. */
export type WebhookWithSecretView = z.output<typeof webhookWithSecret>;

/** The API form of a webhook with its current signing secret (create and rotate-secret only). */
export function toWebhookWithSecretView(record: WebhookRecord): WebhookWithSecretView {
  return { ...toWebhookView(record), secret: record.secret };
}

/** One delivery attempt (docs/webhooks.md#retries); `duration_ms` in milliseconds. */
export const deliveryAttempt = z.object({
  attempt: z.number().int().openapi({ description: 'Its number, from 1' }),
  attempted_at: timestamp.openapi({ description: 'When it was sent (ISO 8601, UTC)' }),
  status_code: z
    .number()
    .int()
    .nullable()
    .openapi({ description: "The endpoint's HTTP status; null when it never answered" }),
  response_body: nullableText("The start of the endpoint's answer; null when none"),
  duration_ms: z.number().openapi({ description: 'How long the attempt took, in milliseconds' }),
  error: nullableText('Why no answer came (time-out, refused connection); null when one came'),
});

/** A delivery of one event to one webhook, with its attempts (docs/webhooks.md#retries). */
export const delivery = z
  .object({
    id: objectId('Delivery', 'dlv_'),
    object: objectName('webhook_delivery'),
    webhook_id: z.string().openapi({ description: 'The webhook it goes to' }),
    event_id: z.string().openapi({ description: 'The event it carries, the `webhook-id` header' }),
    event: z.string().openapi({ description: "The event's name" }),
    status: z
      .enum(['pending', 'succeeded', 'failed', 'cancelled'])
      .openapi({ description: '`pending` while attempts go on, then `succeeded`, `failed` or `cancelled`' }),
    attempt_count: z.number().int().openapi({ description: 'Attempts made so far' }),
    next_attempt_at: timestamp.nullable().openapi({ description: 'When the next attempt is due; null when none is' }),
    retry_of: nullableText('The delivery this one resends; null for a first delivery'),
    created_at: createdAt,
    updated_at: updatedAt,
    attempts: z.array(deliveryAttempt).openapi({ description: 'Every attempt, oldest first' }),
  })
  .openapi('WebhookDelivery', { description: 'One event sent to one webhook endpoint, with its attempts' });

/** A delivery as answered, its attempts in order. */
export type DeliveryView = z.output<typeof delivery>;

/** The API form of an attempt. */
function toAttemptView(recorded: RecordedAttempt): DeliveryView['attempts'][number] {
  return {
    attempt: recorded.attempt,
    attempted_at: recorded.attemptedAt,
    status_code: recorded.outcome.statusCode,
    response_body: recorded.outcome.responseBody,
    duration_ms: recorded.outcome.durationMs,
    error: recorded.outcome.error,
  };
}

/** The API form of a delivery and its attempts. */
export function toDeliveryView(record: DeliveryWithAttempts): DeliveryView {
  return {
    id: record.id,
    object: 'webhook_delivery',
    webhook_id: record.webhookId,
    event_id: record.eventId,
    event: record.eventType,
    status: record.status,
    attempt_count: record.attemptCount,
    next_attempt_at: record.nextAttemptAt,
    retry_of: record.retryOf,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
    attempts: record.attempts.map(toAttemptView),
  };
}

/**
 * The answer of a test delivery (docs/webhooks.md#test): `duration_ms` in milliseconds, `error` when no HTTP answer
 * came.
 */
export const testDelivery = z.object({
  delivered: z.boolean().openapi({ description: 'Whether your endpoint answered with a 2xx status' }),
  status_code: z
    .number()
    .int()
    .nullable()
    .openapi({ description: "Your endpoint's HTTP status; null when it gave none (refused, timed out)" }),
  duration_ms: z.number().openapi({ description: 'How long the attempt took, in milliseconds' }),
  error: nullableText('Why it was not delivered (connection refused, time-out, status); null when delivered'),
});

/** A test delivery's answer. */
export type TestDeliveryView = z.output<typeof testDelivery>;
