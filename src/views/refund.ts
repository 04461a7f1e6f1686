/**
 * The API's form of a refund (docs/payments.md#cancel-and-refund), also the `data` of `refund.completed` and
 * `refund.failed` with the payment.
 */
import { z } from '../lib/zod';
import type { PaymentSnapshot } from '../domain/payment';
import type { RefundRecord } from '../domain/refund';
import { genericPayment, toGenericPaymentView } from './payment';
import { refundBalanceTransaction } from './balance';
import { timestamp } from './timestamp';
import { nullableText, objectId, objectName } from './fields';

/** A refund (docs/payments.md#cancel-and-refund); `amount` in minor units. */
export const refund = z
  .object({
    id: objectId('Refund', 'ref_'),
    object: objectName('refund'),
    payment_id: z.string().openapi({ description: 'The payment refunded' }),
    amount: z.number().int().openapi({ description: 'The amount refunded, in minor units' }),
    currency: z.string().openapi({ description: "ISO 4217 code, the payment's" }),
    status: z
      .enum(['pending', 'completed', 'failed'])
      .openapi({ description: '`pending` until the provider answers, then `completed` or `failed`' }),
    reason: nullableText('The reason you gave; null when none'),
    failure_message: nullableText('Why the provider refused the refund; null unless failed'),
    created_at: timestamp.openapi({ description: 'When it was requested (ISO 8601, UTC)' }),
    completed_at: timestamp.nullable().openapi({ description: 'When it completed; null until then' }),
    balance_transaction: nullableText(
      'The balance transaction (`txn_…`) that took the amount from your balance; null once refused',
    ),
  })
  .openapi('Refund', { description: 'Money sent back to the customer of a payment' });

/** A refund as answered. */
export type RefundView = z.output<typeof refund>;

/**
 * The `data` of a `refund.completed` or `refund.failed` event (docs/payments.md#events): the refund with the payment
 * after it.
 */
export const refundWithPayment = refund.extend({ payment: genericPayment });

/**
 * The `data` of a refund's final event: `record` with `payment`, the payment after it (with `amount_refund_pending`).
 */
export function toRefundWithPaymentView(
  record: RefundRecord,
  payment: PaymentSnapshot,
): z.output<typeof refundWithPayment> {
  return { ...toRefundView(record), payment: toGenericPaymentView(payment, { at: payment.updatedAt }) };
}

/** The API form of a refund. */
export function toRefundView(record: RefundRecord): RefundView {
  return {
    id: record.id,
    object: 'refund',
    payment_id: record.paymentId,
    amount: record.amount,
    currency: record.currency,
    status: record.status,
    reason: record.reason,
    failure_message: record.failureMessage,
    created_at: record.createdAt,
    completed_at: record.completedAt,
    balance_transaction: refundBalanceTransaction(record),
  };
}
