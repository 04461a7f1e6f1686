/**
 * Response shapes of the dashboard's payment endpoints (README.md#dashboard), for the OpenAPI document (docs/api.md#health); they
 * describe what `services/payment-timeline.ts` builds.
 */
import { z } from '../../lib/zod';
import { PAYMENT_STATUSES } from '../../domain/payment';
import { delivery, genericPayment, refund } from './responses';

/** One status change of the payment's timeline, with where it came from. */
export const statusChange = z.object({
  at: z.iso.datetime(),
  from: z.enum(PAYMENT_STATUSES).nullable(),
  to: z.enum(PAYMENT_STATUSES),
  source: z.enum(['create', 'provider_callback', 'poll', 'expiry', 'merchant', 'reconciliation']),
  failure_code: z.string().nullable(),
  failure_message: z.string().nullable(),
});

/** The payment detail: amounts in minor units, `net` = amount − fee − refunded. */
export const paymentDetail = z.object({
  payment: genericPayment,
  fee: z.number().int(),
  net: z.number().int(),
  provider_reference: z.string().nullable(),
  refunds: z.array(refund),
  status_changes: z.array(statusChange),
  history_available: z.boolean(),
  events: z.array(z.object({ id: z.string(), event: z.string(), created_at: z.iso.datetime(), data: z.unknown(), deliveries: z.array(delivery) })),
  next_provider_check: z.object({ at: z.iso.datetime(), reason: z.enum(['poll', 'expiry', 'refund_check']) }).nullable(),
});
