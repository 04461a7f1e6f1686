/**
 * `POST /v1/provider-callbacks/{provider}` (D16): a provider tells us about a payment. The raw body
 * is authenticated by the provider's adapter (signature header `X-Provider-Signature`), then the
 * answer is signalled to the payment's workflow. Polling remains the fallback for lost callbacks.
 */
import Router from '@koa/router';
import getRawBody from 'raw-body';
import { findPaymentByProviderReference } from '../../db/payments';
import { PROVIDER_KINDS, type ProviderCode } from '../../domain/catalogue';
import { DomainError } from '../../domain/errors';
import { ProviderError } from '../../providers/provider';
import { deliverProviderAnswer, type PaymentServiceDeps } from '../../services/payment-service';
import { respond } from '../envelope';
import { JSON_LIMIT_BYTES } from '../middleware/json-body';

function referenceIn(rawBody: string): string {
  try {
    const reference = (JSON.parse(rawBody) as { provider_reference?: unknown }).provider_reference;
    if (typeof reference === 'string' && reference.length > 0) return reference;
  } catch {
    // fall through
  }
  throw new DomainError('invalid_request', 'the callback body must be JSON with a provider_reference');
}

/** Callback routes; errors: 400 `invalid_request`, 401 `unauthorized` (bad signature), 404. */
export function providerCallbackRoutes(deps: PaymentServiceDeps): Router {
  const router = new Router({ prefix: '/v1/provider-callbacks' });

  /** Accepts one callback → 200 envelope `{received: true, payment_id}`. */
  router.post('/:provider', async (ctx) => {
    const code = ctx.params.provider as ProviderCode;
    if (!Object.prototype.hasOwnProperty.call(PROVIDER_KINDS, code)) throw new DomainError('not_found', `no provider ${code}`);
    let rawBody: string;
    try {
      rawBody = await getRawBody(ctx.req, { limit: JSON_LIMIT_BYTES, encoding: 'utf8' });
    } catch {
      throw new DomainError('invalid_request', 'request body is larger than 1 MB', undefined, 413);
    }
    const payment = await findPaymentByProviderReference(deps.db, code, referenceIn(rawBody));
    const adapter = payment ? deps.providers.get(payment.environment, code) : undefined;
    if (!payment || !adapter) throw new DomainError('not_found', 'no payment with this provider_reference');
    let answer;
    try {
      answer = adapter.parseCallback(rawBody, ctx.get('x-provider-signature') || undefined);
    } catch (error) {
      if (error instanceof ProviderError) throw new DomainError('unauthorized', error.message);
      throw error;
    }
    await deliverProviderAnswer(deps.temporal, payment.id, answer);
    respond(ctx, 200, 'Callback received', { received: true, payment_id: payment.id });
  });

  return router;
}
