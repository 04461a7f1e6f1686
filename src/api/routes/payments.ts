/** The generic payment family: `POST /v1/payments`, `GET /v1/payments/{id}` (interface.md; D4, D5, D10). */
import Router from '@koa/router';
import { toGenericPaymentView } from '../../domain/payment-record';
import { createGenericPayment, getPayment, type PaymentServiceDeps } from '../../services/payment-service';
import { respond } from '../envelope';
import { bearerSecretKey, principalOf } from '../middleware/auth';
import { jsonBody } from '../middleware/json-body';
import { genericCreateBody } from '../schemas/payments';
import { parseOrThrow } from '../schemas/validate';

/** Generic payment routes, authenticated by `Authorization: Bearer <secret key>`. */
export function paymentRoutes(deps: PaymentServiceDeps): Router {
  const router = new Router({ prefix: '/v1/payments' });
  router.use(bearerSecretKey(deps.db));

  /**
   * Create: body of {@link genericCreateBody} (amount in minor units) → 201 envelope with the payment
   * in status `pending`. Errors: 400 `validation_error`/`invalid_request`, 401, 503 `provider_unavailable`.
   */
  router.post('/', jsonBody(), async (ctx) => {
    const body = parseOrThrow(genericCreateBody, ctx.request.body);
    const payment = await createGenericPayment(deps, principalOf(ctx), body);
    respond(ctx, 201, 'Payment created', toGenericPaymentView(payment));
  });

  /** Show: 200 envelope with the payment; 404 `not_found` for unknown or foreign ids (D1). */
  router.get('/:id', async (ctx) => {
    const payment = await getPayment(deps, principalOf(ctx), ctx.params.id as string);
    respond(ctx, 200, 'Payment retrieved', toGenericPaymentView(payment));
  });

  return router;
}
