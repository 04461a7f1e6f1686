/**
 * Whether a payment can be refunded or cancelled now, and why not (docs/payments.md#refundable-and-cancellable): what
 * the payment view's `refundable` and `cancellable` say, decided by the payment table itself ({@link apply}) with the
 * provider's capabilities, so the view never offers what the API would refuse. Pure.
 */
import type { PaymentSnapshot } from './payment';
import { apply, type PaymentState } from './payment-table';
import type { ProviderCapabilities } from './provider-descriptor';
import type { RefundRecord } from './refund';

/** Whether a refund would be taken now: `partial` when part of the rest may be refunded; `reason` when not allowed. */
export interface RefundAbility {
  allowed: boolean;
  partial: boolean;
  /** Why not, for a person (the message the refund would be refused with); null when allowed. */
  reason: string | null;
}

/** Whether a cancel would be taken now; `reason` when not allowed. */
export interface CancelAbility {
  allowed: boolean;
  /** Why not, for a person; null when allowed. */
  reason: string | null;
}

/** How long a completed payment takes refunds unless configured (REFUND_WINDOW_DAYS), in days. */
export const DEFAULT_REFUND_WINDOW_DAYS = 180;

/** The refund id of the probe the table is asked with; it never leaves this module. */
const PROBE = 'ref_probe';

/**
 * The state the table judges: the payment, and one refund in flight holding `amountRefundPending` (minor units)
 * when something is reserved.
 */
function stateOf(payment: PaymentSnapshot): PaymentState {
  const reserved = payment.amountRefundPending ?? 0;
  const pendingRefunds: RefundRecord[] =
    reserved > 0
      ? [
          {
            id: 'ref_reserved',
            paymentId: payment.id,
            merchantId: payment.merchantId,
            environment: payment.environment,
            amount: reserved,
            currency: payment.currency,
            status: 'pending',
            reason: null,
            providerReference: null,
            failureMessage: null,
            createdAt: payment.updatedAt,
            completedAt: null,
          },
        ]
      : [];
  return { payment, pendingRefunds };
}

/**
 * Whether a refund of the whole refundable rest of `payment` would be taken at `at` (ISO 8601), and whether part of
 * it could be: the table's refusal in its status, after the refund window (`refundWindowMs`, counted from creation),
 * with nothing left (refunds in flight hold `amountRefundPending`), or by a provider whose `capabilities` do not
 * refund (in part).
 */
export function refundAbility(
  payment: PaymentSnapshot,
  capabilities: Pick<ProviderCapabilities, 'refund' | 'partialRefund'>,
  at: string,
  refundWindowMs: number,
): RefundAbility {
  const probe = { type: 'refund_accepted' as const, refundId: PROBE, reason: null, refundWindowMs, capabilities };
  const decided = apply(stateOf(payment), probe, at);
  if (!decided.ok) return { allowed: false, partial: false, reason: decided.refusal.message };
  return { allowed: true, partial: capabilities.partialRefund, reason: null };
}

/**
 * Whether a cancel of `payment` would be taken at `at` (ISO 8601): only an open payment, and only where the provider
 * can withdraw its request (`capabilities.cancel`); a mobile-money prompt cannot be withdrawn and lapses at
 * `expires_at` (docs/payments.md#cancel-and-refund).
 */
export function cancelAbility(
  payment: PaymentSnapshot,
  capabilities: Pick<ProviderCapabilities, 'cancel'>,
  at: string,
): CancelAbility {
  const decided = apply(stateOf(payment), { type: 'cancel', reason: null }, at);
  if (!decided.ok) return { allowed: false, reason: decided.refusal.message };
  if (!capabilities.cancel)
    return {
      allowed: false,
      reason: `${payment.provider} cannot withdraw a request the customer has not answered: it lapses at expires_at`,
    };
  return { allowed: true, reason: null };
}
