/**
 * Webhook endpoints of the developer API (docs/webhooks.md): create (with its `webhook.created` event,
 * docs/payments.md#events),
 * list, show, change, delete, rotate the secret, send a test, list deliveries and retry one. Every
 * operation is scoped to the caller's merchant and environment; foreign ids are 404
 * (docs/api.md#merchants-and-environments).
 * A refused request changes nothing; a change that succeeded is written to the audit log
 * (docs/live-access.md#audit-log) with the caller's address `ip`.
 */
import type { Client } from '@temporalio/client';
import {
  pendingDelivery,
  startDelivery,
  startWebhookDeliveries,
  type DispatchDeps,
} from '../activities/webhook-dispatch';
import {
  toDeliveryView,
  toWebhookView,
  toWebhookWithSecretView,
  type DeliveryView,
  type TestDeliveryView,
  type WebhookView,
  type WebhookWithSecretView,
} from '../views/webhook';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import type { EventInput } from '../db/payments';
import {
  deleteWebhook as deleteWebhookRow,
  findDeliveryTarget,
  findSubscribedWebhookIds,
  findWebhook,
  insertTestDelivery,
  insertWebhookWithEvent,
  listDeliveries,
  listWebhooks as listWebhookRows,
  rotateWebhookSecret as rotateWebhookSecretRow,
  updateWebhook as updateWebhookRow,
  type WebhookPatch,
} from '../db/webhooks';
import { orNotFound, DomainError, validationError } from '../domain/errors';
import { ID_PREFIXES } from '../domain/ids';
import type { Principal } from '../domain/principal';
import {
  activeSecrets,
  checkWebhookUrl,
  classifyAttempt,
  MAX_WEBHOOKS_PER_SCOPE,
  privateTargetsAllowed,
  receivesDeliveries,
  SECRET_ROTATION_OVERLAP_MS,
  TEST_EVENT_NAME,
  type DeliveryRecord,
  type WebhookRecord,
  type WebhookStatus,
} from '../domain/webhooks';
import { deriveId, newId } from '../lib/ids';
import { sendWebhook } from '../lib/webhook-sender';
import { newWebhookSecret } from '../lib/webhook-signature';
import { resolveWebhookTarget, systemResolver, WebhookTargetError, type HostResolver } from '../lib/webhook-target';
import type { Logger } from '../logger';
import { webhookRetryWorkflowId } from '../workflows/webhook-messages';
import { audit } from './audit';

/** What the webhook service needs. */
export interface WebhookServiceDeps {
  db: Db;
  temporal: Client;
  config: Pick<Config, 'TEMPORAL_WEBHOOK_TASK_QUEUE' | 'WEBHOOK_ALLOW_PRIVATE_TARGETS'>;
  logger?: Logger;
  /** Host name resolver for the URL rules (default the system's). */
  resolve?: HostResolver;
}

/** Deliveries start on their own task queue, apart from payment work (docs/webhooks.md#isolation). */
function dispatchDeps(deps: WebhookServiceDeps): DispatchDeps {
  return { db: deps.db, temporal: deps.temporal, taskQueue: deps.config.TEMPORAL_WEBHOOK_TASK_QUEUE };
}

/**
 * Checks a URL against docs/webhooks.md#targets for the caller's environment: its form, then where its host points
 * after
 * DNS resolution (loopback, private, link-local and multicast targets are refused in live mode, and
 * in sandbox unless configuration allows them).
 * @returns the normalised URL
 * @throws DomainError `validation_error` naming `url`
 */
async function checkedUrl(deps: WebhookServiceDeps, raw: string, owner: Principal): Promise<string> {
  const form = checkWebhookUrl(raw, owner.environment);
  if ('problem' in form) throw validationError([{ field: 'url', message: form.problem }]);
  try {
    await resolveWebhookTarget(
      form.url,
      privateTargetsAllowed(owner.environment, deps.config.WEBHOOK_ALLOW_PRIVATE_TARGETS),
      deps.resolve ?? systemResolver,
    );
  } catch (error) {
    if (error instanceof WebhookTargetError) throw validationError([{ field: 'url', message: error.message }]);
    throw error;
  }
  return form.url.href;
}

