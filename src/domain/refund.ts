/**
 * Refunds (docs/payments.md#states, docs/payments.md#cancel-and-refund): the refund record and what is left to refund.
 * What a refund request may do is decided by the payment's table (src/domain/payment-table.ts); a refund's own states
 * and effects are its table's (src/domain/refund-table.ts). Pure.
 */
import type { PaymentSnapshot } from './payment';

/** A refund as the workflow holds it; amounts in minor units, timestamps ISO 8601 UTC. */
export interface RefundRecord {
  id: string;
  paymentId: string;
  merchantId: string;
  environment: PaymentSnapshot['environment'];
  amount: number;
  currency: string;
  status: 'pending' | 'completed' | 'failed';
  reason: string | null;
  providerReference: string | null;
  failureMessage: string | null;
  createdAt: string;
  completedAt: string | null;
}

/** What is left to refund: the amount less what was refunded and what refunds in flight hold. */
export function refundableAmount(payment: PaymentSnapshot, reservedMinor: number): number {
  return payment.amount - payment.amountRefunded - reservedMinor;
}
