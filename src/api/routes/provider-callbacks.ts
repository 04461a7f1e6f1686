/**
 * `POST /v1/provider-callbacks/{provider}` (docs/payments.md#provider-callbacks): a provider tells us about a payment.
 * The adapter
 * authenticates the raw request (signature, hash or token, as the provider offers) and parses it;
 * the callback is then a hint to the payment's workflow, which asks the provider before acting.
 * A callback for a closed payment answers 200 and changes nothing, except a success that the
 * workflow reconciles (docs/payments.md#states): it is re-opened for it. Polling remains the fallback for lost
 * callbacks.
 */
import type Router from '@koa/router';
import { apiRouter } from '../router';
import getRawBody from 'raw-body';
import type { Config } from '../../config';
import { PROVIDER_KINDS, type ProviderCode } from '../../domain/catalogue';
import { DomainError } from '../../domain/errors';
import { receiveProviderCallback, type ProviderCallbackDeps } from '../../services/provider-callbacks';
import { respond } from '../envelope';
import { JSON_LIMIT_BYTES, refuseDeepJson } from '../middleware/json-body';
import { callbackRateLimit } from '../middleware/rate-limit';

/**
 * Callback routes; errors: 400 `invalid_request` (also for a body nested deeper than the API's
 * JSON bodies may be, docs/api.md#errors), 401 `unauthorized` (bad signature), 404 (unknown
 * provider or reference), 429 `rate_limited` past the limit per provider and client IP
 * (docs/limits.md#callback-limits), counted before authentication and without PostgreSQL, 503 `service_unavailable`
 * with `Retry-After` when the hint did not reach the payment's workflow by `TEMPORAL_CALL_TIMEOUT_MS`
 * (docs/payments.md#provider-callbacks): the provider sends it again.
 */
export function providerCallbackRoutes(
  deps: ProviderCallbackDeps & {
    config: ProviderCallbackDeps['config'] &
      Pick<Config, 'PROVIDER_CALLBACK_RATE_LIMIT_PER_MINUTE' | 'RATE_LIMIT_MULTIPLIER'>;
  },
): Router {
  const router = apiRouter('/v1/provider-callbacks');
  const limitCallbacks = callbackRateLimit(deps.config);

  /**
   * Accepts one callback → 200 envelope `{received: true, payment_id, action}`; `action` is
   * `signalled` (the workflow confirms it with the provider) or `ignored` (it cannot change the
   * payment, e.g. a repeated success of a completed payment). A payout's result (M-Pesa B2C,
   * docs/payouts.md#m-pesa-b2c) answers `{received: true, payout_id, action: recorded | ignored}`. Taken by POST and
   * by PUT: MTN MoMo calls back with either (docs/providers.md#mtn-momo).
   */
  const receiveCallback: Parameters<Router['post']>[1] = async (ctx) => {
    const code = ctx.params.provider as ProviderCode;
    if (!Object.prototype.hasOwnProperty.call(PROVIDER_KINDS, code))
      throw new DomainError('not_found', `no provider ${code}`);
    await limitCallbacks(ctx, code);
    let rawBody: string;
    try {
      rawBody = await getRawBody(ctx.req, { limit: JSON_LIMIT_BYTES, encoding: 'utf8' });
    } catch {
      throw new DomainError('invalid_request', 'request body is larger than 1 MB', undefined, 413);
    }
    refuseDeepJson(rawBody);
    const headers = Object.fromEntries(
      Object.entries(ctx.headers).map(([name, value]) => [name.toLowerCase(), Array.isArray(value) ? value[0] : value]),
    );
    const query = Object.fromEntries(
      Object.entries(ctx.query).map(([name, value]) => [name, Array.isArray(value) ? value[0] : value]),
    );
    const received = await receiveProviderCallback(deps, code, { rawBody, headers, query });
    respond(
      ctx,
      200,
      'Callback received',
      'payoutId' in received
        ? { received: true, payout_id: received.payoutId, action: received.action }
        : 'refundId' in received
          ? { received: true, refund_id: received.refundId, action: received.action }
          : { received: true, payment_id: received.paymentId, action: received.action },
    );
  };
  router.post('/:provider', receiveCallback);
  router.put('/:provider', receiveCallback);

  return router;
}
