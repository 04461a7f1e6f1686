/**
 * Repository of the payments read model (docs/payments.md#payment-record) and their events (docs/payments.md#events).
 * The payment workflow is the
 * source of truth; these writes are idempotent so a retried activity changes nothing twice.
 */
import { PROVIDER_KINDS } from '../domain/catalogue';
import type { Environment } from '../domain/environment';
import type { FailureCode, PaymentSnapshot, PaymentStatus, PendingReason } from '../domain/payment';
import type { RefundRecord } from '../domain/refund';
import { countryOfNumber } from '../domain/phone';
import type { AuditEntry } from '../domain/audit-log';
import { auditRow } from './audit-log';
import { iso, storableJson, type Db } from './knex';
import type { EventRecord } from './events';
import { collectionCtes, postRefundJournals, type CollectionFacts } from './ledger';
import { paymentCollectedCause } from '../domain/ledger';
import type { Knex } from 'knex';
import { subscribedWebhookIdsQuery } from './webhook-subscribers';
import type { ExceptionDraft } from '../domain/reconciliation';
import { exceptionIdOf } from './reconciliation';
import { afterPosition, listPositionInScope, NEWEST_FIRST, type ListPosition } from './cursor-pages';
import { findInScope, scopeColumns } from './scoped-rows';
import { providerOutcomeInsert, recordProviderOutcome, type ProviderOutcomeInput } from './provider-outcomes';

/** An event to write once (docs/payments.md#events): `id` is derived from the workflow and step. */
export interface EventInput {
  id: string;
  merchantId: string;
  environment: Environment;
  type: string;
  objectId: string | null;
  data: unknown;
  createdAt: string;
}

/** The columns a write of the payment's state sets (status, refunds, provider fields); `version` orders the writes. */
export interface PaymentStatusWrite {
  paymentId: string;
  status: PaymentStatus;
  amountRefunded: number;
  failureCode: FailureCode | null;
  failureMessage: string | null;
  cancellationReason: string | null;
  providerReference: string | null;
  /** The provider's receipt number (docs/payments.md#payment-record); a write never clears one the row holds. */
  providerReceiptNumber: string | null;
  nextAction: PaymentSnapshot['nextAction'];
  reconciledAt: string | null;
  lateAnswer: PaymentSnapshot['lateAnswer'];
  /** Why the open payment waits and until when (docs/payments.md#decision-time); null once final. */
  pendingReason: PendingReason | null;
  decisionExpectedBy: string | null;
  updatedAt: string;
  version: number;
  /**
   * The payment's facts its collection journal is built from (docs/ledger.md#postings), when the table's row ordered
   * the collection posted (`post` effect `payment:{id}:completed`): the write posts it in the same statement, and
   * refuses to when the row's facts differ.
   */
  collection: CollectionFacts | null;
  /**
   * A reconciliation exception written with the status, once per key: a late success booked without a refund
   * (docs/payments.md#late-successes), or a checkout session's duplicate payment whose refund failed
   * (docs/checkout.md#states).
   */
  exception?: { provider: string; environment: Environment; draft: ExceptionDraft };
  /**
   * The collection's decided attempt, written in the same statement when the table's row declared `record_outcome`
   * (docs/availability.md#classification): once per payment, however often the write runs.
   */
  outcome?: ProviderOutcomeInput;
}

/**
 * What `payment`'s collection journal is built from when `post`, the causes the table's row declared, orders it; null
 * when it orders nothing. Nothing is derived from the status: the causes decide.
 * @throws Error when `post` holds a cause a payment's status write does not post (another payment's, a refund's)
 */
function collectionOf(payment: PaymentSnapshot, post: readonly string[]): CollectionFacts | null {
  const collected = paymentCollectedCause(payment.id);
  const other = post.find((cause) => cause !== collected);
  if (other) throw new Error(`payment ${payment.id}: a status write does not post ${other}`);
  if (post.length === 0) return null;
  return {
    id: payment.id,
    merchantId: payment.merchantId,
    environment: payment.environment,
    currency: payment.currency,
    provider: payment.provider,
    amount: payment.amount,
    fee: payment.feeAmount,
    country: countryOfNumber(payment.customerPhone) ?? null,
  };
}

