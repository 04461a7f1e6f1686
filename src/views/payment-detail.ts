/**
 * The dashboard's payment detail (README.md#dashboard), as `GET /v1/developer/payments/{id}` answers it; built by
 * src/services/payment-timeline.ts.
 */
import { z } from '../lib/zod';
import { PAYMENT_STATUSES } from '../domain/payment';
import { event } from './event';
import { genericPayment } from './payment';
import { refund } from './refund';
import { timestamp } from './timestamp';
import { delivery } from './webhook';
import { currencyCode, nullableText } from './fields';

/** One status change of the payment's timeline, with where it came from. */
export const statusChange = z.object({
  at: timestamp.openapi({ description: 'When (ISO 8601, UTC)' }),
  from: z.enum(PAYMENT_STATUSES).nullable().openapi({ description: 'The status before; null at creation' }),
  to: z.enum(PAYMENT_STATUSES).openapi({ description: 'The status after' }),
  source: z.enum(['create', 'provider_callback', 'poll', 'expiry', 'merchant', 'reconciliation']).openapi({
    description:
      'What caused it: the answer at creation, a provider callback, a poll, the expiry, you, or a reconciliation',
  }),
  failure_code: nullableText('Why it failed; null unless it did'),
  failure_message: nullableText('The explanation of the failure; null unless it failed'),
});

/** One moment of a refund's course (`domain/payment-timeline.ts` `refundChangesOf`): its status from `at` on. */
export const refundChange = z.object({
  at: timestamp.openapi({ description: 'When (ISO 8601, UTC)' }),
  refund_id: z.string().openapi({ description: 'The refund, `ref_…`' }),
  amount: z.number().int().openapi({ description: 'Minor units' }),
  status: z
    .enum(['pending', 'completed', 'failed'])
    .openapi({ description: '`pending` when requested, then `completed` or `failed` when it settled' }),
  reason: nullableText('The reason you gave; null when none'),
  failure_message: nullableText('Why the provider refused it; null unless failed'),
});

/**
 * The payment detail: amounts in minor units; `fee` and `net` = amount − fee − refunded once the money was
 * collected, 0 and 0 while or when it was not (docs/limits.md#lists); the refunds' course, oldest first, each
 * refund `pending` at its request and settled at its completion; the events sent about the payment,
 * oldest first, each with its webhook deliveries; `next_provider_check` null once the service will not ask the
 * provider again.
 */
export const paymentDetail = z.object({
  payment: genericPayment,
  fee: z.number().int().openapi({ description: 'The fee in minor units, once money moved; else 0' }),
  net: z.number().int().openapi({ description: 'Amount − fee − refunded, in minor units' }),
  provider_reference: nullableText(
    "The provider's own id of the payment request (MTN MoMo's X-Reference-Id, Airtel's transaction id, the card gateway's PaymentIntent); null until it gave one, and for M-Pesa, whose push names the payment by this service's id (docs/providers.md#m-pesa): its customer-facing id is `payment.provider_receipt_number`",
  ),
  refunds: z.array(refund).openapi({ description: 'The refunds, oldest first' }),
  status_changes: z.array(statusChange).openapi({ description: 'Every status change, oldest first' }),
  refund_changes: z
    .array(refundChange)
    .openapi({ description: "Each refund's course: requested, then completed or failed" }),
  history_available: z.boolean().openapi({
    description: "Whether the workflow's history is still kept (the sources of status changes come from it)",
  }),
  events: z
    .array(
      event.omit({ object: true, data: true }).extend({
        data: z.unknown().openapi({ description: "The event's payload, as the webhook delivered it" }),
        deliveries: z
          .array(delivery)
          .openapi({ description: "The event's deliveries to your webhook endpoints, with their attempts" }),
      }),
    )
    .openapi({ description: 'The events sent about the payment, oldest first' }),
  next_provider_check: z
    .object({
      at: timestamp.openapi({ description: 'When the service asks the provider next (ISO 8601, UTC)' }),
      reason: z.enum(['poll', 'expiry', 'refund_check']).openapi({
        description:
          '`poll`: the payment is still awaited; `expiry`: the last check at its expiry; `refund_check`: a refund is awaited',
      }),
    })
    .nullable()
    .openapi({ description: 'When the service next asks the provider, and why; null when nothing is awaited' }),
  postings: z
    .array(
      z.object({
        journal_id: z.string().openapi({ description: 'The journal (`jrn_…`) the posting belongs to' }),
        cause: z
          .string()
          .openapi({ description: 'What posted it: `payment:{id}:completed`, `refund:{id}:reserved` …' }),
        account: z.string().openapi({ description: 'The ledger account: its kind, and its owner after a colon' }),
        amount: z.number().int().openapi({ description: 'Minor units, debit positive, credit negative' }),
        currency: currencyCode,
        created_at: timestamp.openapi({ description: 'When it was posted (ISO 8601, UTC)' }),
      }),
    )
    .openapi({
      description: 'The ledger postings of the payment and its refunds (docs/ledger.md#postings), oldest first',
    }),
});

/** The payment detail as answered. */
export type PaymentDetailView = z.output<typeof paymentDetail>;
