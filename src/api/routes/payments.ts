/**
 * The generic payment family (docs/api.md#credentials, docs/limits.md#amounts, docs/payments.md): create, list, show,
 * cancel and refund,
 * authenticated by `Authorization: Bearer <secret key>`, answered in the envelope.
 */
import type Router from '@koa/router';
import { apiRouter } from '../router';
import { resolveGenericPayment } from '../../domain/create-payment';
import {
  createPayment,
  getPayment,
  listPayments,
  paymentViewContext,
  type PaymentServiceDeps,
} from '../../services/payment-service';
import { respond } from '../envelope';
import { cursorPageOf } from '../pagination';
import { bearerSecretKey, principalOf } from '../middleware/auth';
import { idempotency, idempotencyKeyFirstUse, idempotencySeed } from '../middleware/idempotency';
import { jsonBody } from '../middleware/json-body';
import { createdBoundInstant, genericCreateBody, listPaymentsQuery } from '../schemas/payments';
import { parseOrThrow } from '../schemas/validate';
import type { PaymentSnapshot } from '../../domain/payment';
import { toGenericPaymentView } from '../../views/payment';
import { mountCancelAndRefund } from '../refund-answer';

/** Generic payment routes under `/v1/payments`. */
export function paymentRoutes(deps: PaymentServiceDeps): Router {
  const router = apiRouter('/v1/payments');
  router.use(bearerSecretKey(deps.db));
  const changesMoney = [jsonBody(), idempotency(deps.db, deps.config.IDEMPOTENCY_LEASE_MS)];
  const viewContext = paymentViewContext(deps);
  /** The generic form, with `refundable` and `cancellable` judged by the adapter serving the payment. */
  const view = (payment: PaymentSnapshot) => toGenericPaymentView(payment, viewContext);

  /**
   * Create (docs/payments.md#workflow): body of {@link genericCreateBody} (amount in minor units, optional `expires_in`
   * seconds) → 201 envelope with the payment once the provider answered: `pending` with the
   * provider's `next_action` (card payments also carry `client_secret`), or `failed` when the
   * provider refused it outright. Errors: 400 `validation_error`/`invalid_request`, 401, 409
   * `idempotency_key_reused`, 503 `provider_unavailable`.
   */
  router.post('/', ...changesMoney, async (ctx) => {
    const body = parseOrThrow(genericCreateBody, ctx.request.body);
    const resolved = resolveGenericPayment({
      amount: body.amount,
      currency: body.currency,
      paymentMethod: body.payment_method,
      phoneNumber: body.phone_number,
      provider: body.provider,
      operator: body.operator,
      country: body.country,
    });
    const payment = await createPayment(
      deps,
      principalOf(ctx),
      {
        family: 'generic',
        amount: body.amount,
        currency: body.currency,
        paymentMethod: body.payment_method,
        resolved,
        description: body.description,
        customerEmail: body.customer_email,
        metadata: body.metadata,
        expiresInSeconds: body.expires_in,
      },
      ctx.ip,
      idempotencySeed(ctx),
      idempotencyKeyFirstUse(ctx),
    );
    respond(ctx, 201, 'Payment created', view(payment));
  });

  /**
   * List: query of {@link listPaymentsQuery} → 200 envelope `{payments, pagination: {limit,
   * has_more, next_starting_after}}`, newest first, payments of both families in the generic form.
   * Errors: 400 `validation_error` naming an unknown query field, a bad filter value or a
   * `starting_after` that is not one of the caller's payments; 401.
   */
  router.get('/', async (ctx) => {
    const query = parseOrThrow(listPaymentsQuery, ctx.query);
    const gte = query['created[gte]'];
    const lte = query['created[lte]'];
    const page = await listPayments(deps, principalOf(ctx), {
      status: query.status,
      pendingReason: query.pending_reason,
      paymentMethod: query.payment_method,
      checkoutSession: query.checkout_session,
      createdGte: gte === undefined ? undefined : createdBoundInstant(gte, 'gte'),
      createdLte: lte === undefined ? undefined : createdBoundInstant(lte, 'lte'),
      startingAfter: query.starting_after,
      limit: query.limit,
    });
    respond(ctx, 200, 'Payments retrieved', cursorPageOf('payments', query.limit, page, page.payments, view));
  });

  /**
   * Show: 200 envelope with the payment; 404 `not_found` for unknown or foreign ids
   * (docs/api.md#merchants-and-environments).
   */
  router.get('/:id', async (ctx) => {
    const payment = await getPayment(deps, principalOf(ctx), ctx.params.id as string);
    respond(ctx, 200, 'Payment retrieved', view(payment));
  });

  mountCancelAndRefund(router, deps, changesMoney, view);

  return router;
}
