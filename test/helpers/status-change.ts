/**
 * A payment snapshot with another status, as a row a test or a bench seeds directly (bypassing the payment
 * table of src/domain/payment-table.ts, which decides real payments): the failure set or cleared, the next
 * action dropped once not pending, the version one higher, `updatedAt` given (ISO 8601).
 */
import type { FailureCode, PaymentSnapshot, PaymentStatus } from '../../src/domain/payment';

/** The status to give, with its failure when `failed`. */
export interface StatusChange {
  status: PaymentStatus;
  failure?: { code: FailureCode; message: string };
}

/** `payment` after `change` at `updatedAt`. */
export function withStatusChange<P extends PaymentSnapshot>(payment: P, change: StatusChange, updatedAt: string): P {
  return {
    ...payment,
    status: change.status,
    failureCode: change.failure?.code ?? null,
    failureMessage: change.failure?.message ?? null,
    nextAction: change.status === 'pending' ? payment.nextAction : null,
    updatedAt,
    version: (payment.version ?? 0) + 1,
  };
}