/**
 * SQL: the payment row `facts.id` exists and holds `facts` (the only row a collection may be posted from). Amounts and
 * parties never change after a payment is created, so a difference means the write was built from another payment.
 */
function rowHolds(db: Db, facts: CollectionFacts): Knex.Raw {
  return db.raw(
    `coalesce((select merchant_id = ? and environment = ? and currency = ? and provider = ? and amount = ?::bigint
                      and fee_amount = ?::bigint
                 from payments where id = ?), false)`,
    [facts.merchantId, facts.environment, facts.currency, facts.provider, facts.amount, facts.fee, facts.id],
  );
}

/**
 * The write that brings the payment's row to `payment`'s state, posting the journals `post` orders: the `post` effects
 * of the table's row it carries out (`WriteOrders.post`; none for a refund's write, whose journals are the refund's).
 * @throws Error when `post` orders a journal a payment's status write does not post
 */
export function statusWriteOf(payment: PaymentSnapshot, post: readonly string[]): PaymentStatusWrite {
  return {
    paymentId: payment.id,
    status: payment.status,
    amountRefunded: payment.amountRefunded,
    failureCode: payment.failureCode,
    failureMessage: payment.failureMessage,
    cancellationReason: payment.cancellationReason ?? null,
    providerReference: payment.providerReference,
    providerReceiptNumber: payment.providerReceiptNumber ?? null,
    nextAction: payment.nextAction,
    reconciledAt: payment.reconciledAt ?? null,
    lateAnswer: payment.lateAnswer ?? null,
    pendingReason: payment.pendingReason ?? null,
    decisionExpectedBy: payment.decisionExpectedBy ?? null,
    updatedAt: payment.updatedAt,
    version: payment.version ?? 0,
    collection: collectionOf(payment, post),
  };
}

interface PaymentRow {
  id: string;
  merchant_id: string;
  environment: Environment;
  family: 'generic' | 'merchant';
  amount: number;
  amount_refunded: number;
  currency: string;
  status: PaymentStatus;
  payment_method: string;
  provider: string;
  description: string | null;
  customer_phone: string | null;
  customer_email: string | null;
  customer_wallet: string | null;
  cancellation_reason: string | null;
  metadata: Record<string, string>;
  fee_amount: number;
  failure_code: string | null;
  failure_message: string | null;
  provider_reference: string | null;
  provider_receipt_number: string | null;
  next_action: PaymentSnapshot['nextAction'];
  reconciled_at: Date | null;
  late_provider_answer: PaymentSnapshot['lateAnswer'];
  pending_reason: PendingReason | null;
  decision_expected_by: Date | null;
  version: number;
  checkout_session?: string | null;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
}

/** A payment row as read: with what its pending refunds hold (minor units), see {@link paymentColumns}. */
interface PaymentReadRow extends PaymentRow {
  amount_refund_pending?: number;
}

/**
 * The columns a payment is read with: the row, and `amount_refund_pending`, the sum of its refunds
 * still `pending` (minor units; docs/payments.md#cancel-and-refund). Refunds are written `pending`
 * before their provider is asked and settled in one transaction with the payment, so the sum is
 * exactly what is reserved.
 */
function paymentColumns(db: Db) {
  return [
    'payments.*',
    db.raw(
      "(select coalesce(sum(r.amount), 0)::bigint from refunds r where r.payment_id = payments.id and r.status = 'pending') as amount_refund_pending",
    ),
  ];
}

function toRow(payment: PaymentSnapshot): PaymentRow {
  return {
    id: payment.id,
    merchant_id: payment.merchantId,
    environment: payment.environment,
    family: payment.family,
    amount: payment.amount,
    amount_refunded: payment.amountRefunded,
    currency: payment.currency,
    status: payment.status,
    payment_method: payment.paymentMethod,
    provider: payment.provider,
    description: payment.description,
    customer_phone: payment.customerPhone,
    customer_email: payment.customerEmail,
    customer_wallet: payment.walletId ?? null,
    cancellation_reason: payment.cancellationReason ?? null,
    metadata: payment.metadata,
    fee_amount: payment.feeAmount,
    failure_code: payment.failureCode,
    failure_message: payment.failureMessage,
    provider_reference: payment.providerReference,
    provider_receipt_number: payment.providerReceiptNumber ?? null,
    next_action: payment.nextAction,
    reconciled_at: payment.reconciledAt ? new Date(payment.reconciledAt) : null,
    late_provider_answer: payment.lateAnswer ?? null,
    pending_reason: payment.pendingReason ?? null,
    decision_expected_by: payment.decisionExpectedBy ? new Date(payment.decisionExpectedBy) : null,
    version: payment.version ?? 0,
    ...(payment.checkoutSession ? { checkout_session: payment.checkoutSession } : {}),
    expires_at: new Date(payment.expiresAt),
    created_at: new Date(payment.createdAt),
    updated_at: new Date(payment.updatedAt),
  };
}

