/**
 * `GET /v1/availability` (docs/availability.md#api): each provider, country and operation the caller's environment
 * serves, with its status and figures, for any key or a session token (`?environment=`). Answered in the envelope.
 */
import type Router from '@koa/router';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { availabilityOf } from '../../services/provider-health-service';
import { toAvailabilityView } from '../../views/availability';
import { respond } from '../envelope';
import { principalOf, sessionOrSecretKey } from '../middleware/auth';
import { apiRouter } from '../router';
import { availabilityQuery } from '../schemas/availability';
import { parseOrThrow } from '../schemas/validate';

/** Availability routes. */
export function availabilityRoutes(deps: { db: Db; config: Pick<Config, 'JWT_SECRET'> }): Router {
  const router = apiRouter('/v1');

  /**
   * Availability → 200 envelope `{availability: [{provider, country, operation, status, since, success_rate,
   * p50_seconds, p95_seconds, window_attempts, reason}]}`, in the providers' order. Errors: 400 an unknown query
   * field; 401.
   */
  router.get('/availability', sessionOrSecretKey(deps.db, deps.config.JWT_SECRET), async (ctx) => {
    parseOrThrow(availabilityQuery, ctx.query);
    const { environment, merchantId } = principalOf(ctx);
    // In sandbox, the merchant's own statuses win (docs/availability.md#sandbox-override).
    const rows = await availabilityOf(deps.db, environment, merchantId);
    respond(ctx, 200, 'Availability retrieved', { availability: rows.map(toAvailabilityView) });
  });

  return router;
}
