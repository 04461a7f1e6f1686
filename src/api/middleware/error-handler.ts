/**
 * The one error middleware (Koa's error-handling guide, docs/api.md#errors): every thrown error becomes the
 * response. Generic and developer endpoints answer the envelope `{success: false, error: {code,
 * message, details?}}`; merchant-scoped endpoints (`/v1/api/…`) answer `{error: message}`.
 * Messages are shown only for 4xx; a 5xx says "internal error" and is logged with its stack once.
 * PostgreSQL or Temporal out of reach is 503 `service_unavailable` with `Retry-After` (docs/api.md#errors); a
 * value PostgreSQL refuses for its data (SQLSTATE class 22) is 400 `validation_error` (docs/limits.md#request-bodies).
 */
import type { Context, Middleware } from 'koa';
import { DomainError, type ErrorCode, type FieldProblem } from '../../domain/errors';
import { HTTP_STATUS } from '../errors';
import { refusedData } from '../../services/data-refusal';
import { isOutage } from '../../lib/outage';

interface Answer {
  status: number;
  code: ErrorCode;
  message: string;
  details?: FieldProblem[];
}

function fromHttpError(error: { status: number; message: string; expose?: boolean; type?: string }): Answer {
  const { status } = error;
  if (status === 413) return { status, code: 'invalid_request', message: 'request body is larger than 1 MB' };
  if (status === 415) return { status: 400, code: 'invalid_request', message: 'content type must be application/json' };
  // Bodies are parsed in json-body.ts, which names a bad one itself; any other 400 says what its thrower said.
  if (status === 400) return { status, code: 'invalid_request', message: error.expose ? error.message : 'bad request' };
  if (status === 404) return { status, code: 'not_found', message: 'resource not found' };
  if (status === 405) return { status, code: 'method_not_allowed', message: error.message };
  if (status < 500 && error.expose) return { status, code: 'invalid_request', message: error.message };
  return { status: 500, code: 'internal_error', message: 'internal error' };
}

function toAnswer(error: unknown): Answer {
  if (error instanceof DomainError) {
    return {
      status: error.status ?? HTTP_STATUS[error.code],
      code: error.code,
      message: error.message,
      details: error.details,
    };
  }
  if (typeof error === 'object' && error !== null && typeof (error as { status?: unknown }).status === 'number') {
    return fromHttpError(error as { status: number; message: string; expose?: boolean });
  }
  // Input the edge validation let through and PostgreSQL (or the guard before it) refused: the caller's data, not a
  // fault of ours.
  const refused = refusedData(error);
  if (refused) {
    return {
      status: 400,
      code: 'validation_error',
      message: `the request holds a value that cannot be stored (SQLSTATE ${refused.sqlState} ${refused.condition})`,
    };
  }
  if (isOutage(error)) {
    return {
      status: 503,
      code: 'service_unavailable',
      message:
        'the service cannot reach its database or workflow engine right now; retry shortly with the same Idempotency-Key, which never repeats what a first attempt did',
    };
  }
  return { status: 500, code: 'internal_error', message: 'internal error' };
}

/** `Retry-After` of a 503 `service_unavailable` (docs/api.md#errors), in seconds. */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 1;

/** True for the merchant-scoped family, whose errors are `{error: <string>}` (docs/payments.md#merchant-scoped). */
export function isMerchantScoped(ctx: Context): boolean {
  return ctx.path.startsWith('/v1/api/');
}

/** Catches every error below it and writes the answer in the family's error shape. */
export function errorHandler(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const answer = toAnswer(error);
      if (answer.status >= 500) {
        ctx.state.log?.error({ err: error }, 'request failed');
      }
      ctx.status = answer.status;
      ctx.type = 'application/json';
      if (error instanceof DomainError && error.retryAfterSeconds !== undefined)
        ctx.set('Retry-After', String(error.retryAfterSeconds));
      else if (answer.code === 'service_unavailable')
        ctx.set('Retry-After', String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
      if (isMerchantScoped(ctx)) {
        ctx.body = { error: answer.message };
      } else {
        const body: { code: ErrorCode; message: string; details?: FieldProblem[] } = {
          code: answer.code,
          message: answer.message,
        };
        if (answer.details && answer.details.length > 0) body.details = answer.details;
        ctx.body = { success: false, error: body };
      }
      if (answer.code === 'method_not_allowed' && error && typeof error === 'object' && 'headers' in error) {
        const allow = (error as { headers?: Record<string, string> }).headers?.Allow;
        if (allow) ctx.set('Allow', allow);
      }
    }
  };
}
