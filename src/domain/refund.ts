/**
 * Refunds (docs/payments.md#states, docs/payments.md#cancel-and-refund): what may be refunded, and the refund record. Pure: the payment workflow's
 * refund Update validator calls `refundableAmount` and `checkRefund`.
 */
import { DomainError } from './errors';
import type { PaymentSnapshot } from './payment-record';

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

/** The refund object of docs/payments.md#cancel-and-refund. */
export interface RefundView {
  id: string;
  object: 'refund';
  payment_id: string;
  amount: number;
  currency: string;
  status: RefundRecord['status'];
  reason: string | null;
  failure_message: string | null;
  created_at: string;
  completed_at: string | null;
}

/** The API form of a refund (docs/payments.md#cancel-and-refund). */
export function toRefundView(refund: RefundRecord): RefundView {
  return {
    id: refund.id,
    object: 'refund',
    payment_id: refund.paymentId,
    amount: refund.amount,
    currency: refund.currency,
    status: refund.status,
    reason: refund.reason,
    failure_message: refund.failureMessage,
    created_at: refund.createdAt,
    completed_at: refund.completedAt,
  };
}

/** What is left to refund: the amount less what was refunded and what refunds in flight hold. */
export function refundableAmount(payment: PaymentSnapshot, reservedMinor: number): number {
  return payment.amount - payment.amountRefunded - reservedMinor;
}

/**
 * Checks a refund request against the payment (docs/payments.md#states): only a `completed` payment, and at most the
 * refundable rest.
 * @param requested minor units, or undefined for the whole refundable rest
 * @returns the amount to refund, in minor units
 * @throws DomainError `payment_not_refundable` (409) or `amount_exceeds_refundable` (400)
 */
export function checkRefund(payment: PaymentSnapshot, reservedMinor: number, requested: number | undefined): number {
  if (payment.status !== 'completed') {
    throw new DomainError('payment_not_refundable', `a ${payment.status} payment cannot be refunded; only completed payments can`);
  }
  const refundable = refundableAmount(payment, reservedMinor);
  if (refundable <= 0) throw new DomainError('payment_not_refundable', 'the payment has been refunded in full');
  const amount = requested ?? refundable;
  if (amount > refundable) {
    throw new DomainError('amount_exceeds_refundable', `amount ${amount} exceeds the refundable rest of ${refundable}`);
  }
  return amount;
}
