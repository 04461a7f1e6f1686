/**
 * The merchant-scoped payment family (docs/api.md#credentials, docs/limits.md#amounts, docs/payments.md): `X-API-Key`,
 * decimal-string
 * amounts, `payment_method_data`, the payment object without envelope, errors as `{error: <message>}`
 * (the error middleware picks that shape for `/v1/api/…`). A path merchant id that is not the key's → 403.
 */
import type Router from '@koa/router';
import { apiRouter } from '../router';
import type { Middleware } from 'koa';
import { resolveMerchantPayment } from '../../domain/create-payment';
import { DomainError } from '../../domain/errors';
import { feeBasisPointsFor } from '../../domain/fees';
import { countryOfNumber } from '../../domain/phone';
import type { PaymentSnapshot } from '../../domain/payment';
import { createPayment, getPayment, type PaymentServiceDeps } from '../../services/payment-service';
import { apiKeyHeader, principalOf } from '../middleware/auth';
import { idempotency, idempotencyKeyFirstUse, idempotencySeed } from '../middleware/idempotency';
import { jsonBody } from '../middleware/json-body';
import { merchantCreateBody } from '../schemas/payments';
import { parseOrThrow } from '../schemas/validate';
import { toMerchantPaymentView } from '../../views/payment';

/** 403 `merchant_mismatch` when the path's merchant id is not the key's (docs/payments.md#merchant-scoped). */
const sameMerchant: Middleware = async (ctx, next) => {
  if (ctx.params.merchant_id !== principalOf(ctx).merchantId) {
    throw new DomainError('merchant_mismatch', 'merchant_id does not match the API key');
  }
  await next();
};

/** The merchant-scoped view of `payment`, with the default fee rate of its provider in its customer's market. */
function view(payment: PaymentSnapshot) {
  return toMerchantPaymentView(payment, feeBasisPointsFor(payment.provider, countryOfNumber(payment.customerPhone)));
}

/** Merchant-scoped routes under `/v1/api/merchants/{merchant_id}/payments`. */
export function merchantPaymentRoutes(deps: PaymentServiceDeps): Router {
  const router = apiRouter('/v1/api/merchants/:merchant_id/payments');
  router.use(apiKeyHeader(deps.db), sameMerchant);

  /**
   * Create: body of {@link merchantCreateBody} (amount "1500.00") → 200 with the payment object,
   * status `pending`, fee in `metadata`, `client_secret` for `card_gateway`.
   * Errors (`{error}`): 400, 401, 403, 409 `idempotency_key_reused`, 503 in live mode without an adapter.
   */
  router.post('/', jsonBody(), idempotency(deps.db, deps.config.IDEMPOTENCY_LEASE_MS), async (ctx) => {
    const body = parseOrThrow(merchantCreateBody, ctx.request.body);
    const data = body.payment_method_data ?? {};
    if (body.payment_method === 'wallet' && data.wallet_id === undefined) {
      throw new DomainError('validation_error', 'payment_method_data.wallet_id is required for wallet');
    }
    const resolved = resolveMerchantPayment({
      amount: body.amount,
      currency: body.currency,
      paymentMethod: body.payment_method,
      phoneNumber: data.phone_number,
      country: data.country,
      walletId: data.wallet_id,
    });
    const payment = await createPayment(
      deps,
      principalOf(ctx),
      {
        family: 'merchant',
        amount: resolved.amountMinor,
        currency: body.currency,
        paymentMethod: body.payment_method,
        resolved,
        description: body.description,
      },
      ctx.ip,
      idempotencySeed(ctx),
      idempotencyKeyFirstUse(ctx),
    );
    ctx.status = 200;
    ctx.body = view(payment);
  });

  /** Show: the payment object; 404 `{error}` for unknown or foreign ids (docs/api.md#merchants-and-environments). */
  router.get('/:payment_id', async (ctx) => {
    ctx.body = view(await getPayment(deps, principalOf(ctx), ctx.params.payment_id as string));
  });

  return router;
}
