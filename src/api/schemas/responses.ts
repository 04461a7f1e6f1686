/**
 * Response shapes, as zod schemas for the OpenAPI document (docs/api.md#health). They describe what the views in
 * src/domain and src/api build; tests compare real answers with them.
 */
import { z } from '../../lib/zod';
import { ERROR_CODES } from '../../domain/errors';
import { PAYMENT_STATUSES } from '../../domain/payment';

const timestamp = z.iso.datetime();

/** The error envelope of the generic and developer endpoints (interface.md, docs/api.md#errors). */
export const envelopeError = z.object({
  success: z.literal(false),
  error: z.object({
    code: z.enum(ERROR_CODES),
    message: z.string(),
    details: z.array(z.object({ field: z.string(), message: z.string() })).optional().openapi({ description: 'For `validation_error` (and `documents_missing`): every bad field or missing item, the first being the one the message names' }),
  }),
});

/** The error of the merchant-scoped endpoints (interface.md, Errors rule 2). */
export const plainError = z.object({ error: z.string() });

/** The success envelope around `data`. */
export function envelope<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), message: z.string(), data });
}

/** What the customer or front end does next (docs/payments.md#payment-record). */
export const nextAction = z
  .union([
    z.object({ type: z.literal('bank_transfer'), bank_name: z.string(), account_name: z.string(), account_number: z.string(), reference: z.string() }),
    z.object({ type: z.literal('card_confirm'), client_secret: z.string() }),
    z.object({ type: z.literal('mobile_money_approval'), message: z.string() }),
  ])
  .nullable()
  .openapi('NextAction', { description: 'What the customer or your front end does next, as the provider gave it: transfer instructions, the card confirmation, or the mobile money prompt; null once nothing is awaited' });

/** The generic payment (interface.md; docs/payments.md#payment-record); `amount` in minor units. */
export const genericPayment = z.object({
  id: z.string().openapi({ description: 'Payment id, `pay_` and 24 characters' }),
  object: z.literal('payment'),
  amount: z.number().int().openapi({ description: 'In the currency\'s minor unit (RWF and UGX have none: 1500 is RWF 1,500; KES, GHS, USD, EUR, GBP and LRD have two: 1500 is 15.00)' }),
  amount_refunded: z.number().int().openapi({ description: 'Refunded so far, in minor units' }),
  currency: z.string().openapi({ description: 'ISO 4217 code' }),
  status: z.enum(PAYMENT_STATUSES).openapi({ description: '`pending` (the provider has the request; waiting for the customer), `processing`, then `completed`, `failed`, `cancelled`, or `refunded` once fully refunded' }),
  payment_method: z.string(),
  provider: z.string(),
  description: z.string().nullable(),
  phone_number: z.string().optional(),
  customer_email: z.string().optional(),
  wallet_id: z.string().optional(),
  metadata: z.record(z.string(), z.string()),
  failure_code: z.string().nullable(),
  failure_message: z.string().nullable(),
  cancellation_reason: z.string().nullable(),
  next_action: nextAction,
  client_secret: z.string().optional().openapi({ description: 'Card payments: what your front end confirms the card with' }),
  environment: z.enum(['sandbox', 'live']),
  expires_at: timestamp.openapi({ description: 'When a payment still open fails with `failure_code` `expired`' }),
  reconciled_at: timestamp.nullable().openapi({ description: 'Set when a provider success that arrived after the payment had failed (expired or provider error) completed it' }),
  created_at: timestamp,
  updated_at: timestamp,
}).openapi('Payment');

/** The merchant-scoped payment (interface.md); decimal-string amounts. */
export const merchantPayment = z.object({
  id: z.string(),
  status: z.enum(PAYMENT_STATUSES),
  amount: z.string(),
  currency: z.string(),
  payment_method: z.string(),
  description: z.string().nullable(),
  client_secret: z.string().optional(),
  failure_code: z.string().nullable(),
  created_at: timestamp,
  metadata: z.record(z.string(), z.string()).openapi({ description: 'Your metadata, plus `fee_amount` and `fee_percentage` as decimal strings' }),
}).openapi('MerchantScopedPayment');

/** A refund (docs/payments.md#cancel-and-refund). */
export const refund = z.object({
  id: z.string(),
  object: z.literal('refund'),
  payment_id: z.string(),
  amount: z.number().int(),
  currency: z.string(),
  status: z.enum(['pending', 'completed', 'failed']),
  reason: z.string().nullable(),
  failure_message: z.string().nullable(),
  created_at: timestamp,
  completed_at: timestamp.nullable(),
}).openapi('Refund');

/** Pagination of lists (docs/limits.md#lists). */
export const pagination = z.object({ page: z.number().int(), limit: z.number().int(), total: z.number().int(), total_pages: z.number().int() });

/** An event (docs/payments.md#events). */
export const event = z
  .object({ id: z.string(), object: z.literal('event'), event: z.string(), created_at: timestamp, data: z.unknown().openapi({ description: 'The object the event is about, as a webhook delivery carries it (see the `webhooks` section)' }) })
  .openapi('Event');

/** A developer as registration answers it. */
export const developer = z.object({
  id: z.string(),
  merchant_id: z.string(),
  email: z.string(),
  name: z.string(),
  business_name: z.string().nullable(),
  plan: z.string(),
  has_live_access: z.boolean(),
  created_at: timestamp,
});

