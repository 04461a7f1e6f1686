/**
 * Request id and access log (D53): every request gets an id (the caller's `X-Request-Id` when it is
 * a sane token, else a UUID), echoed in `X-Request-Id`, and one JSON log line when it ends.
 */
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../logger';

/** State every handler can read: `ctx.state.requestId`, `ctx.state.log`. */
export interface RequestState {
  requestId: string;
  log: Logger;
}

/** Sets the request id and child logger, and logs method, path, status and duration in ms. */
export function requestContext(logger: Logger): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = /^[A-Za-z0-9._:-]{8,128}$/.test(incoming) ? incoming : randomUUID();
    const startedAt = process.hrtime.bigint();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ request_id: requestId });
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const durationMs = Number(process.hrtime.bigint() - startedAt) / 1e6;
      ctx.state.log.info({ method: ctx.method, path: ctx.path, status: ctx.status, duration_ms: Math.round(durationMs * 10) / 10 }, 'request');
    }
  };
}
