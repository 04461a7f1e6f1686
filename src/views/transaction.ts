/**
 * The dashboard's transaction list and analytics (docs/limits.md#lists); amounts, fees and net in minor units. Both
 * are computed in SQL by src/db/transactions.ts, whose `TransactionView` and `Analytics` have these shapes.
 */
import { z } from '../lib/zod';
import { timestamp } from './timestamp';

/**
 * A transaction: a payment or a refund; fee and net 0 where no money moved, net negative for a completed refund
 * (docs/limits.md#lists).
 */
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

/** Analytics over a range of days. */
export const analytics = z.object({
  from: timestamp,
  to: timestamp,
  volume_by_currency: z.array(
    z.object({
      currency: z.string(),
      completed_volume: z.number().int(),
      refunded_volume: z.number().int(),
      fees: z.number().int(),
      net: z.number().int(),
    }),
  ),
  count_by_status: z.record(z.string(), z.number().int()),
  count_by_method: z.record(z.string(), z.number().int()),
  success_rate: z.number().nullable(),
  daily: z.array(
    z.object({
      date: z.string(),
      currency: z.string(),
      payments: z.number().int(),
      completed: z.number().int(),
      completed_volume: z.number().int(),
      fees: z.number().int(),
    }),
  ),
});
