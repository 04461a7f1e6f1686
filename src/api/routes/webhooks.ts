/**
 * Webhook endpoints under `/v1/developer/webhooks` (docs/webhooks.md), authenticated by a
 * secret key or a session token (docs/api.md#credentials), answered in the envelope. Foreign
 * and unknown ids are 404 (docs/api.md#merchants-and-environments); bad input is 400 `validation_error` naming the
 * field and changes
 * nothing.
 */
import type Router from '@koa/router';
import { apiRouter } from '../router';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  retryWebhookDelivery,
  rotateWebhookSecret,
  testWebhook,
  updateWebhook,
  type WebhookServiceDeps,
} from '../../services/webhook-service';
import type { Config } from '../../config';
import { respond } from '../envelope';
import { principalOf, sessionOrSecretKey } from '../middleware/auth';
import { jsonBody } from '../middleware/json-body';
import { paginationOf } from '../pagination';
import { createWebhookBody, emptyBody, listDeliveriesQuery, updateWebhookBody } from '../schemas/webhooks';
import { parseOrThrow } from '../schemas/validate';

/** Webhook routes; `deps.config` also carries the session token secret. */
export function webhookRoutes(
  deps: WebhookServiceDeps & { config: WebhookServiceDeps['config'] & Pick<Config, 'JWT_SECRET'> },
): Router {
  const router = apiRouter('/v1/developer/webhooks');
  router.use(sessionOrSecretKey(deps.db, deps.config.JWT_SECRET));
  const param = (value: string | undefined) => value as string;

  /** List → 200 envelope `{webhooks}` (docs/webhooks.md#endpoints), newest first, without secrets. */
  router.get('/', async (ctx) => {
    respond(ctx, 200, 'Webhooks retrieved', { webhooks: await listWebhooks(deps, principalOf(ctx)) });
  });

  /**
   * Create: `{url, events, description?}` → 201 envelope with the webhook `whk_…` and its `secret`
   * `whsec_…` (shown once, docs/webhooks.md#endpoints). Errors: 400 `validation_error` (URL rules of
   * docs/webhooks.md#targets, unknown or no
   * event names), 409 `conflict` beyond 16 webhooks per merchant and environment.
   */
  router.post('/', jsonBody(), async (ctx) => {
    const body = parseOrThrow(createWebhookBody, ctx.request.body);
    respond(ctx, 201, 'Webhook created', await createWebhook(deps, principalOf(ctx), body, ctx.ip));
  });

  /** Show → 200 envelope with the webhook, without its secret. */
  router.get('/:id', async (ctx) => {
    respond(ctx, 200, 'Webhook retrieved', await getWebhook(deps, principalOf(ctx), param(ctx.params.id)));
  });

  /**
   * Change any of url, events, status (`enabled`/`disabled`), description → 200 envelope with the webhook
   * (docs/webhooks.md#endpoints).
   */
  router.put('/:id', jsonBody(), async (ctx) => {
    const body = parseOrThrow(updateWebhookBody, ctx.request.body);
    respond(
      ctx,
      200,
      'Webhook updated',
      await updateWebhook(deps, principalOf(ctx), param(ctx.params.id), body, ctx.ip),
    );
  });

  /** Delete → 200 envelope `{id, deleted: true}` (docs/webhooks.md#endpoints). */
  router.delete('/:id', jsonBody(), async (ctx) => {
    parseOrThrow(emptyBody, ctx.request.body);
    const id = param(ctx.params.id);
    await deleteWebhook(deps, principalOf(ctx), id, ctx.ip);
    respond(ctx, 200, 'Webhook deleted', { id, deleted: true });
  });

  /**
   * Test (docs/webhooks.md#test): one `webhook.test` attempt now → 200 envelope `{delivered, status_code, duration_ms,
   * error}`.
   */
  router.post('/:id/test', jsonBody(), async (ctx) => {
    parseOrThrow(emptyBody, ctx.request.body);
    respond(ctx, 200, 'Test delivery sent', await testWebhook(deps, principalOf(ctx), param(ctx.params.id)));
  });

  /**
   * Rotate the signing secret → 200 envelope with the webhook, its new `secret` and
   * `previous_secret_expires_at`: until then the replaced secret also signs every delivery (docs/webhooks.md#endpoints,
   * docs/webhooks.md#secret-rotation).
   */
  router.post('/:id/rotate-secret', jsonBody(), async (ctx) => {
    parseOrThrow(emptyBody, ctx.request.body);
    respond(
      ctx,
      200,
      'Webhook secret rotated',
      await rotateWebhookSecret(deps, principalOf(ctx), param(ctx.params.id), ctx.ip),
    );
  });

  /**
   * Deliveries with their attempts, newest first → 200 envelope `{deliveries, pagination}` (docs/webhooks.md#retries).
   */
  router.get('/:id/deliveries', async (ctx) => {
    const query = parseOrThrow(listDeliveriesQuery, ctx.query);
    const { deliveries, total } = await listWebhookDeliveries(deps, principalOf(ctx), param(ctx.params.id), query);
    respond(ctx, 200, 'Deliveries retrieved', { deliveries, pagination: paginationOf(query, total) });
  });

  /**
   * Retry: a new delivery of the same event (docs/webhooks.md#retries) → 201 envelope with it (`pending`, `retry_of`).
   * Errors: 404; 409 `conflict` for a test delivery or a disabled webhook.
   */
  router.post('/:id/deliveries/:delivery_id/retry', jsonBody(), async (ctx) => {
    parseOrThrow(emptyBody, ctx.request.body);
    const delivery = await retryWebhookDelivery(
      deps,
      principalOf(ctx),
      param(ctx.params.id),
      param(ctx.params.delivery_id),
    );
    respond(ctx, 201, 'Delivery retry started', delivery);
  });

  return router;
}
