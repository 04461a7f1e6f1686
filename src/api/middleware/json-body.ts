/**
 * JSON body parsing with koa-body: at most 1 MB (413), strict JSON nested at most
 * {@link MAX_JSON_DEPTH} levels (400 `invalid_request`), and a body of any other content type
 * refused with 400 `invalid_request` (docs/api.md#errors).
 */
import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { DomainError } from '../../domain/errors';
import { nestsDeeperThan } from '../../lib/json-depth';

/** Largest JSON body, in bytes (docs/api.md#errors: 1 MB). */
export const JSON_LIMIT_BYTES = 1024 * 1024;

/**
 * Deepest nesting of objects and arrays a JSON body may have (docs/api.md#errors). The deepest body
 * the API takes has 2 levels (a payment with its `metadata` or `payment_method_data`); the margin
 * is for clients that send extra wrapping, and the bound keeps every later step that walks a body
 * (validation, the idempotency hash) far from the stack's limit.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Refuses a JSON text nested deeper than {@link MAX_JSON_DEPTH}.
 * @throws DomainError `invalid_request` (400)
 */
export function refuseDeepJson(text: string): void {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new DomainError(
      'invalid_request',
      `request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep`,
    );
  }
}

const parser = koaBody({
  json: true,
  urlencoded: false,
  text: false,
  multipart: false,
  jsonLimit: JSON_LIMIT_BYTES,
  jsonStrict: true,
  includeUnparsed: true, // the text, as `ctx.request.rawBody`, to measure its depth
  parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
  onError(error) {
    const status = (error as { status?: number }).status;
    if (status === 413) throw new DomainError('invalid_request', 'request body is larger than 1 MB', undefined, 413);
    throw new DomainError('invalid_request', 'request body is not valid JSON');
  },
});

/**
 * Parses a JSON body into `ctx.request.body` (`{}` when there is none); nothing after it sees a
 * body nested deeper than {@link MAX_JSON_DEPTH}.
 * @throws DomainError `invalid_request` (400; 413 over 1 MB) for another content type, a body that
 *   is not strict JSON, or one nested too deeply
 */
export function jsonBody(): Middleware {
  return async (ctx, next) => {
    const hasBody = ctx.request.length > 0 || ctx.get('transfer-encoding') !== '';
    if (hasBody && !ctx.is('application/json') && ['POST', 'PUT', 'PATCH'].includes(ctx.method)) {
      throw new DomainError('invalid_request', 'content type must be application/json');
    }
    await parser(ctx, async () => {
      const { rawBody } = ctx.request as { rawBody?: unknown };
      if (typeof rawBody === 'string') refuseDeepJson(rawBody);
      ctx.request.body ??= {};
      await next();
    });
  };
}
