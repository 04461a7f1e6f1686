/**
 * Request id, log context and access log (docs/api.md#health, docs/operations.md#logs): every request gets an id (the
 * caller's
 * `X-Request-Id` when it is a sane token, else a UUID), echoed in `X-Request-Id`, and runs inside a
 * log context (src/logger.ts), so every line written while it is served carries `request_id`, and
 * `merchant_id` once a credential was accepted and `payment_id` once the route names a payment. One
 * JSON access-log line when it ends, with method, route, status and duration.
 */
import { randomUUID } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { withLogContext, type LogContextFields, type Logger } from '../../logger';

/** State every handler can read: `ctx.state.requestId`, `ctx.state.log`. */
export interface RequestState {
  requestId: string;
  log: Logger;
}

/** A payment id (`pay_…`, docs/payments.md#workflow) or undefined. */
function asPaymentId(value: unknown): string | undefined {
  return typeof value === 'string' && /^pay_[A-Za-z0-9_]+$/.test(value) ? value : undefined;
}

/**
 * The payment a request is about: the route's `:id`/`:payment_id` parameter, or the payment the
 * response answers with (a create's `data.id` in the envelope, or the merchant-scoped `id`).
 */
function paymentIdOf(ctx: Context): string | undefined {
  const params = (ctx as unknown as { params?: Record<string, string> }).params ?? {};
  const fromPath = asPaymentId(params.id) ?? asPaymentId(params.payment_id);
  if (fromPath) return fromPath;
  const body = ctx.body as { data?: { id?: unknown }; id?: unknown } | null | undefined;
  if (!body || typeof body !== 'object' || Buffer.isBuffer(body)) return undefined;
  return asPaymentId(body.data?.id) ?? asPaymentId(body.id);
}

/** The ids learnt while the request is served: the authenticated merchant (ctx.state.owner) and the payment. */
function learntIds(ctx: Context): LogContextFields {
  const owner = ctx.state.owner as { merchantId?: string } | undefined;
  return { merchant_id: owner?.merchantId, payment_id: paymentIdOf(ctx) };
}

/** Sets the request id, the log context and child logger, and logs each request once when it ends. */
export function requestContext(logger: Logger): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = /^[A-Za-z0-9._:-]{8,128}$/.test(incoming) ? incoming : randomUUID();
    const startedAt = process.hrtime.bigint();
    ctx.state.requestId = requestId;
    ctx.state.log = logger;
    ctx.set('X-Request-Id', requestId);
    await withLogContext(
      { request_id: requestId },
      async () => {
        try {
          await next();
        } finally {
          const durationMs = Number(process.hrtime.bigint() - startedAt) / 1e6;
          const route = (ctx as unknown as { _matchedRoute?: string })._matchedRoute;
          logger.info(
            {
              method: ctx.method,
              path: ctx.path,
              route,
              status: ctx.status,
              duration_ms: Math.round(durationMs * 10) / 10,
            },
            'request',
          );
        }
      },
      () => learntIds(ctx),
    );
  };
}