/** The subscribed names without repeats, in the order given. */
function distinct(events: readonly string[]): string[] {
  return [...new Set(events)];
}

/**
 * The caller's webhook `id`, with its secrets.
 * @throws DomainError `not_found` for unknown, deleted and foreign ids alike (docs/api.md#merchants-and-environments)
 */
async function ownWebhook(deps: Pick<WebhookServiceDeps, 'db'>, owner: Principal, id: string): Promise<WebhookRecord> {
  return orNotFound(await findWebhook(deps.db, owner, id), 'webhook', id);
}

/**
 * The caller's webhook `id`, without its secrets.
 * @throws DomainError `not_found` for unknown, deleted and foreign ids alike (docs/api.md#merchants-and-environments)
 */
export async function getWebhook(
  deps: Pick<WebhookServiceDeps, 'db'>,
  owner: Principal,
  id: string,
): Promise<WebhookView> {
  return toWebhookView(await ownWebhook(deps, owner, id));
}

/** The caller's webhooks, newest first (at most 16, docs/webhooks.md#endpoints), without their secrets. */
export async function listWebhooks(deps: Pick<WebhookServiceDeps, 'db'>, owner: Principal): Promise<WebhookView[]> {
  return (await listWebhookRows(deps.db, owner)).map(toWebhookView);
}

/**
 * Creates an enabled webhook with a new secret, writes `webhook.created` (data: the webhook without
 * its secret, docs/payments.md#events) and starts that event's deliveries to the other subscribed webhooks: never to
 * the
 * new one, whose receiver cannot know the secret yet (docs/webhooks.md).
 * @returns the webhook with its secret, shown this once
 * @throws DomainError `validation_error` (URL rules of docs/webhooks.md#targets), `conflict` (409) beyond 16 webhooks
 *   per
 *   merchant and environment (docs/webhooks.md#endpoints)
 */
