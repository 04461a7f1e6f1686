/**
 * Request bodies and queries of the webhook endpoints (docs/webhooks.md#endpoints, docs/webhooks.md#retries). Types and
 * forms only: the URL
 * rules of docs/webhooks.md#targets (scheme per environment, where the host points) are checked by the service.
 */
import { z } from '../../lib/zod';
import { MAX_WEBHOOK_URL_LENGTH, SETTABLE_WEBHOOK_STATUSES } from '../../domain/webhooks';
import { pageQueryFields } from '../pagination';
import { EVENT_NAMES } from '../routes/events';

const url = z.string().min(1).max(MAX_WEBHOOK_URL_LENGTH);
/**
 * Subscribed event names: at least one, each a known name (unknown → 400, docs/webhooks.md#endpoints); repeats are
 * dropped.
 */
const events = z
  .array(z.enum(EVENT_NAMES))
  .min(1)
  .max(EVENT_NAMES.length * 2);
const description = z.string().max(500);

/** `POST /v1/developer/webhooks`: `url`, `events` and an optional `description` (docs/webhooks.md#endpoints). */
export const createWebhookBody = z.strictObject({
  url: url.openapi({ description: 'Where to POST the events (https in live)' }),
  events: events.openapi({ description: 'The event names to deliver' }),
  description: description.optional().openapi({ description: 'Yours, to tell endpoints apart' }),
});

/**
 * `PUT /v1/developer/webhooks/{id}`: any of url, events, status (`enabled`|`disabled`), description (null clears it),
 * at least one (docs/webhooks.md#endpoints).
 */
export const updateWebhookBody = z
  .strictObject({
    url: url.optional().openapi({ description: 'A new address' }),
    events: events.optional().openapi({ description: 'The event names to deliver from now on' }),
    status: z.enum(SETTABLE_WEBHOOK_STATUSES).optional().openapi({ description: '`enabled` or `disabled`' }),
    description: description.nullable().optional().openapi({ description: 'Yours; null clears it' }),
  })
  .refine((body) => Object.keys(body).length > 0, 'body must change at least one of: url, events, status, description');

/** Operations without a body (test, rotate-secret, retry, delete): an empty body or none. */
export const emptyBody = z.strictObject({});

/** `GET /v1/developer/webhooks/{id}/deliveries`: page ≥ 1 (default 1), limit 1–100 (default 10). */
export const listDeliveriesQuery = z.strictObject(pageQueryFields);
