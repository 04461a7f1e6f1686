/**
 * The API's forms of webhook endpoints (docs/webhooks.md#endpoints), their deliveries and attempts
 * (docs/webhooks.md#retries) and a test delivery (docs/webhooks.md#test).
 */
import { z } from '../lib/zod';
import type { DeliveryWithAttempts, RecordedAttempt, WebhookRecord } from '../domain/webhooks';
import { timestamp } from './timestamp';

/** A webhook endpoint (docs/webhooks.md#endpoints), never with its secret. */
export const webhook = z
  .object({
    id: z.string(),
    object: z.literal('webhook'),
    url: z.string(),
    events: z.array(z.string()),
    status: z.enum(['enabled', 'disabled', 'failed']),
    failure_reason: z
      .string()
      .nullable()
      .describe('Why the webhook is failed (e.g. "the endpoint answered 410 Gone at …"); null unless status is failed'),
    description: z.string().nullable(),
    environment: z.enum(['sandbox', 'live']),
    previous_secret_expires_at: timestamp
      .nullable()
      .describe(
        'Until when the secret replaced by the last rotation still signs deliveries, beside the current one; null when none does',
      ),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi('Webhook');

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
  .openapi('WebhookWithSecret');

/** A webhook with its signing secret as answered. */
export type WebhookWithSecretView = z.output<typeof webhookWithSecret>;

/** The API form of a webhook with its current signing secret (create and rotate-secret only). */
export function toWebhookWithSecretView(record: WebhookRecord): WebhookWithSecretView {
  return { ...toWebhookView(record), secret: record.secret };
}

/** One delivery attempt (docs/webhooks.md#retries); `duration_ms` in milliseconds. */
export const deliveryAttempt = z.object({
  attempt: z.number().int(),
  attempted_at: timestamp,
  status_code: z.number().int().nullable(),
  response_body: z.string().nullable(),
  duration_ms: z.number(),
  error: z.string().nullable(),
});

/** A delivery of one event to one webhook, with its attempts (docs/webhooks.md#retries). */
export const delivery = z
  .object({
    id: z.string(),
    object: z.literal('webhook_delivery'),
    webhook_id: z.string(),
    event_id: z.string(),
    event: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed', 'cancelled']),
    attempt_count: z.number().int(),
    next_attempt_at: timestamp.nullable(),
    retry_of: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
    attempts: z.array(deliveryAttempt),
  })
  .openapi('WebhookDelivery');

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
  delivered: z.boolean(),
  status_code: z.number().int().nullable(),
  duration_ms: z.number(),
  error: z.string().nullable(),
});

/** A test delivery's answer. */
export type TestDeliveryView = z.output<typeof testDelivery>;
