/**
 * The `webhooks` section of the OpenAPI document: one entry per event a webhook endpoint receives,
 * with the delivery's payload schema, its signature headers and what the endpoint's answer means
 * (docs/webhooks.md). The payload is `{id, event, created_at, data}`, the event as
 * `GET /v1/developer/events/{id}` shows it without `object`.
 */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from '../../lib/zod';
import { TEST_EVENT_NAME } from '../../domain/webhooks';
import { EVENT_NAMES } from '../routes/events';
import * as example from './examples';
import * as out from '../../views';
import { checkoutSessionExample } from '../route-docs/checkout';

/** One event a webhook endpoint can receive. */
interface WebhookEventDoc {
  name: (typeof EVENT_NAMES)[number] | typeof TEST_EVENT_NAME;
  summary: string;
  description: string;
  data: z.ZodType;
  example: unknown;
}

/** A payment that failed: the customer declined the prompt. */
const failedPayment: z.input<typeof out.genericPayment> = {
  ...example.pendingPayment,
  status: 'failed',
  next_action: null,
  failure_code: 'declined',
  failure_message: 'the customer declined the payment',
  updated_at: '2026-11-24T10:00:30.000Z',
};

/** Every event, in the order the document lists them. */
export const WEBHOOK_EVENTS: readonly WebhookEventDoc[] = [
  {
    name: 'payment.created',
    summary: 'A payment was created',
    description:
      'Sent for payments created through either payment endpoint, once the payment is recorded. `data` is the payment.',
    data: out.genericPayment,
    example: example.pendingPayment,
  },
  {
    name: 'payment.completed',
    summary: 'A payment completed',
    description:
      'The provider confirmed the customer paid. `data` is the payment. Also sent, a second time, when a provider success arrives after the payment had failed as `expired` or `provider_error`: the payment then becomes `completed` with `reconciled_at` set.',
    data: out.genericPayment,
    example: example.completedPayment,
  },
  {
    name: 'payment.failed',
    summary: 'A payment failed',
    description: 'The provider declined the payment, or it expired (`failure_code` says which). `data` is the payment.',
    data: out.genericPayment,
    example: failedPayment,
  },
  {
    name: 'payment.cancelled',
    summary: 'A payment was cancelled',
    description: 'You cancelled a pending or processing payment. `data` is the payment.',
    data: out.genericPayment,
    example: example.cancelledPayment,
  },
  {
    name: 'refund.completed',
    summary: 'A refund completed',
    description:
      'The provider confirmed a refund. `data` is the refund with `payment`, the payment after it (`refunded` once fully refunded). A provider success that arrives after you cancelled a payment is refunded in full automatically, with the reason `late_success_after_cancel`.',
    data: out.refundWithPayment,
    example: { ...example.completedRefund, payment: example.partlyRefundedPayment },
  },
  {
    name: 'refund.failed',
    summary: 'A refund failed',
    description:
      "The provider refused a refund (`failure_message` says why); no money moved. Its amount is released: refundable again, no longer in the payment's `amount_refund_pending`. `data` is the refund with `payment`, the payment after it. A refund whose provider answer is only unknown stays `pending` and is never failed for it.",
    data: out.refundWithPayment,
    example: { ...example.failedRefund, payment: example.completedPayment },
  },
  {
    name: 'webhook.created',
    summary: 'A webhook endpoint was created',
    description:
      'Sent to your other endpoints subscribed to it, never to the new endpoint itself. `data` is the webhook, without its secret.',
    data: out.webhook,
    example: example.webhook,
  },
  {
    name: 'payout.created',
    summary: 'A payout was created',
    description:
      'A payout was accepted and its amount and fee reserved from your balance (docs/payouts.md#states). `data` is the payout, `pending`.',
    data: out.payout,
    example: { ...example.payoutExample, status: 'pending', arrival_date: null },
  },
  {
    name: 'payout.paid',
    summary: 'A payout was paid',
    description: 'The provider paid the payout to the destination. `data` is the payout, `paid`.',
    data: out.payout,
    example: example.payoutExample,
  },
  {
    name: 'payout.failed',
    summary: 'A payout failed',
    description:
      'The provider refused the payout (`failure_code` says why); amount and fee are back in your balance. `data` is the payout. A payout whose answer is only unknown stays `in_transit` and is asked about, never failed for it.',
    data: out.payout,
    example: {
      ...example.payoutExample,
      status: 'failed',
      arrival_date: null,
      failure_code: 'account_invalid',
      failure_message: 'The account does not exist',
    },
  },
  {
    name: 'payout.returned',
    summary: 'A paid payout was returned',
    description:
      'The provider reversed a paid payout: amount and fee are back in your balance. `data` is the payout, `returned`.',
    data: out.payout,
    example: { ...example.payoutExample, status: 'returned' },
  },
  {
    name: 'checkout.session.completed',
    summary: 'A checkout session was paid',
    description:
      'One attempt of the session completed it (docs/checkout.md#states). `data` is the session, `complete`, whose `payment` names the payment that paid it (its own `payment.completed` carries the payment).',
    data: out.checkoutSession,
    example: {
      ...checkoutSessionExample,
      status: 'complete',
      payment: 'pay_2Kl4Mn6Op8Qr0St2Uv4Wx6Yz',
      attempts_count: 1,
    },
  },
  {
    name: 'checkout.session.expired',
    summary: 'A checkout session expired',
    description:
      'You expired it, or `expires_at` passed with no attempt in flight (docs/checkout.md#states). `data` is the session, `expired`.',
    data: out.checkoutSession,
    example: { ...checkoutSessionExample, status: 'expired' },
  },
  {
    name: 'provider.status_changed',
    summary: "An operator's status changed",
    description:
      "A provider, country and operation of your environment changed status (`operational`, `degraded`, `down`), as measured from all merchants' traffic or set by our operators with a reason (docs/availability.md#events). Sent to every merchant of the environment with an endpoint subscribed to it, once per change. `data` is the status with the figures of its window.",
    data: out.providerStatusChanged,
    example: {
      provider: 'momo',
      country: 'RW',
      operation: 'collection',
      status: 'degraded',
      previous_status: 'operational',
      since: '2026-11-24T10:00:00.000Z',
      reason: '34 % provider failures in the last 50 attempts, p95 41 s',
      success_rate: 0.52,
      window_attempts: 50,
    },
  },
  {
    name: TEST_EVENT_NAME,
    summary: 'A test delivery',
    description:
      'Sent only by `POST /v1/developer/webhooks/{id}/test`, once, whatever the endpoint subscribes to; never listed as an event.',
    data: z.object({ webhook_id: z.string().openapi({ description: 'The webhook tested' }) }),
    example: { webhook_id: example.ids.webhook },
  },
];

