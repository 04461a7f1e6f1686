/**
 * How the cancel and refund routes answer (docs/payments.md#cancel-and-refund): the message of a cancel's answer and
 * of each refund status, and the replay of a refund request as the refund now stands (docs/payments.md#idempotency).
 */
import { refundAsStored, type PaymentServiceDeps } from '../services/payment-service';
import { toRefundView } from '../views/refund';
import type { ReplayRefresh } from './middleware/idempotency';
import { principalOf } from './middleware/auth';

/**
 * The envelope's message for a cancel's answer: `cancelled`, or the payment as it stands while the provider has not
 * answered within PROVIDER_ANSWER_WAIT_MS (`payment.cancelled` follows, docs/payments.md#cancel-and-refund).
 */
export function cancelMessage(status: string): string {
  return status === 'cancelled' ? 'Payment cancelled' : 'Payment cancel requested';
}

/** The envelope's message for a refund by its status. */
export const REFUND_MESSAGES = {
  completed: 'Refund completed',
  failed: 'Refund failed',
  pending: 'Refund pending',
} as const;

/**
 * The replay of a refund's answer as the refund now stands (docs/payments.md#idempotency): the stored answer's refund
 * read again, so a first answer `pending` replays `completed` or `failed` once the provider answered. Undefined (the
 * stored answer stands) when the stored body holds no refund of the caller's.
 */
export function refundAsItStands(deps: Pick<PaymentServiceDeps, 'db'>): ReplayRefresh {
  return async (ctx, bodyJson) => {
    const id = (JSON.parse(bodyJson) as { data?: { id?: unknown } }).data?.id;
    if (typeof id !== 'string') return undefined;
    const refund = await refundAsStored(deps, principalOf(ctx), id);
    if (!refund) return undefined;
    return JSON.stringify({ success: true, message: REFUND_MESSAGES[refund.status], data: toRefundView(refund) });
  };
}
