/** `GET /healthz` (process up) and `GET /readyz` (PostgreSQL and Temporal reachable), docs/api.md#health. */
import Router from '@koa/router';
import type { Client } from '@temporalio/client';
import { pingDb, type Db } from '../../db/knex';

/** Health routes; `/readyz` answers 503 naming what is down. */
export function healthRoutes(deps: { db: Db; temporal: Client }): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const checks = await Promise.allSettled([pingDb(deps.db), deps.temporal.workflowService.getSystemInfo({})]);
    const [database, temporal] = checks.map((check) => (check.status === 'fulfilled' ? 'ok' : 'unavailable'));
    const ready = database === 'ok' && temporal === 'ok';
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ok' : 'unavailable', checks: { database, temporal } };
  });
  return router;
}
