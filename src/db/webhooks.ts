/**
 * Repository of webhook endpoints (docs/webhooks.md#endpoints), their deliveries and attempts
 * (docs/webhooks.md#retries). Every query is scoped
 * to one merchant and environment (docs/api.md#merchants-and-environments) except the lookups by id the delivery
 * activities make.
 * Writes of the delivery workflow are idempotent: an attempt is one row per attempt number.
 */
import type { Knex } from 'knex';
import type { Environment } from '../domain/environment';
import {
  deliveryStatusAfter,
  endpointFailureReason,
  endpointTransition,
  MAX_WEBHOOKS_PER_SCOPE,
  type AttemptRecord,
  type DeliveryRecord,
  type DeliveryStatus,
  type DeliveryWithAttempts,
  type RecordedAttempt,
  type WebhookFailureKind,
  type WebhookRecord,
  type WebhookStatus,
} from '../domain/webhooks';
import { toEventRecord, type EventRecord, type EventRow, type Scope } from './events';
import { iso, isoOrNull, type Db } from './knex';
import { numberedNewestFirstPage } from './numbered-pages';
import { NEWEST_FIRST } from './cursor-pages';
import { findById, scopeColumns } from './scoped-rows';
import { insertEventOnce, type EventInput } from './payments';
import { subscribedWebhookIdsQuery } from './webhook-subscribers';
import {
  askTurnCall,
  giveTurnCall,
  turnAnswer,
  type TurnAnswer,
  type TurnRelease,
  type TurnRequest,
} from './webhook-turns';

/** A webhook's row: the record's columns of the same name, and the others under their column names. */
interface WebhookRow extends Pick<
  WebhookRecord,
  'id' | 'environment' | 'url' | 'events' | 'status' | 'description' | 'secret'
> {
  merchant_id: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  failure_kind: WebhookFailureKind | null;
  failure_reason: string | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

function fromWebhookRow(row: WebhookRow): WebhookRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    environment: row.environment,
    url: row.url,
    events: row.events,
    status: row.status,
    description: row.description,
    secret: row.secret,
    previousSecret: row.previous_secret ?? null,
    previousSecretExpiresAt: isoOrNull(row.previous_secret_expires_at),
    failureKind: row.failure_kind ?? null,
    failureReason: row.failure_reason ?? null,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    deletedAt: isoOrNull(row.deleted_at),
  };
}

function liveWebhooks(db: Db, scope: Scope) {
  return db<WebhookRow>('webhooks').where(scopeColumns(scope)).whereNull('deleted_at');
}

/**
 * Inserts a webhook and its `webhook.created` event in one transaction, unless the scope already has
 * {@link MAX_WEBHOOKS_PER_SCOPE} webhooks (docs/webhooks.md#endpoints). Concurrent creations of one scope are
 * serialised by
 * a transaction-scoped advisory lock, so the limit holds under races.
 * @returns false when the limit is reached (nothing is written)
 */
export async function insertWebhookWithEvent(db: Db, webhook: WebhookRecord, event: EventInput): Promise<boolean> {
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [
      `webhooks:${webhook.merchantId}:${webhook.environment}`,
    ]);
    const [{ count }] = (await liveWebhooks(trx, webhook).count('id as count')) as unknown as [
      { count: string | number },
    ];
    if (Number(count) >= MAX_WEBHOOKS_PER_SCOPE) return false;
    await trx('webhooks').insert({
      id: webhook.id,
      merchant_id: webhook.merchantId,
      environment: webhook.environment,
      url: webhook.url,
      events: JSON.stringify(webhook.events),
      status: webhook.status,
      description: webhook.description,
      secret: webhook.secret,
      created_at: new Date(webhook.createdAt),
      updated_at: new Date(webhook.updatedAt),
    });
    await insertEventOnce(trx, event);
    return true;
  });
}

/** The scope's webhooks that are not deleted, newest first. */
export async function listWebhooks(db: Db, scope: Scope): Promise<WebhookRecord[]> {
  const rows = await liveWebhooks(db, scope).orderBy(NEWEST_FIRST);
  return rows.map(fromWebhookRow);
}

/** The scope's webhook `id` unless deleted (docs/api.md#merchants-and-environments: foreign ids are not found). */
export async function findWebhook(db: Db, scope: Scope, id: string): Promise<WebhookRecord | undefined> {
  const row = await liveWebhooks(db, scope).where({ id }).first();
  return row ? fromWebhookRow(row as WebhookRow) : undefined;
}

