/**
 * `GET /v1/developer/events` and `GET /v1/developer/events/{id}` (docs/payments.md#events), session token or secret key
 * (docs/api.md#credentials).
 */
import type Router from '@koa/router';
import { apiRouter } from '../router';
import { z } from '../../lib/zod';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { getEvent, listEventPage } from '../../services/event-service';
import { respond } from '../envelope';
import { principalOf, sessionOrSecretKey } from '../middleware/auth';
import { paginationOf, pageQueryFields } from '../pagination';
import { parseOrThrow } from '../schemas/validate';

/** Event names the service writes (docs/payments.md#events). */
export const EVENT_NAMES = [
  'payment.created',
  'payment.completed',
  'payment.failed',
  'payment.cancelled',
  'refund.completed',
  'refund.failed',
  'webhook.created',
  'payout.created',
  'payout.paid',
  'payout.failed',
  'payout.returned',
  'checkout.session.completed',
  'checkout.session.expired',
  'provider.status_changed',
] as const;

/** Query of the list: `page` ≥ 1 (default 1), `limit` 1–100 (default 10), `type` one event name. */
export const listEventsQuery = z.strictObject({
  ...pageQueryFields,
  type: z.enum(EVENT_NAMES).optional().openapi({ description: 'Only events of this name' }),
});

/** Event routes under `/v1/developer/events`. */
export function eventRoutes(deps: { db: Db; config: Pick<Config, 'JWT_SECRET'> }): Router {
  const router = apiRouter('/v1/developer/events');
  router.use(sessionOrSecretKey(deps.db, deps.config.JWT_SECRET));

  /** List → 200 envelope `{events, pagination: {page, limit, total, total_pages}}`, newest first. */
  router.get('/', async (ctx) => {
    const query = parseOrThrow(listEventsQuery, ctx.query);
    const { events, total } = await listEventPage(deps, principalOf(ctx), query);
    respond(ctx, 200, 'Events retrieved', { events, pagination: paginationOf(query, total) });
  });

  /** Show → 200 envelope with the event; 404 for unknown or foreign ids (docs/api.md#merchants-and-environments). */
  router.get('/:id', async (ctx) => {
    respond(ctx, 200, 'Event retrieved', await getEvent(deps, principalOf(ctx), ctx.params.id as string));
  });

  return router;
}
