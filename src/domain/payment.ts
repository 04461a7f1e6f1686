/**
 * The payment state machine (D11), expiry per method (D11) and the poll schedule (D20). Pure code,
 * shared by the API, activities and the payment workflow.
 */
import type { MethodKind } from './catalogue';

/** Payment statuses (interface.md, States and transitions). */
export const PAYMENT_STATUSES = ['pending', 'processing', 'completed', 'failed', 'cancelled', 'refunded'] as const;
/** One payment status. */
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Statuses in which the provider may still answer (D11: cancel is allowed here). */
export const OPEN_STATUSES: readonly PaymentStatus[] = ['pending', 'processing'];

/** Why a payment failed: the provider's decline reasons plus `expired` (D11, D14). */
export type FailureCode = 'declined' | 'card_declined' | 'insufficient_funds' | 'expired' | 'provider_error';

/** Payment event names written once each per payment (D22). */
export type PaymentEventName = 'payment.created' | 'payment.completed' | 'payment.failed' | 'payment.cancelled';

/** Allowed status changes of D11 (refund transitions are handled by the refund logic, issue 3). */
const TRANSITIONS: Readonly<Record<PaymentStatus, readonly PaymentStatus[]>> = {
  pending: ['processing', 'completed', 'failed', 'cancelled'],
  processing: ['completed', 'failed', 'cancelled'],
  completed: ['refunded'],
  failed: [],
  cancelled: [],
  refunded: [],
};

/** True when D11 allows `from` → `to`. */
export function canTransition(from: PaymentStatus, to: PaymentStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** True while the payment can still change by the provider's answer. */
export function isOpen(status: PaymentStatus): boolean {
  return OPEN_STATUSES.includes(status);
}

/** The event D22 writes when a payment enters `status`, if any. */
export function eventForStatus(status: PaymentStatus): PaymentEventName | undefined {
  switch (status) {
    case 'completed':
      return 'payment.completed';
    case 'failed':
      return 'payment.failed';
    case 'cancelled':
      return 'payment.cancelled';
    default:
      return undefined;
  }
}

/** Expiry in seconds per method kind (D11); values come from configuration. */
export type ExpirySeconds = Readonly<Record<MethodKind, number>>;

/** First poll delay (D20: 2 s). */
export const FIRST_POLL_DELAY_MS = 2_000;
/** Longest poll delay (D20: 60 s). */
export const MAX_POLL_DELAY_MS = 60_000;

/** The poll delay after `previousMs` (D20: 2 s doubling to 60 s), in milliseconds. */
export function nextPollDelayMs(previousMs: number | undefined): number {
  if (previousMs === undefined) return FIRST_POLL_DELAY_MS;
  return Math.min(previousMs * 2, MAX_POLL_DELAY_MS);
}

/** What a provider says about a payment, mapped onto our statuses (D16). */
export type ProviderOutcome =
  | { status: 'pending' | 'processing' }
  | { status: 'completed' }
  | { status: 'cancelled' }
  | { status: 'failed'; failureCode: FailureCode; failureMessage: string };

/** True when the provider's answer is final (nothing more will change at the provider). */
export function isFinalOutcome(outcome: ProviderOutcome): boolean {
  return outcome.status === 'completed' || outcome.status === 'failed' || outcome.status === 'cancelled';
}