/** `payment.completed` → `PaymentCompletedEvent`. */
function componentName(eventName: string): string {
  return `${eventName
    .split(/[._]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('')}Event`;
}

/** The payload schema of one event, named in `components.schemas` (e.g. `PaymentCompletedEvent`). */
export function webhookPayloadSchema(doc: WebhookEventDoc) {
  return z
    .object({
      id: z.string().openapi({
        description:
          'The event id `evt_…`, the same on every attempt and retry (also in `webhook-id`): de-duplicate on it',
      }),
      event: z.literal(doc.name).openapi({ description: "The event's name" }),
      created_at: z.iso.datetime().openapi({ description: 'When it happened (ISO 8601, UTC)' }),
      data: doc.data.openapi({ description: 'The object the event is about, as it was then' }),
    })
    .openapi(componentName(doc.name), { description: doc.summary });
}

/** The headers of every delivery. */
const deliveryHeaders = z.object({
  'webhook-id': z.string().openapi({
    description: 'The event id (`evt_…`), the same on every attempt and retry',
    example: example.ids.event,
  }),
  'webhook-timestamp': z.string().regex(/^\d+$/).openapi({
    description: 'Unix seconds of this attempt; refuse deliveries more than 5 minutes away from your clock',
    example: '1795514404',
  }),
  'webhook-signature': z.string().openapi({
    description:
      "Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part of your secret after `whsec_`. Verify it with a Standard Webhooks library (`new Webhook(secret).verify(rawBody, headers)`). For 24 hours after a secret rotation it carries two signatures, space-separated, the new secret's first.",
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  }),
  'X-Webhook-Signature': z.string().openapi({
    description:
      'The simple scheme: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the whole secret string as shown (`whsec_…`). Two values, space-separated, during a rotation: accept the delivery when one matches.',
    example: 'sha256=3b8f0e5c2a7d9e1f4b6c8a0d2e4f6a8b0c2d4e6f8a0b2c4d6e8f0a2b4c6d8e0f',
  }),
  'User-Agent': z
    .string()
    .openapi({ description: 'Always `paycollect-webhooks/1.0`', example: 'paycollect-webhooks/1.0' }),
});

/** Registers every event of {@link WEBHOOK_EVENTS} in the document's `webhooks` section. */
export function registerWebhookEvents(registry: OpenAPIRegistry): void {
  for (const doc of WEBHOOK_EVENTS) {
    registry.registerWebhook({
      method: 'post',
      path: doc.name,
      operationId: `on${componentName(doc.name).replace(/Event$/, '')}`,
      summary: doc.summary,
      description: `${doc.description}\n\nDelivered to each enabled webhook endpoint subscribed to \`${doc.name}\` as a \`POST\` with a JSON body, signed with the endpoint's secret. Deliveries may arrive more than once and in any order: de-duplicate on \`webhook-id\`, and read \`data.status\` rather than the order of events.`,
      tags: ['Webhook events'],
      security: [],
      request: {
        headers: deliveryHeaders,
        body: {
          required: true,
          content: {
            'application/json': {
              schema: webhookPayloadSchema(doc),
              example: {
                id: example.ids.event,
                event: doc.name,
                created_at: '2026-11-24T10:00:04.000Z',
                data: doc.example,
              },
            },
          },
        },
      },
      responses: {
        200: {
          description:
            'Any 2xx status acknowledges the delivery within 10 seconds; the body is ignored (its first 1 KiB is kept in the delivery log).',
        },
        410: {
          description:
            'Gone: the delivery ends at once and the webhook becomes `failed`; nothing more is sent to it until you enable it again.',
        },
        default: {
          description:
            'Any other status, a redirect (never followed), no answer within 10 seconds or a connection error is a failed attempt. Attempts: at once, then 5 minutes, 30 minutes, 2 hours and 24 hours after each failure (a longer `Retry-After` on a 429 or 503 is honoured, up to 24 hours). After the fifth failure the delivery is `failed` and the webhook becomes `failed` until a later delivery succeeds.',
        },
      },
    });
  }
}
