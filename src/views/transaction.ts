/**
 * The dashboard's transaction list and analytics (docs/limits.md#lists); amounts, fees and net in minor units. Both
 * are computed in SQL by src/db/transactions.ts, whose `TransactionView` and `Analytics` have these shapes.
 */
import { z } from '../lib/zod';
import { timestamp } from './timestamp';
import { decisionExpectedBy, pendingReason } from './payment';
import { createdAt, currencyCode, nullableText, updatedAt } from './fields';

/**
 * A transaction: a payment or a refund; fee and net 0 where no money moved, net negative for a completed refund
 * (docs/limits.md#lists).
 */
export const transaction = z.object({
  id: z.string().openapi({ description: 'The payment (`pay_…`) or refund (`ref_…`) id' }),
  type: z.enum(['payment', 'refund']).openapi({ description: '`payment` or `refund`' }),
  payment_id: z.string().openapi({ description: "The payment (a refund's own payment)" }),
  amount: z.number().int().openapi({ description: 'The amount in minor units' }),
  currency: currencyCode,
  fee: z.number().int().openapi({ description: 'The fee in minor units, once money moved; else 0' }),
  net: z.number().int().openapi({
    description:
      'What you keep in minor units: amount − fee for a collected payment, −amount for a completed refund; else 0',
  }),
  status: z.string().openapi({ description: "The payment's or the refund's status" }),
  pending_reason: pendingReason.openapi({
    description: 'Why an open payment waits (docs/payments.md#decision-time); null for a final payment and a refund',
  }),
  decision_expected_by: decisionExpectedBy.openapi({
    description: 'The latest time an open payment will be final (ISO 8601, UTC); null for a final payment and a refund',
  }),
  payment_method: z.string().openapi({ description: "The payment's method" }),
  customer: nullableText("The customer's phone, wallet or e-mail; null when none"),
  description: nullableText("The payment's description; null when none"),
  created_at: createdAt,
  updated_at: updatedAt,
});

/** Analytics over a range of days. */
export const analytics = z.object({
  from: timestamp.openapi({ description: 'The first instant counted (ISO 8601, UTC)' }),
  to: timestamp.openapi({ description: 'The instant counting ended (ISO 8601, UTC)' }),
  volume_by_currency: z
    .array(
      z.object({
        currency: currencyCode,
        completed_volume: z.number().int().openapi({ description: "Completed payments' amounts, minor units" }),
        refunded_volume: z.number().int().openapi({ description: "Completed refunds' amounts, minor units" }),
        fees: z.number().int().openapi({ description: 'Fees, minor units' }),
        net: z.number().int().openapi({ description: 'Completed volume − refunded − fees, minor units' }),
      }),
    )
    .openapi({ description: 'Money in the range, one entry per currency' }),
  count_by_status: z.record(z.string(), z.number().int()).openapi({ description: 'Payments by status' }),
  count_by_method: z.record(z.string(), z.number().int()).openapi({ description: 'Payments by method' }),
  success_rate: z
    .number()
    .nullable()
    .openapi({ description: 'Completed ÷ all payments settled in the range, 0 to 1; null when none' }),
  daily: z
    .array(
      z.object({
        date: z.string().openapi({ description: 'The UTC day `YYYY-MM-DD`' }),
        currency: currencyCode,
        payments: z.number().int().openapi({ description: 'Payments created that day' }),
        completed: z.number().int().openapi({ description: 'Of them, completed' }),
        completed_volume: z.number().int().openapi({ description: 'Their completed amounts, minor units' }),
        fees: z.number().int().openapi({ description: 'Fees of those completed payments, minor units' }),
      }),
    )
    .openapi({ description: 'One entry per UTC day and currency, oldest first' }),
});
