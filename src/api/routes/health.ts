/** `GET /healthz` (process up) and `GET /readyz` (PostgreSQL and Temporal reachable), docs/api.md#health. */
import type Router from '@koa/router';
import { apiRouter } from '../router';
import type { Client } from '@temporalio/client';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { checkReadiness } from '../../services/health-service';

/**
 * Health routes. `/readyz` answers 200 `{status: 'ok', checks}` when PostgreSQL and Temporal both
 * answered within READINESS_TIMEOUT_MS, else 503 `{status: 'unavailable', checks}` naming what is
 * down, stalled or slow; either way within READINESS_TIMEOUT_MS (docs/api.md#health).
 */
export function healthRoutes(deps: { db: Db; temporal: Client; config: Pick<Config, 'READINESS_TIMEOUT_MS'> }): Router {
  const router = apiRouter();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const { ready, checks } = await checkReadiness(deps, deps.config.READINESS_TIMEOUT_MS);
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ok' : 'unavailable', checks };
  });
  return router;
}
