/** `GET /healthz` (process up) and `GET /readyz` (PostgreSQL and Temporal reachable), docs/api.md#health. */
import type Router from '@koa/router';
import { apiRouter } from '../router';
import type { Client } from '@temporalio/client';
import type { Db } from '../../db/knex';
import { checkReadiness } from '../../services/health-service';

/** Health routes; `/readyz` answers 503 naming what is down. */
export function healthRoutes(deps: { db: Db; temporal: Client }): Router {
  const router = apiRouter();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const { ready, checks } = await checkReadiness(deps);
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ok' : 'unavailable', checks };
  });
  return router;
}
