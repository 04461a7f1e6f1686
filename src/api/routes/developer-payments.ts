/**
 * The dashboard's payment endpoints under `/v1/developer/payments` (README.md#dashboard), for a session token (the
 * environment from `?environment=`) or a secret key (its environment) (docs/api.md#credentials): the payment detail
 * with
 * its timeline, and cancel and refund, which do what `POST /v1/payments/{id}/cancel|refund` do
 * (same workflow Updates, same errors, same `Idempotency-Key` handling, docs/payments.md#cancel-and-refund,
 * docs/payments.md#idempotency) for a developer
 * signed in to the dashboard, who holds a session token and no secret key.
 */
import type Router from '@koa/router';
import { apiRouter } from '../router';
import type { Config } from '../../config';
import { paymentViewContext, type PaymentServiceDeps } from '../../services/payment-service';
import { getPaymentDetail } from '../../services/payment-timeline';
import { respond } from '../envelope';
import { principalOf, sessionOrSecretKey } from '../middleware/auth';
import { idempotency } from '../middleware/idempotency';
import { jsonBody } from '../middleware/json-body';
import { environmentOnlyQuery } from '../schemas/developer';
import { parseOrThrow } from '../schemas/validate';
import { toGenericPaymentView } from '../../views/payment';
import { mountCancelAndRefund } from '../refund-answer';

/** Dashboard payment routes; `deps.config` also carries the session token secret. */
export function developerPaymentRoutes(
  deps: PaymentServiceDeps & { config: PaymentServiceDeps['config'] & Pick<Config, 'JWT_SECRET'> },
): Router {
  const router = apiRouter('/v1/developer/payments');
  router.use(sessionOrSecretKey(deps.db, deps.config.JWT_SECRET));
  const changesMoney = [jsonBody(), idempotency(deps.db, deps.config.IDEMPOTENCY_LEASE_MS)];
  const viewContext = paymentViewContext(deps);

  /**
   * Detail → 200 envelope `{payment, fee, net, provider_reference, refunds, status_changes,
   * history_available, events (each with its deliveries and their attempts), next_provider_check}`
   * (see {@link getPaymentDetail}). Errors: 400 for an unknown query field, 401, 404 for unknown or
   * foreign ids (docs/api.md#merchants-and-environments).
   */
  router.get('/:id', async (ctx) => {
    parseOrThrow(environmentOnlyQuery, ctx.query);
    respond(
      ctx,
      200,
      'Payment retrieved',
      await getPaymentDetail(deps, principalOf(ctx), ctx.params.id as string, viewContext),
    );
  });

  mountCancelAndRefund(router, deps, changesMoney, (payment) => toGenericPaymentView(payment, viewContext));

  return router;
}
