/**
 * JSON body parsing with koa-body: at most 1 MB (413), strict JSON (400 `invalid_request`), and a
 * body of any other content type refused with 400 `invalid_request` (docs/api.md#errors).
 */
import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { DomainError } from '../../domain/errors';

/** Largest JSON body, in bytes (docs/api.md#errors: 1 MB). */
export const JSON_LIMIT_BYTES = 1024 * 1024;

const parser = koaBody({
  json: true,
  urlencoded: false,
  text: false,
  multipart: false,
  jsonLimit: JSON_LIMIT_BYTES,
  jsonStrict: true,
  parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
  onError(error) {
    const status = (error as { status?: number }).status;
    if (status === 413) throw new DomainError('invalid_request', 'request body is larger than 1 MB', undefined, 413);
    throw new DomainError('invalid_request', 'request body is not valid JSON');
  },
});

/** Parses a JSON body into `ctx.request.body` (`{}` when there is none). */
export function jsonBody(): Middleware {
  return async (ctx, next) => {
    const hasBody = ctx.request.length > 0 || ctx.get('transfer-encoding') !== '';
    if (hasBody && !ctx.is('application/json') && ['POST', 'PUT', 'PATCH'].includes(ctx.method)) {
      throw new DomainError('invalid_request', 'content type must be application/json');
    }
    await parser(ctx, async () => {
      ctx.request.body ??= {};
      await next();
    });
  };
}
