/**
 * The Koa app (docs/api.md#errors, docs/versioning.md, docs/api.md#health): compressed answers, request id and JSON
 * logs, one error middleware, the routers, and 404/405
 * answered in the envelope. `createApp(deps)` builds it without listening, for the server and tests.
 */
import Koa from 'koa';
import type Router from '@koa/router';
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import { DomainError } from '../domain/errors';
import type { Logger } from '../logger';
import type { ProviderRegistry } from '../providers/registry';
import { hostedPage } from '../page/routes';
import { pageBrandOf } from '../services/branding-service';
import { dashboard, DASHBOARD_PATH } from './dashboard';
import { createMetrics } from './metrics';
import { openApiRoutes } from './openapi';
import { compression } from './middleware/compression';
import { errorHandler } from './middleware/error-handler';
import { checkoutPageLimit, rateLimit } from './middleware/rate-limit';
import { requestContext } from './middleware/request-context';
import { exactPath, matchesExactly } from './router';
import { authRoutes } from './routes/auth';
import { documentRoutes } from './routes/documents';
import { healthRoutes } from './routes/health';
import { developerRoutes } from './routes/developer';
import { payoutRoutes } from './routes/payouts';
import { checkoutRoutes } from './routes/checkout';
import { availabilityRoutes } from './routes/availability';
import { statusPageRoutes } from './routes/status-page';
import { linkPageRoutes, paymentLinkRoutes } from './routes/payment-links';
import { brandingRoutes } from './routes/branding';
import { balanceRoutes } from './routes/balance';
import { settlementReportRoutes } from './routes/settlement-reports';
import { developerPaymentRoutes } from './routes/developer-payments';
import { eventRoutes } from './routes/events';
import { eventStreamRoutes } from './routes/event-stream';
import { merchantPaymentRoutes } from './routes/merchant-payments';
import { liveAccessRoutes } from './routes/live-access';
import { paymentRoutes } from './routes/payments';
import { providerCallbackRoutes } from './routes/provider-callbacks';
import { sandboxRoutes } from './routes/sandbox';
import { webhookRoutes } from './routes/webhooks';
import { teamRoutes } from './routes/team';
import { twoFactorRoutes } from './routes/two-factor';
import { passwordRoutes } from './routes/password';

/** Everything the API needs, injected. */
export interface AppDeps {
  config: Config;
  db: Db;
  temporal: Client;
  providers: ProviderRegistry;
  logger: Logger;
}

/** Mounts `router`. @throws Error for a router that does not follow the routing rule (docs/api.md#paths). */
function mount(app: Koa, router: Router): void {
  if (!matchesExactly(router))
    throw new Error(`every router must be built with apiRouter(): ${String(router.opts.prefix ?? '/')} is not`);
  app.use(router.routes());
  app.use(router.allowedMethods());
}

/**
 * Every router of the API, in mounting order (the OpenAPI coverage test walks them).
 * @param metricsRoutes the `/metrics` router of the app's metrics registry
 */
export function createRouters(deps: AppDeps, metricsRoutes: Router): Router[] {
  return [
    healthRoutes(deps),
    metricsRoutes,
    openApiRoutes({ serverUrl: deps.config.PUBLIC_BASE_URL }),
    authRoutes(deps),
    paymentRoutes(deps),
    balanceRoutes(deps),
    availabilityRoutes(deps),
    statusPageRoutes(deps),
    settlementReportRoutes(deps),
    payoutRoutes(deps),
    checkoutRoutes(deps),
    paymentLinkRoutes(deps),
    linkPageRoutes(deps),
    ...brandingRoutes(deps),
    merchantPaymentRoutes(deps),
    providerCallbackRoutes(deps),
    sandboxRoutes(deps),
    eventStreamRoutes(deps),
    eventRoutes(deps),
    developerRoutes(deps),
    twoFactorRoutes(deps),
    passwordRoutes(deps),
    teamRoutes(deps),
    developerPaymentRoutes(deps),
    documentRoutes(deps),
    liveAccessRoutes(deps),
    webhookRoutes(deps),
  ];
}

/** Control characters (C0, DEL) that no id, path segment or resource name of the API contains. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/**
 * 404 `not_found` for a path that cannot name any resource: one whose percent-encoding is not valid
 * UTF-8 or that decodes to a control character (`/v1/payments/%00`). PostgreSQL refuses NUL in
 * text, so such a path parameter must never reach a query.
 */
function wellFormedPath(): Koa.Middleware {
  return async (ctx, next) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(ctx.path);
    } catch {
      throw new DomainError('not_found', 'no such resource');
    }
    if (CONTROL_CHARACTER.test(decoded)) throw new DomainError('not_found', 'no such resource');
    await next();
  };
}

/** Builds the app; listen with `app.listen(port)` or `http.createServer(app.callback())`. */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true;
  // First, so it compresses the final body of every answer after the rest read it (docs/api.md#compression).
  app.use(compression());
  const metrics = createMetrics(deps.db);
  app.use(metrics.middleware);
  app.use(requestContext(deps.logger));
  app.use(errorHandler());
  app.use(wellFormedPath());
  // One routing rule (docs/api.md#paths): an odd spelling of a path is 404 before it is counted or read.
  app.use(exactPath(DASHBOARD_PATH));
  app.use(rateLimit(deps));
  // After the routers ran: a path no router matched is 404; a matched path with another method was
  // set to 405 (with its Allow header) by allowedMethods(), or to 501 for a method no router serves
  // anywhere (TRACE, CONNECT). Both are the client's mistake, so both answer 405 `method_not_allowed`
  // with the Allow header, never a 5xx (found by the OpenAPI fuzz). All answer in the envelope.
  app.use(async (ctx, next) => {
    await next();
    if (ctx.body !== undefined && ctx.body !== null) return;
    if (ctx.status === 404) throw new DomainError('not_found', 'no such endpoint');
    if (ctx.status === 405 || ctx.status === 501)
      throw new DomainError('method_not_allowed', `${ctx.method} is not allowed on this path`);
  });
  // The merchant dashboard's files (README.md#dashboard); its paths never reach the API's routers.
  app.use(dashboard(deps.config.DASHBOARD_DIR));
  // The hosted payment page (docs/hosted-page.md): HTML for payers under `/pay`, never reaching the API's routers.
  // The page shows the merchant's branding (docs/branding.md): its display name, colour and logo.
  app.use(
    hostedPage(
      deps,
      (session) => pageBrandOf(deps.db, session.merchantId, session.id),
      // The form's attempt counts against the session's page limit (docs/limits.md#checkout-page-limits).
      checkoutPageLimit(deps),
    ),
  );
  for (const router of createRouters(deps, metrics.routes)) mount(app, router);
  return app;
}