/** A webhook by id alone, deleted or not (the delivery activity, which got the id from its own records). */
export async function findWebhookById(db: Db, id: string): Promise<WebhookRecord | undefined> {
  return findById(db, 'webhooks', id, fromWebhookRow);
}

/**
 * What `PUT` may change (docs/webhooks.md#endpoints); absent fields stay. A new `status` clears the failure's kind and
 * reason.
 */
export interface WebhookPatch {
  url?: string;
  events?: string[];
  status?: WebhookStatus;
  description?: string | null;
}

/**
 * Changes the scope's webhook `id` unless deleted.
 * @returns the webhook after the change, or undefined when there is none
 */
export async function updateWebhook(
  db: Db,
  scope: Scope,
  id: string,
  patch: WebhookPatch,
  now: Date,
): Promise<WebhookRecord | undefined> {
  const changes: Record<string, unknown> = { updated_at: now };
  if (patch.url !== undefined) changes.url = patch.url;
  if (patch.events !== undefined) changes.events = JSON.stringify(patch.events);
  if (patch.status !== undefined)
    Object.assign(changes, { status: patch.status, failure_kind: null, failure_reason: null });
  if (patch.description !== undefined) changes.description = patch.description;
  const [row] = await liveWebhooks(db, scope).where({ id }).update(changes).returning('*');
  return row ? fromWebhookRow(row as WebhookRow) : undefined;
}

/**
 * Rotates the scope's webhook `id` to `secret` in one statement: the current secret becomes the
 * previous one, valid until `now + overlapMs`; a previous secret still in its overlap is dropped
 * (docs/webhooks.md#secret-rotation).
 * @param overlapMs how long the replaced secret still signs, in milliseconds
 * @returns the webhook after the rotation, or undefined when there is none
 */
export async function rotateWebhookSecret(
  db: Db,
  scope: Scope,
  id: string,
  secret: string,
  now: Date,
  overlapMs: number,
): Promise<WebhookRecord | undefined> {
  const [row] = await liveWebhooks(db, scope)
    .where({ id })
    .update({
      previous_secret: db.ref('secret'),
      previous_secret_expires_at: new Date(now.getTime() + overlapMs),
      secret,
      updated_at: now,
    })
    .returning('*');
  return row ? fromWebhookRow(row as WebhookRow) : undefined;
}

/** Marks the scope's webhook deleted. @returns false when there is none */
export async function deleteWebhook(db: Db, scope: Scope, id: string, now: Date): Promise<boolean> {
  const updated = await liveWebhooks(db, scope).where({ id }).update({ deleted_at: now, updated_at: now });
  return updated === 1;
}

/**
 * Ids of the scope's webhooks that take event `type` now: subscribed, not deleted, status enabled
 * or failed (docs/payments.md#events; disabled ones get nothing, docs/webhooks.md#retries).
 */
export async function findSubscribedWebhookIds(db: Db, scope: Scope, type: string): Promise<string[]> {
  return subscribedWebhookIdsQuery(db, scope, type).pluck('id');
}

