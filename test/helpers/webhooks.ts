/** Webhook rows and events the workflow tests start from, written through the real repositories. */
import type { Db } from '../../src/db/knex';
import { insertEventOnce, type EventInput } from '../../src/db/payments';
import { insertWebhookWithEvent, updateWebhook } from '../../src/db/webhooks';
import type { WebhookRecord } from '../../src/domain/webhooks';
import type { Environment } from '../../src/domain/environment';
import type { WebhookStatus } from '../../src/domain/webhooks';
import { newId } from '../../src/lib/ids';
import { newWebhookSecret } from '../../src/lib/webhook-signature';

/** Inserts a webhook of `merchantId` (sandbox by default) subscribed to `events`, in `status`. */
export async function insertWebhook(
  db: Db,
  merchantId: string,
  url: string,
  options: { events?: string[]; environment?: Environment; status?: WebhookStatus } = {},
): Promise<WebhookRecord> {
  const now = new Date().toISOString();
  const webhook: WebhookRecord = {
    id: newId('whk_'),
    merchantId,
    environment: options.environment ?? 'sandbox',
    url,
    events: options.events ?? ['payment.completed'],
    status: 'enabled',
    description: null,
    secret: newWebhookSecret(),
    previousSecret: null,
    previousSecretExpiresAt: null,
    failureKind: null,
    failureReason: null,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  const created: EventInput = {
    id: newId('evt_'),
    merchantId,
    environment: webhook.environment,
    type: 'webhook.created',
    objectId: webhook.id,
    data: {},
    createdAt: now,
  };
  if (!(await insertWebhookWithEvent(db, webhook, created))) throw new Error('webhook limit reached in a fixture');
  if (options.status && options.status !== 'enabled') {
    return (await updateWebhook(db, webhook, webhook.id, { status: options.status }, new Date())) as WebhookRecord;
  }
  return webhook;
}

/** Writes an event of `type` for `merchantId` (sandbox by default) with a small payment as its data. */
export async function insertEvent(
  db: Db,
  merchantId: string,
  type = 'payment.completed',
  environment: Environment = 'sandbox',
): Promise<EventInput> {
  const event: EventInput = {
    id: newId('evt_'),
    merchantId,
    environment,
    type,
    objectId: null,
    data: { id: newId('pay_'), object: 'payment', amount: 1500, currency: 'RWF', status: 'completed' },
    createdAt: new Date().toISOString(),
  };
  await insertEventOnce(db, event);
  return event;
}
