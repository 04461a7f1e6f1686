/**
 * The one routing rule of the API (docs/api.md#paths): a path is served only as the OpenAPI document
 * spells it. Letters are case-sensitive (`/V1/payments` and `/v1/Payments` are other paths), fixed
 * segments match their letters, not a percent-encoding of them (`/v1/%70ayments`), and an empty
 * segment or a trailing slash makes another path (`/v1//payments`, `/v1/payments/`). Every such
 * path answers 404 `not_found` before any credential, limit, body or upload is looked at, so the
 * middleware that tests a path (rate limits, the error shape) and the routers agree on every
 * request that reaches a handler. Two parts hold the rule: {@link exactPath} refuses the slashes
 * first, and routers built by {@link apiRouter} match letters case-sensitively.
 */
import Router from '@koa/router';
import type { Middleware } from 'koa';
import { DomainError } from '../domain/errors';

/**
 * A router that matches letters case-sensitively (@koa/router's `sensitive`); the app refuses to
 * mount any other ({@link matchesExactly}). Trailing slashes never reach it ({@link exactPath}).
 * @param prefix the fixed start of every route, e.g. `/v1/payments`; none for top-level routes
 */
export function apiRouter(prefix?: string): Router {
  return new Router(prefix === undefined ? { sensitive: true } : { sensitive: true, prefix });
}

/** True when `router` was built by {@link apiRouter}, i.e. matches letters case-sensitively. */
export function matchesExactly(router: Router): boolean {
  return router.opts.sensitive === true;
}

/**
 * 404 `not_found` for a path with an empty segment (`//`) or a trailing slash, other than `/`
 * itself and the dashboard's own paths (`/dashboard/…`, which are the web app's, README.md#dashboard).
 * Mount before the rate limits, so such a path is refused before anything else reads it.
 */
export function exactPath(dashboardPath: string): Middleware {
  return async (ctx, next) => {
    const { path } = ctx;
    const insideDashboard = path === dashboardPath || path.startsWith(`${dashboardPath}/`);
    if (!insideDashboard && path !== '/' && (path.endsWith('/') || path.includes('//'))) {
      throw new DomainError('not_found', 'no such endpoint');
    }
    await next();
  };
}