/** A delivery's row in `webhook_deliveries` (timestamps `timestamptz`, read back as `Date`). */
export interface DeliveryRow {
  id: string;
  webhook_id: string;
  merchant_id: string;
  environment: Environment;
  event_id: string;
  event_type: string;
  workflow_id: string | null;
  retry_of: string | null;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

interface AttemptRow {
  delivery_id: string;
  attempt: number;
  attempted_at: Date;
  status_code: number | null;
  response_body: string | null;
  duration_ms: number;
  error: string | null;
}

/** The columns that say which delivery a row is: its id, webhook, merchant, environment and event. */
export type DeliveryKeyColumns = Pick<
  DeliveryRow,
  'id' | 'webhook_id' | 'merchant_id' | 'environment' | 'event_id' | 'event_type'
>;

/** Which delivery `row` is, in the names (and the order) every delivery answer of db/ starts with. */
export function deliveryKeysOf(row: DeliveryKeyColumns) {
  return {
    id: row.id,
    webhookId: row.webhook_id,
    merchantId: row.merchant_id,
    environment: row.environment,
    eventId: row.event_id,
    eventType: row.event_type,
  };
}

function fromDeliveryRow(row: DeliveryRow): DeliveryRecord {
  return {
    ...deliveryKeysOf(row),
    workflowId: row.workflow_id,
    retryOf: row.retry_of,
    status: row.status,
    attemptCount: row.attempt_count,
    nextAttemptAt: isoOrNull(row.next_attempt_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

function fromAttemptRow(row: AttemptRow): RecordedAttempt {
  return {
    attempt: row.attempt,
    attemptedAt: iso(row.attempted_at),
    outcome: {
      statusCode: row.status_code,
      responseBody: row.response_body,
      durationMs: row.duration_ms,
      error: row.error,
    },
  };
}

function deliveryRow(delivery: DeliveryRecord) {
  return {
    id: delivery.id,
    webhook_id: delivery.webhookId,
    merchant_id: delivery.merchantId,
    environment: delivery.environment,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    workflow_id: delivery.workflowId,
    retry_of: delivery.retryOf,
    status: delivery.status,
    attempt_count: delivery.attemptCount,
    next_attempt_at: delivery.nextAttemptAt ? new Date(delivery.nextAttemptAt) : null,
    created_at: new Date(delivery.createdAt),
    updated_at: new Date(delivery.updatedAt),
  };
}

/** Inserts a delivery unless its (derived) id exists, so a retried start writes it once. */
export async function insertDelivery(db: Db, delivery: DeliveryRecord): Promise<void> {
  await db('webhook_deliveries').insert(deliveryRow(delivery)).onConflict('id').ignore();
}

/** A delivery with its endpoint and its event, as read in one query. */
export interface DeliveryTarget {
  delivery: DeliveryRecord;
  /** The endpoint as it is now, deleted ones included; undefined when its row is gone. */
  webhook: WebhookRecord | undefined;
  /** The event delivered; undefined while it is not readable. */
  event: EventRecord | undefined;
  /** The payment or payout the event is about (`events.object_id`); null when it names none or is not readable. */
  objectId: string | null;
}

/**
 * Delivery `id` with its webhook and event, in one query (each attempt and each retry reads all
 * three). Row values of the joined tables come back as JSON; timestamps there are ISO strings.
 */
export async function findDeliveryTarget(db: Db, id: string): Promise<DeliveryTarget | undefined> {
  return (await readDeliveryTarget(db, id))?.target;
}

/** The columns of {@link readDeliveryTarget}'s row beside the delivery's. */
type TargetRow = DeliveryRow & {
  webhook_row: WebhookRow | null;
  event_row: (EventRow & { object_id?: string | null }) | null;
  turn?: Partial<TurnAnswer> | null;
};

/** The delivery with its webhook and event, and the value of `extra` (column `turn`) when given. */
async function readDeliveryTarget(
  db: Db,
  id: string,
  extra?: Knex.Raw,
): Promise<{ target: DeliveryTarget; turn: TurnAnswer } | undefined> {
  const columns = ['d.*', db.raw('to_jsonb(w) as webhook_row'), db.raw('to_jsonb(e) as event_row')];
  if (extra) columns.push(db.raw('? as turn', [extra]));
  const row = (await db('webhook_deliveries as d')
    .leftJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .leftJoin('events as e', (join) =>
      join.on('e.id', 'd.event_id').andOn('e.merchant_id', 'd.merchant_id').andOn('e.environment', 'd.environment'),
    )
    .where('d.id', id)
    .first(columns)) as TargetRow | undefined;
  if (!row) return undefined;
  const { webhook_row: webhook, event_row: event, turn, ...delivery } = row;
  return {
    target: {
      delivery: fromDeliveryRow(delivery),
      webhook: webhook ? fromWebhookRow(webhook) : undefined,
      event: event ? toEventRecord(event) : undefined,
      objectId: event?.object_id ?? null,
    },
    turn: turnAnswer(turn ?? null),
  };
}

/**
 * {@link findDeliveryTarget} and, in the same statement, a turn at the endpoint for the delivery
 * (`takeEndpointTurn` of db/webhook-turns.ts, docs/webhooks.md#isolation), asked for when the webhook is there and
 * the event is readable; the caller gives back a turn it does not use (an endpoint deleted, disabled or gone). One
 * round trip and one commit where an attempt took two.
 * @param turn the bounds and the workflow told when a turn comes free (the delivery's own `workflow_id` first)
 * @returns undefined for an unknown delivery; else the target and the turn's answer (not taken, nobody to tell,
 *   when no turn was asked for)
 */
export async function findDeliveryTargetTakingTurn(
  db: Db,
  id: string,
  turn: Pick<TurnRequest, 'workflowId' | 'limit' | 'merchantLimit'>,
): Promise<{ target: DeliveryTarget; turn: TurnAnswer } | undefined> {
  const ask = askTurnCall(db, {
    webhookId: db.raw('w.id'),
    merchantId: db.raw('w.merchant_id'),
    deliveryId: db.raw('d.id'),
    workflowId: db.raw('coalesce(d.workflow_id, ?)', [turn.workflowId]),
    limit: turn.limit,
    merchantLimit: turn.merchantLimit,
  });
  // Only what the call itself needs: the endpoint to ask at and the event to send. Whether the endpoint gets deliveries
  // is decided once, by `receivesDeliveries` in the activity, which gives back a turn it will not use.
  return readDeliveryTarget(db, id, db.raw('case when w.id is not null and e.id is not null then ? end', [ask]));
}

/** The attempts of these deliveries, by delivery id, each list in attempt order. */
async function attemptsOf(db: Db, deliveryIds: string[]): Promise<Map<string, RecordedAttempt[]>> {
  const byDelivery = new Map<string, RecordedAttempt[]>(deliveryIds.map((id) => [id, []]));
  if (deliveryIds.length === 0) return byDelivery;
  const rows: AttemptRow[] = await db('webhook_attempts')
    .whereIn('delivery_id', deliveryIds)
    .orderBy([{ column: 'delivery_id' }, { column: 'attempt' }]);
  for (const row of rows) byDelivery.get(row.delivery_id)?.push(fromAttemptRow(row));
  return byDelivery;
}

/**
 * One page of webhook `webhookId`'s deliveries with their attempts, newest first (ties by id).
 * @returns the page and the number of the webhook's deliveries
 */
export async function listDeliveries(
  db: Db,
  scope: Scope,
  webhookId: string,
  page: { page: number; limit: number },
): Promise<{ deliveries: DeliveryWithAttempts[]; total: number }> {
  const base = db('webhook_deliveries').where({ webhook_id: webhookId, ...scopeColumns(scope) });
  const { rows, total } = await numberedNewestFirstPage<DeliveryRow>(base, page);
  const attempts = await attemptsOf(
    db,
    rows.map((row) => row.id),
  );
  return {
    deliveries: rows.map((row) => ({ ...fromDeliveryRow(row), attempts: attempts.get(row.id) ?? [] })),
    total,
  };
}

/**
 * Every delivery of events `eventIds` of this merchant and environment (docs/api.md#merchants-and-environments) with
 * their attempts, oldest first (the payment timeline of the dashboard, README.md#dashboard). Both are read in one
 * repeatable-read transaction, so a delivery and its attempts are of the same moment: an attempt is never shown
 * beside the status its delivery had before it (they are written by one statement).
 */
export async function listDeliveriesOfEvents(
  db: Db,
  scope: Scope,
  eventIds: string[],
): Promise<DeliveryWithAttempts[]> {
  if (eventIds.length === 0) return [];
  return db.transaction(
    async (trx) => {
      const rows: DeliveryRow[] = await trx('webhook_deliveries')
        .whereIn('event_id', eventIds)
        .where(scopeColumns(scope))
        .orderBy([{ column: 'created_at' }, { column: 'id' }]);
      const attempts = await attemptsOf(
        trx,
        rows.map((row) => row.id),
      );
      return rows.map((row) => ({ ...fromDeliveryRow(row), attempts: attempts.get(row.id) ?? [] }));
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
}

/** What is stored of an attempt. */
type AttemptFields = Pick<AttemptRecord, 'deliveryId' | 'attempt' | 'attemptedAt' | 'outcome'>;

function attemptRow(record: AttemptFields) {
  return {
    delivery_id: record.deliveryId,
    attempt: record.attempt,
    attempted_at: new Date(record.attemptedAt),
    status_code: record.outcome.statusCode,
    response_body: record.outcome.responseBody,
    duration_ms: Math.max(0, Math.round(record.outcome.durationMs)),
    error: record.outcome.error,
  };
}

/**
 * Records an attempt, the delivery's status after it and the endpoint's (docs/webhooks.md#retries: `failed` after the
 * fifth failure, `enabled` again after a success; `failed` for good on 410, docs/webhooks.md), with
 * the failure's kind and reason, in one statement: the endpoint's change is a compare-and-set
 * ({@link endpointTransition}), so concurrent deliveries to one endpoint cannot undo each other.
 * Idempotent: a repeated call finds the attempt written and applies the same statuses.
 * @returns the endpoint's status after the attempt (undefined when the webhook row is gone)
 * @throws Error when the delivery does not exist
 */
export async function recordAttempt(db: Db, record: AttemptRecord, now: Date): Promise<WebhookStatus | undefined> {
  return (await writeAttempt(db, record, now)).status;
}

/**
 * {@link recordAttempt} and, in the same statement, the attempt's turn at its endpoint given back
 * (`releaseEndpointTurn` of db/webhook-turns.ts, docs/webhooks.md#isolation): one round trip and one commit where an
 * attempt took two. When the statement fails, neither happened.
 * @returns the endpoint's status after the attempt and the workflow ids of the waiters to tell
 * @throws Error when the delivery does not exist (the turn was given back)
 */
export async function recordAttemptGivingTurn(
  db: Db,
  record: AttemptRecord,
  now: Date,
  turn: TurnRelease,
): Promise<{ status: WebhookStatus | undefined; tell: string[] }> {
  return writeAttempt(db, record, now, giveTurnCall(db, turn));
}

/** {@link recordAttempt}'s statement, with the value of `extra` (a `text[]`, column `tell`) when given. */
async function writeAttempt(
  db: Db,
  record: AttemptRecord,
  now: Date,
  extra?: Knex.Raw,
): Promise<{ status: WebhookStatus | undefined; tell: string[] }> {
  const transition = endpointTransition(record.decision);
  let statement = db
    .with('a', db('webhook_attempts').insert(attemptRow(record)).onConflict(['delivery_id', 'attempt']).ignore())
    .with(
      'd',
      db('webhook_deliveries')
        .where({ id: record.deliveryId })
        .update({
          status: deliveryStatusAfter(record.decision),
          attempt_count: db.raw('greatest(attempt_count, ?)', [record.attempt]),
          next_attempt_at: record.nextAttemptAt ? new Date(record.nextAttemptAt) : null,
          updated_at: now,
        })
        .returning('webhook_id'),
    );
  let changedStatus = db.raw('null::text');
  if (transition) {
    const { decision } = record;
    const reason =
      decision.kind === 'failed' && transition.to.status === 'failed' ? endpointFailureReason(decision, record) : null;
    statement = statement.with(
      'w',
      db('webhooks')
        .whereIn('id', db.select('webhook_id').from('d'))
        .where((states) => {
          for (const from of transition.from) {
            states.orWhere((state) => {
              state.where('status', from.status);
              if (from.failureKind === null) state.whereNull('failure_kind');
              else state.where('failure_kind', from.failureKind);
            });
          }
        })
        .update({
          status: transition.to.status,
          failure_kind: transition.to.failureKind,
          failure_reason: reason,
          updated_at: now,
        })
        .returning('status'),
    );
    changedStatus = db.raw('(select status from w)');
  }
  const [row] = (await statement.select(
    db.raw('exists(select 1 from d) as found'),
    db.raw('coalesce(?, (select status from webhooks where id in (select webhook_id from d))) as status', [
      changedStatus,
    ]),
    extra ? db.raw('? as tell', [extra]) : db.raw("'{}'::text[] as tell"),
  )) as { found: boolean; status: WebhookStatus | null; tell: string[] | null }[];
  if (!row?.found) throw new Error(`delivery ${record.deliveryId} does not exist`);
  return { status: row.status ?? undefined, tell: row.tell ?? [] };
}

/** Ends a delivery whose endpoint was disabled or deleted before it finished (no attempt is made). */
export async function cancelDelivery(db: Db, deliveryId: string, now: Date): Promise<void> {
  await db('webhook_deliveries')
    .where({ id: deliveryId, status: 'pending' })
    .update({ status: 'cancelled', next_attempt_at: null, updated_at: now });
}

/** Records a test delivery (docs/webhooks.md#test) and its single attempt, in one transaction. */
export async function insertTestDelivery(db: Db, delivery: DeliveryRecord, attempt: AttemptFields): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('webhook_deliveries').insert(deliveryRow(delivery));
    await trx('webhook_attempts').insert(attemptRow(attempt));
  });
}