function fromRow(row: PaymentReadRow): PaymentSnapshot {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    environment: row.environment,
    family: row.family,
    amount: row.amount,
    amountRefunded: row.amount_refunded,
    amountRefundPending: row.amount_refund_pending ?? 0,
    currency: row.currency as PaymentSnapshot['currency'],
    status: row.status,
    paymentMethod: row.payment_method as PaymentSnapshot['paymentMethod'],
    provider: row.provider as PaymentSnapshot['provider'],
    kind: PROVIDER_KINDS[row.provider as PaymentSnapshot['provider']],
    description: row.description,
    customerPhone: row.customer_phone,
    customerEmail: row.customer_email,
    walletId: row.customer_wallet,
    cancellationReason: row.cancellation_reason,
    metadata: row.metadata,
    feeAmount: row.fee_amount,
    failureCode: row.failure_code as FailureCode | null,
    failureMessage: row.failure_message,
    providerReference: row.provider_reference,
    providerReceiptNumber: row.provider_receipt_number ?? null,
    nextAction: row.next_action,
    reconciledAt: row.reconciled_at ? iso(row.reconciled_at) : null,
    lateAnswer: row.late_provider_answer,
    pendingReason: row.pending_reason ?? null,
    decisionExpectedBy: row.decision_expected_by ? iso(row.decision_expected_by) : null,
    version: row.version,
    ...(row.checkout_session ? { checkoutSession: row.checkout_session } : {}),
    expiresAt: iso(row.expires_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

function eventRow(event: EventInput) {
  return {
    id: event.id,
    merchant_id: event.merchantId,
    environment: event.environment,
    type: event.type,
    object_id: event.objectId,
    data: storableJson(event.data),
    created_at: new Date(event.createdAt),
  };
}

/** What a payment write did, and who is told of its event. */
export interface PaymentWrite {
  /** True when this call inserted the payment row (false: it existed). */
  inserted: boolean;
  /** Ids of the webhooks subscribed to the event written, in id order (docs/payments.md#events). */
  webhookIds: string[];
}

/**
 * The subscribers of `event`, as one column `webhook_ids` (text[]) of the statement that writes it,
 * so a write and the lookup that follows it (docs/payments.md#events) cost one round trip.
 */
function subscribersColumn(db: Db, event: EventInput) {
  return db.raw('array(?) as webhook_ids', [subscribedWebhookIdsQuery(db, event, event.type)]);
}

/**
 * Inserts the payment and its `payment.created` event unless they exist (the workflow's first
 * activity, the row's only writer besides its later status writes; a retry changes nothing), and the API's
 * audit entry (docs/live-access.md#audit-log) when given. One statement: its CTEs commit together or not at all.
 * Posts nothing: a payment is created `pending`, and only the rows of its table post (docs/ledger.md#postings).
 * @returns whether this call inserted the payment, and the event's subscribers
 * @throws Error when `payment` is not `pending` (nothing is written)
 */
export async function insertPaymentWithCreatedEvent(
  db: Db,
  payment: PaymentSnapshot,
  event: EventInput,
  activity?: AuditEntry,
): Promise<PaymentWrite> {
  return insertPaymentStatement(db, payment, event, activity);
}

/** The statement of {@link insertPaymentWithCreatedEvent}. */
async function insertPaymentStatement(
  db: Db,
  payment: PaymentSnapshot,
  event: EventInput,
  activity?: AuditEntry,
): Promise<PaymentWrite> {
  if (payment.status !== 'pending')
    throw new Error(`payment ${payment.id}: a payment is created pending, not ${payment.status}`);
  let statement = db
    .with('p', db('payments').insert(toRow(payment)).onConflict('id').ignore().returning('id'))
    .with('e', db('events').insert(eventRow(event)).onConflict('id').ignore());
  if (activity)
    statement = statement.with('a', db('activity_log').insert(auditRow(activity)).onConflict('id').ignore());
  const [row] = (await statement.select(
    db.raw('(select count(*)::int from p) as inserted'),
    subscribersColumn(db, event),
  )) as { inserted: number; webhook_ids: string[] }[];
  if (!row) throw new Error(`payment ${payment.id}: the insert answered nothing`);
  return { inserted: row.inserted === 1, webhookIds: row.webhook_ids ?? [] };
}

/** The row columns of `write`. */
function statusColumns(write: PaymentStatusWrite) {
  return {
    status: write.status,
    amount_refunded: write.amountRefunded,
    failure_code: write.failureCode,
    failure_message: write.failureMessage,
    cancellation_reason: write.cancellationReason,
    provider_reference: write.providerReference,
    ...(write.providerReceiptNumber === null ? {} : { provider_receipt_number: write.providerReceiptNumber }),
    next_action: write.nextAction === null ? null : storableJson(write.nextAction),
    reconciled_at: write.reconciledAt ? new Date(write.reconciledAt) : null,
    late_provider_answer: write.lateAnswer ? storableJson(write.lateAnswer) : null,
    pending_reason: write.pendingReason,
    decision_expected_by: write.decisionExpectedBy ? new Date(write.decisionExpectedBy) : null,
    updated_at: new Date(write.updatedAt),
    version: write.version,
  };
}

/**
 * Applies `write` inside `trx` unless the row already holds a newer version (writes of one
 * workflow may run concurrently and land out of order), with its exception, once per key.
 * @throws Error when the payment row does not exist (a retryable fault for the activity)
 */
async function applyStatusWrite(trx: Db, write: PaymentStatusWrite): Promise<void> {
  const updated = await trx('payments')
    .where({ id: write.paymentId })
    .where('version', '<', write.version)
    .update(statusColumns(write));
  if (updated === 0) {
    const exists = await trx('payments').where({ id: write.paymentId }).first('id');
    if (!exists) throw new Error(`payment ${write.paymentId} is not in the read model yet`);
  }
  if (write.exception) await exceptionInsert(trx, write.exception, write.updatedAt, trx.raw('true'));
}

/** SQL: inserts `exception` (run by no reconciliation run) when `holds`, unless its key is recorded. */
function exceptionInsert(db: Db, exception: NonNullable<PaymentStatusWrite['exception']>, at: string, holds: Knex.Raw) {
  const { provider, environment, draft } = exception;
  return db.raw(
    `insert into reconciliation_exceptions (id, run_id, provider, environment, kind, key, object_id, provider_reference,
       expected_amount, found_amount, currency, evidence, created_at)
     select ?, null, ?, ?, ?, ?, ?, ?, ?::bigint, ?::bigint, ?, ?::jsonb, ?::timestamptz where ?
     on conflict (provider, environment, key) do nothing`,
    [
      exceptionIdOf({ provider, environment }, draft.key),
      provider,
      environment,
      draft.kind,
      draft.key,
      draft.objectId,
      draft.providerReference,
      draft.expectedAmount,
      draft.foundAmount,
      draft.currency,
      JSON.stringify(draft.evidence),
      at,
      holds,
    ],
  );
}

/** Inserts an event unless its (derived) id exists (docs/payments.md#events). */
export async function insertEventOnce(db: Db, event: EventInput): Promise<void> {
  await db('events').insert(eventRow(event)).onConflict('id').ignore();
}

/**
 * Writes the payment's state, when given its event (docs/payments.md#events), and when the status is collected its
 * collection journal (docs/ledger.md#invariants), in one statement: they commit together or not at all. Idempotent:
 * the event id is derived from the step, the journal from its cause, and an older or repeated write changes nothing.
 * The event and the journal are written only when the payment row exists (CTEs see the snapshot the statement began
 * with).
 * @returns the event's subscribers (none without an event)
 * @throws Error when the payment row does not exist (a retryable fault for the activity), or holds other facts than
 *   the write's collection (nothing is written)
 */
export async function updatePaymentStatus(db: Db, write: PaymentStatusWrite, event?: EventInput): Promise<string[]> {
  const exists = db('payments').where({ id: write.paymentId }).select(db.raw('1'));
  // A collected status posts its collection in this statement, only from a row that holds the write's facts; without
  // such a row nothing at all is written (docs/ledger.md#invariants).
  const holds = write.collection ? rowHolds(db, write.collection) : db.raw('exists(?)', [exists]);
  const update = db('payments').where({ id: write.paymentId }).where('version', '<', write.version);
  if (write.collection) update.whereRaw('?', [holds]);
  let statement = db.with('u', update.update(statusColumns(write)));
  const columns = [db.raw('exists(?) as found', [exists]), db.raw('? as holds', [holds])];
  if (event) {
    const row = eventRow(event);
    statement = statement.with(
      'e',
      db.raw(
        `insert into events (id, merchant_id, environment, type, object_id, data, created_at)
         select ?, ?, ?, ?, ?, ?::jsonb, ?::timestamptz where ? on conflict (id) do nothing`,
        [row.id, row.merchant_id, row.environment, row.type, row.object_id, row.data, row.created_at, holds],
      ),
    );
    columns.push(subscribersColumn(db, event));
  }
  if (write.collection)
    for (const [name, cte] of await collectionCtes(db, write.collection, new Date(write.updatedAt), holds))
      statement = statement.with(name, cte);
  if (write.exception) statement = statement.with('x', exceptionInsert(db, write.exception, write.updatedAt, holds));
  if (write.outcome) statement = statement.with('o', providerOutcomeInsert(db, write.outcome, holds));
  const [result] = (await statement.select(columns)) as { found: boolean; holds: boolean; webhook_ids?: string[] }[];
  if (!result?.found) throw new Error(`payment ${write.paymentId} is not in the read model yet`);
  if (!result.holds) throw new Error(`payment ${write.paymentId}: its row differs from the collection to post`);
  return result.webhook_ids ?? [];
}

/**
 * Writes a refund's outcome (inserting the refund when it is not there yet) with the payment it
 * changed, its event and the journals `post` orders, in one transaction (docs/payments.md#cancel-and-refund,
 * docs/payments.md#events, docs/ledger.md#postings): the refund row, the payment's `amount_refunded`, the event and
 * the postings are never written apart. `post`: the `post` effects of the table's rows this write carries out (the
 * outcome's, and the acceptance's when the refund may not be written yet). `outcome`: the refund's decided attempt when
 * the table's row declared `record_outcome` (docs/availability.md#classification), recorded once per refund.
 * @throws Error when `post` orders a journal that is not this refund's or its payment's, or that its status
 *   contradicts (nothing is written)
 */
export async function updateRefundOutcome(
  db: Db,
  refund: RefundRecord,
  payment: PaymentStatusWrite,
  event: EventInput | undefined,
  post: readonly string[],
  outcome?: ProviderOutcomeInput,
): Promise<void> {
  await db.transaction(async (trx) => {
    // Inserted when missing: a refund whose first provider call never ran (its worker lost past the
    // call's schedule-to-close time-out) was written by no one before it was sent again (fault suite).
    await trx('refunds')
      .insert({
        ...refundRowOf(refund),
        provider_reference: refund.providerReference,
        failure_message: refund.failureMessage,
        completed_at: refund.completedAt ? new Date(refund.completedAt) : null,
      })
      .onConflict('id')
      .merge(['status', 'provider_reference', 'failure_message', 'completed_at']);
    await applyStatusWrite(trx, payment);
    if (event) await insertEventOnce(trx, event);
    await postRefundJournals(trx, refund, post);
    if (outcome) await recordProviderOutcome(trx, outcome);
  });
}

interface RefundRow {
  id: string;
  payment_id: string;
  merchant_id: string;
  environment: Environment;
  amount: number;
  currency: string;
  status: RefundRecord['status'];
  reason: string | null;
  provider_reference: string | null;
  failure_message: string | null;
  created_at: Date;
  completed_at: Date | null;
}

/** The columns a refund is created with: who it is, its amount (minor units), reason, status and creation time. */
function refundRowOf(refund: RefundRecord) {
  return {
    id: refund.id,
    payment_id: refund.paymentId,
    merchant_id: refund.merchantId,
    environment: refund.environment,
    amount: refund.amount,
    currency: refund.currency,
    status: refund.status,
    reason: refund.reason,
    created_at: new Date(refund.createdAt),
  };
}

function fromRefundRow(row: RefundRow): RefundRecord {
  return {
    id: row.id,
    paymentId: row.payment_id,
    merchantId: row.merchant_id,
    environment: row.environment,
    amount: Number(row.amount),
    currency: row.currency,
    status: row.status,
    reason: row.reason,
    providerReference: row.provider_reference,
    failureMessage: row.failure_message,
    createdAt: iso(row.created_at),
    completedAt: row.completed_at ? iso(row.completed_at) : null,
  };
}

/**
 * Inserts a pending refund unless one with its id exists (a retried activity, or a re-opened
 * workflow meeting a refund id an earlier run settled, changes nothing), with the journals `post` orders: the `post`
 * effects of the table's row that accepted it (its reservation; with a late success after a cancel, the collection
 * too), in the same transaction (docs/ledger.md#postings); each cause is posted once, so a retry changes nothing, and a
 * refund found settled already posts nothing.
 * @returns the refund as stored: this one, or the one that was there
 * @throws Error when `post` orders a journal that is not this refund's or its payment's (nothing is written)
 */
export async function insertRefund(db: Db, refund: RefundRecord, post: readonly string[]): Promise<RefundRecord> {
  return db.transaction(async (trx) => {
    const stored = await insertRefundRow(trx, refund);
    if (stored.status === 'pending') await postRefundJournals(trx, stored, post);
    return stored;
  });
}

/** The statements of {@link insertRefund}. */
async function insertRefundRow(db: Db, refund: RefundRecord): Promise<RefundRecord> {
  await db('refunds').insert(refundRowOf(refund)).onConflict('id').ignore();
  const row = await db<RefundRow>('refunds').where({ id: refund.id }).first();
  return row ? fromRefundRow(row) : refund;
}

/** The refund `id` of this merchant and environment, or undefined (docs/api.md#merchants-and-environments). */
export async function findRefund(
  db: Db,
  scope: { merchantId: string; environment: Environment },
  id: string,
): Promise<RefundRecord | undefined> {
  return findInScope(db, 'refunds', scope, id, fromRefundRow);
}

/**
 * Every refund of payment `paymentId` of this merchant and environment (docs/api.md#merchants-and-environments), oldest
 * first (dashboard timeline, README.md#dashboard).
 */
export async function listRefundsOfPayment(
  db: Db,
  scope: { merchantId: string; environment: Environment },
  paymentId: string,
): Promise<RefundRecord[]> {
  const rows = await db<RefundRow>('refunds')
    .where({ payment_id: paymentId, ...scopeColumns(scope) })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return rows.map(fromRefundRow);
}

/** The refunds of a payment not settled yet (status `pending`), oldest first. */
export async function findPendingRefunds(db: Db, paymentId: string): Promise<RefundRecord[]> {
  const rows = await db<RefundRow>('refunds')
    .where({ payment_id: paymentId, status: 'pending' })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return rows.map(fromRefundRow);
}

/**
 * The decided refunds (`completed` or `failed`) of payment `paymentId`, oldest first: what a re-opened run must not
 * take again when an Update of one reaches it (docs/payments.md#refunds-happen-once).
 */
export async function findDecidedRefunds(db: Db, paymentId: string): Promise<RefundRecord[]> {
  const rows = await db<RefundRow>('refunds')
    .where({ payment_id: paymentId })
    .whereIn('status', ['completed', 'failed'])
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return rows.map(fromRefundRow);
}

/**
 * The payment `id` of this merchant and environment, or undefined (docs/api.md#merchants-and-environments: foreign ids
 * are not found).
 */
export async function findPayment(
  db: Db,
  scope: { merchantId: string; environment: Environment },
  id: string,
): Promise<PaymentSnapshot | undefined> {
  const row = (await db('payments')
    .where({ id, ...scopeColumns(scope) })
    .first(paymentColumns(db))) as PaymentReadRow | undefined;
  return row ? fromRow(row) : undefined;
}

/** Filters of {@link listPaymentsPage}; every bound is inclusive. */
export interface PaymentListFilter {
  status?: PaymentStatus;
  /** Only open payments waiting for this reason (docs/payments.md#decision-time). */
  pendingReason?: PendingReason;
  paymentMethod?: string;
  createdGte?: Date;
  createdLte?: Date;
  /** Only the attempts of this checkout session (`payments.checkout_session`, docs/checkout.md#states). */
  checkoutSession?: string;
  /**
   * Only payments after this position in the list (created before it; ties by id), see {@link findPaymentListPosition}.
   */
  startingAfter?: PaymentListPosition;
}

/** Where a payment stands in the list (see {@link ListPosition}). */
export type PaymentListPosition = ListPosition;

/**
 * The list position of the scope's payment `id`, or undefined when the scope has no such payment
 * (docs/api.md#merchants-and-environments).
 */
export async function findPaymentListPosition(
  db: Db,
  scope: { merchantId: string; environment: Environment },
  id: string,
): Promise<PaymentListPosition | undefined> {
  return listPositionInScope(db, 'payments', scope, id);
}

/**
 * One page of the scope's payments, newest first (ties by id, descending, so the order is total and
 * a cursor never skips nor repeats a payment), read with the index `payments_merchant_created_idx`
 * (merchant, environment, created_at, id) scanned backwards.
 * @param limit the most payments to answer (1–100)
 * @returns the payments and whether more follow the last one
 */
export async function listPaymentsPage(
  db: Db,
  scope: { merchantId: string; environment: Environment },
  filter: PaymentListFilter,
  limit: number,
): Promise<{ payments: PaymentSnapshot[]; hasMore: boolean }> {
  const rows = (await paymentsPageQuery(db, scope, filter, limit + 1).select(paymentColumns(db))) as PaymentReadRow[];
  return { payments: rows.slice(0, limit).map(fromRow), hasMore: rows.length > limit };
}

/** The query of {@link listPaymentsPage}, reading at most `rows` rows (exported so a test can check its plan). */
export function paymentsPageQuery(
  db: Db,
  scope: { merchantId: string; environment: Environment },
  filter: PaymentListFilter,
  rows: number,
) {
  const query = db<PaymentRow>('payments').where(scopeColumns(scope));
  if (filter.status) query.where({ status: filter.status });
  if (filter.pendingReason) query.where({ pending_reason: filter.pendingReason });
  if (filter.paymentMethod) query.where({ payment_method: filter.paymentMethod });
  if (filter.checkoutSession) query.where({ checkout_session: filter.checkoutSession });
  if (filter.createdGte) query.where('created_at', '>=', filter.createdGte);
  if (filter.createdLte) query.where('created_at', '<=', filter.createdLte);
  if (filter.startingAfter) afterPosition(query, filter.startingAfter);
  return query.orderBy(NEWEST_FIRST).limit(rows);
}

/** Events about one object (a payment), oldest first. */
export async function listEventsForObject(db: Db, objectId: string): Promise<EventRecord[]> {
  const rows = await db('events')
    .where({ object_id: objectId })
    .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  return rows.map((row: { id: string; type: string; created_at: Date; data: unknown }) => ({
    id: row.id,
    event: row.type,
    created_at: iso(row.created_at),
    data: row.data,
  }));
}

/**
 * A payment by id alone, for callers that prove ownership otherwise (card client secret,
 * docs/payments.md#card-payments).
 */
export async function findPaymentById(db: Db, id: string): Promise<PaymentSnapshot | undefined> {
  const row = (await db('payments').where({ id }).first(paymentColumns(db))) as PaymentReadRow | undefined;
  return row ? fromRow(row) : undefined;
}

/** The payment a provider knows by `providerReference` (provider callbacks, docs/payments.md#provider-callbacks). */
export async function findPaymentByProviderReference(
  db: Db,
  provider: string,
  providerReference: string,
): Promise<PaymentSnapshot | undefined> {
  const row = (await db('payments')
    .where({ provider, provider_reference: providerReference })
    .first(paymentColumns(db))) as PaymentReadRow | undefined;
  return row ? fromRow(row) : undefined;
}
