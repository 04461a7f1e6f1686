/**
 * The cancel and refund routes (docs/payments.md#cancel-and-refund), mounted by each router whose credentials may
 * change money, and how they answer: the message of a cancel's answer and of each refund status, and the replay of a
 * refund request as the refund now stands (docs/payments.md#idempotency).
 */
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { PaymentSnapshot } from '../domain/payment';
import { cancelPayment, refundAsStored, refundPayment, type PaymentServiceDeps } from '../services/payment-service';
import { toRefundView } from '../views/refund';
import { respond } from './envelope';
import { idempotency, idempotencySeed, type ReplayRefresh } from './middleware/idempotency';
import { principalOf } from './middleware/auth';
import { jsonBody } from './middleware/json-body';
import { cancelBody, refundBody } from './schemas/payments';
import { parseOrThrow } from './schemas/validate';

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

/**
 * Mounts the cancel and refund of a payment on `router`, the same for every credential that may change money
 * (`/v1/payments` and the dashboard's `/v1/developer/payments`, docs/payments.md#cancel-and-refund):
 * - `POST /:id/cancel`, optional `{reason}` → 200 envelope with `view(payment)`, cancelled (or the payment as it
 *   stands while the provider has not answered, see {@link cancelMessage}). Errors: 400, 404, 409
 *   `payment_not_cancellable` (also when a provider success won the race, docs/payments.md#states), 503.
 * - `POST /:id/refund`, optional `{amount (minor units), reason}`, no amount = the whole refundable rest → 201 envelope
 *   with the refund `ref_…`: `completed`, `failed` (the provider refused) or `pending` (the provider's answer is
 *   unknown yet; the amount stays reserved); replayed as it now stands (docs/payments.md#idempotency). Errors: 400
 *   `amount_exceeds_refundable`, 404, 409 `payment_not_refundable`, 503 `service_unavailable` (nothing happened).
 * @param changesMoney the JSON body and `Idempotency-Key` middlewares of the router's money-changing routes
 */
export function mountCancelAndRefund(
  router: Router,
  deps: PaymentServiceDeps,
  changesMoney: Middleware[],
  view: (payment: PaymentSnapshot) => unknown,
): void {
  const refunds = [jsonBody(), idempotency(deps.db, deps.config.IDEMPOTENCY_LEASE_MS, refundAsItStands(deps))];
  router.post('/:id/cancel', ...changesMoney, async (ctx) => {
    const body = parseOrThrow(cancelBody, ctx.request.body);
    const id = ctx.params.id as string;
    const payment = await cancelPayment(deps, principalOf(ctx), id, body.reason, ctx.ip, idempotencySeed(ctx));
    respond(ctx, 200, cancelMessage(payment.status), view(payment));
  });
  router.post('/:id/refund', ...refunds, async (ctx) => {
    const body = parseOrThrow(refundBody, ctx.request.body);
    const id = ctx.params.id as string;
    const refund = await refundPayment(deps, principalOf(ctx), id, body, ctx.ip, idempotencySeed(ctx));
    respond(ctx, 201, REFUND_MESSAGES[refund.status], toRefundView(refund));
  });
}