/** The profile (docs/api.md#profile). */
export const profile = developer.extend({ country: z.string().nullable(), phone: z.string().nullable() });

/** A session token (docs/api.md#sessions). */
export const session = z.object({ token: z.string(), expires_at: timestamp });

/** A listed key (docs/api.md#secret-keys). */
export const keySummary = z.object({
  id: z.string(),
  environment: z.enum(['sandbox', 'live']),
  masked: z.string(),
  last4: z.string(),
  status: z.enum(['active', 'expiring', 'expired', 'revoked']),
  created_at: timestamp,
  expires_at: timestamp.nullable(),
});

/** A transaction (docs/limits.md#lists). */
export const transaction = z.object({
  id: z.string(),
  type: z.enum(['payment', 'refund']),
  payment_id: z.string(),
  amount: z.number().int(),
  currency: z.string(),
  fee: z.number().int(),
  net: z.number().int(),
  status: z.string(),
  payment_method: z.string(),
  customer: z.string().nullable(),
  description: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});

/** Analytics (docs/limits.md#lists). */
export const analytics = z.object({
  from: timestamp,
  to: timestamp,
  volume_by_currency: z.array(z.object({ currency: z.string(), completed_volume: z.number().int(), refunded_volume: z.number().int(), fees: z.number().int(), net: z.number().int() })),
  count_by_status: z.record(z.string(), z.number().int()),
  count_by_method: z.record(z.string(), z.number().int()),
  success_rate: z.number().nullable(),
  daily: z.array(z.object({ date: z.string(), currency: z.string(), payments: z.number().int(), completed: z.number().int(), completed_volume: z.number().int(), fees: z.number().int() })),
});

/** An uploaded document (docs/live-access.md#documents). */
export const document = z.object({
  id: z.string(),
  object: z.literal('document'),
  category: z.enum(['kyc', 'business']),
  document_type: z.string(),
  side: z.enum(['front', 'back']).nullable(),
  file_name: z.string(),
  content_type: z.enum(['application/pdf', 'image/jpeg', 'image/png']),
  size: z.number().int(),
  sha256: z.string(),
  uploaded_at: timestamp,
});

/** The live access status (docs/live-access.md#review). */
export const liveAccessStatus = z.object({
  status: z.enum(['none', 'pending', 'approved', 'rejected']),
  has_live_access: z.boolean(),
  live_access_request: z
    .object({
      id: z.string(),
      status: z.enum(['under_review', 'more_info_required', 'approved', 'rejected']),
      requested_at: timestamp,
      decided_at: timestamp.optional(),
      reviewer_message: z.string().optional(),
    })
    .optional(),
});

/** The first live key, revealed once (docs/api.md#secret-keys). */
export const revealedKey = z.object({ id: z.string(), object: z.literal('api_key'), environment: z.literal('live'), secret: z.string(), last4: z.string(), created_at: timestamp });

/** An audit log entry (docs/live-access.md#audit-log). */
export const activityEntry = z.object({
  id: z.string(),
  actor: z.object({ type: z.enum(['developer', 'api_key', 'reviewer', 'operator', 'system']), id: z.string() }),
  action: z.string(),
  target: z.string(),
  ip: z.string().nullable(),
  created_at: timestamp,
});

/** A webhook endpoint (docs/webhooks.md#endpoints), never with its secret. */
export const webhook = z.object({
  id: z.string(),
  object: z.literal('webhook'),
  url: z.string(),
  events: z.array(z.string()),
  status: z.enum(['enabled', 'disabled', 'failed']),
  failure_reason: z.string().nullable().describe('Why the webhook is failed (e.g. "the endpoint answered 410 Gone at …"); null unless status is failed'),
  description: z.string().nullable(),
  environment: z.enum(['sandbox', 'live']),
  previous_secret_expires_at: timestamp.nullable().describe('Until when the secret replaced by the last rotation still signs deliveries, beside the current one; null when none does'),
  created_at: timestamp,
  updated_at: timestamp,
}).openapi('Webhook');

/** A webhook with its signing secret, shown on create and rotate-secret only (docs/webhooks.md#endpoints). */
export const webhookWithSecret = webhook.extend({ secret: z.string().openapi({ description: 'The signing secret (`whsec_…`); shown only here, store it' }) }).openapi('WebhookWithSecret');

/** One delivery attempt (docs/webhooks.md#retries). */
export const deliveryAttempt = z.object({
  attempt: z.number().int(),
  attempted_at: timestamp,
  status_code: z.number().int().nullable(),
  response_body: z.string().nullable(),
  duration_ms: z.number(),
  error: z.string().nullable(),
});

/** A delivery of one event to one webhook, with its attempts (docs/webhooks.md#retries). */
export const delivery = z.object({
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
}).openapi('WebhookDelivery');

/** The answer of a test delivery (docs/webhooks.md#test). */
export const testDelivery = z.object({ delivered: z.boolean(), status_code: z.number().int().nullable(), duration_ms: z.number(), error: z.string().nullable() });

/** Pagination of the cursor-paginated lists (`GET /v1/payments`). */
export const cursorPagination = z.object({
  limit: z.number().int(),
  has_more: z.boolean().openapi({ description: 'True when more items follow the last one of this page' }),
  next_starting_after: z.string().nullable().openapi({ description: 'Pass it as `starting_after` for the next page; null on the last page' }),
});