export async function createWebhook(
  deps: WebhookServiceDeps,
  owner: Principal,
  request: { url: string; events: readonly string[]; description?: string },
  ip: string,
): Promise<WebhookWithSecretView> {
  const url = await checkedUrl(deps, request.url, owner);
  const now = new Date().toISOString();
  const webhook: WebhookRecord = {
    id: newId(ID_PREFIXES.webhook),
    merchantId: owner.merchantId,
    environment: owner.environment,
    url,
    events: distinct(request.events),
    status: 'enabled',
    description: request.description ?? null,
    secret: newWebhookSecret(),
    previousSecret: null,
    previousSecretExpiresAt: null,
    failureKind: null,
    failureReason: null,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  const event: EventInput = {
    id: deriveId(ID_PREFIXES.event, `webhook:${webhook.id}:created`),
    merchantId: webhook.merchantId,
    environment: webhook.environment,
    type: 'webhook.created',
    objectId: webhook.id,
    data: toWebhookView(webhook),
    createdAt: now,
  };
  if (!(await insertWebhookWithEvent(deps.db, webhook, event))) {
    throw new DomainError(
      'conflict',
      `at most ${MAX_WEBHOOKS_PER_SCOPE} webhooks per merchant and environment; delete one first`,
    );
  }
  // The webhook exists now: a failure to start the deliveries must not answer as if it did not.
  try {
    const subscribers = await findSubscribedWebhookIds(deps.db, event, event.type);
    await startWebhookDeliveries(
      dispatchDeps(deps),
      event,
      subscribers.filter((id) => id !== webhook.id),
    );
  } catch (error) {
    deps.logger?.error({ err: error, event_id: event.id }, 'webhook.created deliveries not started');
  }
  await audit(deps.db, owner, 'webhook.created', webhook.id, ip);
  return toWebhookWithSecretView(webhook);
}

/**
 * A change of a webhook (docs/webhooks.md#endpoints): any of url, events, status (`enabled`/`disabled`), description
 * (null clears it).
 */
export interface WebhookChange {
  url?: string;
  events?: readonly string[];
  status?: Extract<WebhookStatus, 'enabled' | 'disabled'>;
  description?: string | null;
}

/**
 * Changes the caller's webhook (docs/webhooks.md#endpoints); a new URL is checked like on create
 * (docs/webhooks.md#targets). Setting `enabled`
 * also takes a `failed` webhook back, a 410's included; any status set clears `failure_reason`.
 * @returns the webhook after the change, without its secrets
 * @throws DomainError `not_found`, `validation_error`
 */
export async function updateWebhook(
  deps: WebhookServiceDeps,
  owner: Principal,
  id: string,
  change: WebhookChange,
  ip: string,
): Promise<WebhookView> {
  await ownWebhook(deps, owner, id);
  const patch: WebhookPatch = { status: change.status, description: change.description };
  if (change.url !== undefined) patch.url = await checkedUrl(deps, change.url, owner);
  if (change.events !== undefined) patch.events = distinct(change.events);
  const updated = orNotFound(await updateWebhookRow(deps.db, owner, id, patch, new Date()), 'webhook', id);
  await audit(deps.db, owner, 'webhook.updated', updated.id, ip);
  return toWebhookView(updated);
}

/**
 * Deletes the caller's webhook: it gets nothing more, and deliveries under way end `cancelled` at
 * their next attempt.
 * @throws DomainError `not_found`
 */
export async function deleteWebhook(
  deps: Pick<WebhookServiceDeps, 'db'>,
  owner: Principal,
  id: string,
  ip: string,
): Promise<void> {
  if (!(await deleteWebhookRow(deps.db, owner, id, new Date())))
    throw new DomainError('not_found', `no webhook with id ${id}`);
  await audit(deps.db, owner, 'webhook.deleted', id, ip);
}

/**
 * Gives the caller's webhook a new signing secret (docs/webhooks.md#endpoints, docs/webhooks.md#secret-rotation): every
 * attempt from now on is signed with it and, for 24 h, also with the secret it replaces, so the
 * receiver can switch at any time in that day. A rotation within that day drops the secret the
 * previous rotation replaced.
 * @returns the webhook with its new secret (shown this once) and `previous_secret_expires_at`
 * @throws DomainError `not_found`
 */
export async function rotateWebhookSecret(
  deps: Pick<WebhookServiceDeps, 'db'>,
  owner: Principal,
  id: string,
  ip: string,
): Promise<WebhookWithSecretView> {
  const updated = orNotFound(
    await rotateWebhookSecretRow(deps.db, owner, id, newWebhookSecret(), new Date(), SECRET_ROTATION_OVERLAP_MS),
    'webhook',
    id,
  );
  await audit(deps.db, owner, 'webhook.secret_rotated', updated.id, ip);
  return toWebhookWithSecretView(updated);
}

/**
 * Sends one `webhook.test` event (`data: {webhook_id}`) now, a single attempt through the same
 * delivery code as the workflow (signed with every secret still valid), and records it in the
 * delivery log (docs/webhooks.md#test). The endpoint's status is not changed by a test, whatever the answer.
 * @throws DomainError `not_found`
 */
export async function testWebhook(deps: WebhookServiceDeps, owner: Principal, id: string): Promise<TestDeliveryView> {
  const webhook = await ownWebhook(deps, owner, id);
  const now = new Date();
  const payload = {
    id: newId(ID_PREFIXES.event),
    event: TEST_EVENT_NAME,
    created_at: now.toISOString(),
    data: { webhook_id: webhook.id },
  };
  const outcome = await sendWebhook({
    url: webhook.url,
    secrets: activeSecrets(webhook, Date.now()),
    payload,
    environment: webhook.environment,
    allowPrivateTargetsInSandbox: deps.config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    resolve: deps.resolve,
  });
  const delivered = classifyAttempt(outcome) === 'succeeded';
  const delivery: DeliveryRecord = {
    id: newId(ID_PREFIXES.delivery),
    webhookId: webhook.id,
    merchantId: webhook.merchantId,
    environment: webhook.environment,
    eventId: payload.id,
    eventType: TEST_EVENT_NAME,
    workflowId: null,
    retryOf: null,
    status: delivered ? 'succeeded' : 'failed',
    attemptCount: 1,
    nextAttemptAt: null,
    createdAt: now.toISOString(),
    updatedAt: new Date().toISOString(),
  };
  await insertTestDelivery(deps.db, delivery, {
    deliveryId: delivery.id,
    attempt: 1,
    attemptedAt: now.toISOString(),
    outcome,
  });
  return { delivered, status_code: outcome.statusCode, duration_ms: outcome.durationMs, error: outcome.error };
}

/**
 * One page of the caller's webhook's deliveries with their attempts, newest first (docs/webhooks.md#retries).
 * @throws DomainError `not_found`
 */
export async function listWebhookDeliveries(
  deps: Pick<WebhookServiceDeps, 'db'>,
  owner: Principal,
  id: string,
  page: { page: number; limit: number },
): Promise<{ deliveries: DeliveryView[]; total: number }> {
  await ownWebhook(deps, owner, id);
  const { deliveries, total } = await listDeliveries(deps.db, owner, id, page);
  return { deliveries: deliveries.map(toDeliveryView), total };
}

/**
 * Starts a new delivery of a delivery's event to the same webhook (docs/webhooks.md#retries): a new delivery id and
 * workflow `webhook-delivery:{evt}:{whk}:retry:{dlv}`, with the full schedule of five attempts. The
 * receiver sees the same event id (and de-duplicates on it).
 * @returns the new delivery, `pending`
 * @throws DomainError `not_found` (webhook or delivery); `conflict` for a test delivery (send another
 *   test), a disabled webhook (docs/webhooks.md#retries: it receives nothing) or one failed by a 410 Gone (until
 * enabled)
 */
export async function retryWebhookDelivery(
  deps: WebhookServiceDeps,
  owner: Principal,
  id: string,
  deliveryId: string,
): Promise<DeliveryView> {
  // One query for the delivery, its webhook and its event; the scope is checked here
  // (docs/api.md#merchants-and-environments).
  const target = await findDeliveryTarget(deps.db, deliveryId);
  const ours =
    target?.delivery.webhookId === id &&
    target.delivery.merchantId === owner.merchantId &&
    target.delivery.environment === owner.environment;
  const webhook = ours ? target.webhook : undefined;
  if (!target || !webhook || webhook.deletedAt !== null) {
    await ownWebhook(deps, owner, id); // 404 naming the webhook when it is the unknown one
    throw new DomainError('not_found', `no delivery with id ${deliveryId} for webhook ${id}`);
  }
  const { delivery: original, event } = target;
  if (original.workflowId === null) {
    throw new DomainError(
      'conflict',
      `${deliveryId} is a test delivery; send a new test with POST /v1/developer/webhooks/${webhook.id}/test`,
    );
  }
  if (!receivesDeliveries(webhook.status, webhook.failureKind)) {
    const state = webhook.status === 'disabled' ? 'is disabled' : 'failed: its endpoint answered 410 Gone';
    throw new DomainError('conflict', `webhook ${webhook.id} ${state}; enable it before retrying a delivery`);
  }
  if (!event)
    throw new DomainError('not_found', `event ${original.eventId} of delivery ${deliveryId} no longer exists`);
  const newDeliveryId = newId(ID_PREFIXES.delivery);
  const delivery = pendingDelivery(
    {
      id: event.id,
      merchantId: owner.merchantId,
      environment: owner.environment,
      type: event.event,
      objectId: target.objectId,
    },
    webhook.id,
    {
      id: newDeliveryId,
      workflowId: webhookRetryWorkflowId(event.id, webhook.id, newDeliveryId),
      retryOf: original.id,
    },
    new Date(),
  );
  await startDelivery(dispatchDeps(deps), delivery);
  // The delivery as created: pending, its first attempt under way (the log shows it once made).
  return toDeliveryView({ ...delivery, attempts: [] });
}
