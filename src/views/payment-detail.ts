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

/** One status change of the payment's timeline, with where it came from. */
export const statusChange = z.object({
  at: timestamp,
  from: z.enum(PAYMENT_STATUSES).nullable(),
  to: z.enum(PAYMENT_STATUSES),
  source: z.enum(['create', 'provider_callback', 'poll', 'expiry', 'merchant', 'reconciliation']),
  failure_code: z.string().nullable(),
  failure_message: z.string().nullable(),
});

/** One moment of a refund's course (`domain/payment-timeline.ts` `refundChangesOf`): its status from `at` on. */
export const refundChange = z.object({
  at: timestamp,
  refund_id: z.string(),
  amount: z.number().int().openapi({ description: 'Minor units' }),
  status: z
    .enum(['pending', 'completed', 'failed'])
    .openapi({ description: '`pending` when requested, then `completed` or `failed` when it settled' }),
  reason: z.string().nullable(),
  failure_message: z.string().nullable(),
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
  fee: z.number().int(),
  net: z.number().int(),
  provider_reference: z.string().nullable(),
  refunds: z.array(refund),
  status_changes: z.array(statusChange),
  refund_changes: z.array(refundChange),
  history_available: z.boolean(),
  events: z.array(
    event.omit({ object: true, data: true }).extend({ data: z.unknown(), deliveries: z.array(delivery) }),
  ),
  next_provider_check: z.object({ at: timestamp, reason: z.enum(['poll', 'expiry', 'refund_check']) }).nullable(),
  postings: z
    .array(
      z.object({
        journal_id: z.string(),
        cause: z
          .string()
          .openapi({ description: 'What posted it: `payment:{id}:completed`, `refund:{id}:reserved` …' }),
        account: z.string().openapi({ description: 'The ledger account: its kind, and its owner after a colon' }),
        amount: z.number().int().openapi({ description: 'Minor units, debit positive, credit negative' }),
        currency: z.string(),
        created_at: timestamp,
      }),
    )
    .openapi({
      description: 'The ledger postings of the payment and its refunds (docs/ledger.md#postings), oldest first',
    }),
});

/** The payment detail as answered. */
export type PaymentDetailView = z.output<typeof paymentDetail>;
