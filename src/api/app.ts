/**
 * The Koa app (D51–D53): request id and JSON logs, one error middleware, the routers, and 404/405
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
import { errorHandler } from './middleware/error-handler';
import { requestContext } from './middleware/request-context';
import { authRoutes } from './routes/auth';
import { healthRoutes } from './routes/health';
import { eventRoutes } from './routes/events';
import { merchantPaymentRoutes } from './routes/merchant-payments';
import { paymentRoutes } from './routes/payments';
import { providerCallbackRoutes } from './routes/provider-callbacks';
import { sandboxRoutes } from './routes/sandbox';
import { webhookRoutes } from './routes/webhooks';

/** Everything the API needs, injected. */
export interface AppDeps {
  config: Config;
  db: Db;
  temporal: Client;
  providers: ProviderRegistry;
  logger: Logger;
}

function mount(app: Koa, router: Router): void {
  app.use(router.routes());
  app.use(router.allowedMethods());
}

/** Builds the app; listen with `app.listen(port)` or `http.createServer(app.callback())`. */
export function createApp(deps: AppDeps): Koa {
  const app = new Koa({ proxy: false });
  app.silent = true;
  app.use(requestContext(deps.logger));
  app.use(errorHandler());
  // After the routers ran: a path no router matched is 404; a matched path with another method was
  // set to 405 (with its Allow header) by allowedMethods(). Both answer in the envelope.
  app.use(async (ctx, next) => {
    await next();
    if (ctx.body !== undefined && ctx.body !== null) return;
    if (ctx.status === 404) throw new DomainError('not_found', 'no such endpoint');
    if (ctx.status === 405 || ctx.status === 501) throw new DomainError('method_not_allowed', `${ctx.method} is not allowed on this path`, undefined, ctx.status);
  });
  mount(app, healthRoutes(deps));
  mount(app, authRoutes(deps));
  mount(app, paymentRoutes(deps));
  mount(app, merchantPaymentRoutes(deps));
  mount(app, providerCallbackRoutes(deps));
  mount(app, sandboxRoutes(deps));
  mount(app, eventRoutes(deps));
  mount(app, webhookRoutes(deps));
  return app;
}
