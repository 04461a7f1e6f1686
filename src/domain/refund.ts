/**
 * Refunds (docs/payments.md#states, docs/payments.md#cancel-and-refund): what may be refunded, and the refund record.
 * Pure: the payment workflow's
 * refund Update validator calls `refundableAmount` and `checkRefund`.
 */
import { DomainError } from './errors';
import type { PaymentSnapshot, PaymentStatus } from './payment';

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

/** Why a refund is refused in a payment's status other than `completed` (docs/payments.md#states). */
export function notRefundableMessage(status: PaymentStatus): string {
  return `a ${status} payment cannot be refunded; only completed payments can`;
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
    throw new DomainError('payment_not_refundable', notRefundableMessage(payment.status));
  }
  const refundable = refundableAmount(payment, reservedMinor);
  if (refundable <= 0) throw new DomainError('payment_not_refundable', 'the payment has been refunded in full');
  const amount = requested ?? refundable;
  if (amount > refundable) {
    throw new DomainError('amount_exceeds_refundable', `amount ${amount} exceeds the refundable rest of ${refundable}`);
  }
  return amount;
}
