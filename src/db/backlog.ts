/**
 * What is still open and how old it is (docs/operations.md#backlog): the webhook deliveries and
 * refunds that are `pending` and the payouts not yet final at their rail (`pending`, `in_transit`), for
 * the backlog gauges and the on-call commands. Each read goes through a partial index that holds only
 * open rows (migrations 20261125000900, 20261126000200), so its cost follows the backlog, not the history.
 */
import type { Knex } from 'knex';
import type { Db } from './knex';
import { deliveryKeysOf, type DeliveryKeyColumns, type DeliveryRow } from './webhooks';

/** The open items of one kind in one environment. */
export interface BacklogFigure {
  environment: string;
  /** How many are open. */
  count: number;
  /** Age of the oldest open one, in seconds (0 when none). */
  oldestSeconds: number;
}

/** The backlog by kind, each list by environment (environments with nothing open are absent). */
export interface Backlog {
  deliveries: BacklogFigure[];
  refunds: BacklogFigure[];
  /** Payouts `pending` or `in_transit`: their rail has not given its final word (docs/payouts.md#states). */
  payouts: BacklogFigure[];
  /** Open reconciliation exceptions by provider and kind (docs/reconciliation.md#exceptions). */
  exceptions: { provider: string; kind: string; count: number }[];
}

/** The statuses of an open row, per table (each matches its partial index). */
const OPEN_STATUSES = {
  webhook_deliveries: ['pending'],
  refunds: ['pending'],
  payouts: ['pending', 'in_transit'],
} as const;

/** Open rows of `table`, by environment: one index-only aggregate. */
async function openBy(db: Db, table: keyof typeof OPEN_STATUSES): Promise<BacklogFigure[]> {
  const rows = (await db(table)
    .whereIn('status', OPEN_STATUSES[table])
    .groupBy('environment')
    .select(
      'environment',
      db.raw('count(*)::int as count'),
      db.raw('greatest(0, extract(epoch from now() - min(created_at)))::float8 as oldest_seconds'),
    )) as { environment: string; count: number; oldest_seconds: number }[];
  return rows.map((row) => ({
    environment: row.environment,
    count: row.count,
    oldestSeconds: Math.floor(row.oldest_seconds),
  }));
}

/** The open deliveries, refunds and payouts by environment, and the open exceptions (aggregates on partial indexes). */
export async function readBacklog(db: Db): Promise<Backlog> {
  const [deliveries, refunds, payouts, exceptions] = await Promise.all([
    openBy(db, 'webhook_deliveries'),
    openBy(db, 'refunds'),
    openBy(db, 'payouts'),
    db('reconciliation_exceptions')
      .where('status', 'open')
      .groupBy('provider', 'kind')
      .select('provider', 'kind', db.raw('count(*)::int as count')) as Promise<Backlog['exceptions']>,
  ]);
  return { deliveries, refunds, payouts, exceptions };
}

/**
 * `query` narrowed to the rows of `table` (its name or alias in `query`) created more than `olderThanSeconds` ago,
 * oldest first (ties by id): what an on-call list of stuck items reads.
 */
function createdOver(db: Db, query: Knex.QueryBuilder, table: string, olderThanSeconds: number): Knex.QueryBuilder {
  return query
    .where(`${table}.created_at`, '<', db.raw(`now() - make_interval(secs => ?)`, [olderThanSeconds]))
    .orderBy([{ column: `${table}.created_at` }, { column: `${table}.id` }]);
}

/** A delivery an operator looks at: open for long, or given up on. */
export interface StuckDelivery {
  id: string;
  webhookId: string;
  merchantId: string;
  environment: string;
  eventId: string;
  eventType: string;
  status: string;
  attempts: number;
  nextAttemptAt: Date | null;
  createdAt: Date;
}

/**
 * Deliveries `pending` for more than `olderThanSeconds`, oldest first; or, when `failed` is asked
 * for, those given up on (every attempt failed), the most recently given up first.
 * @param filter.limit at most this many rows (1–1000)
 */
export async function listStuckDeliveries(
  db: Db,
  filter: { olderThanSeconds: number; status: 'pending' | 'failed'; limit: number },
): Promise<StuckDelivery[]> {
  const query = db('webhook_deliveries').where('status', filter.status);
  if (filter.status === 'pending') createdOver(db, query, 'webhook_deliveries', filter.olderThanSeconds);
  else
    query.orderBy([
      { column: 'updated_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ]);
  const rows = (await query
    .limit(filter.limit)
    .select('id', 'webhook_id', 'merchant_id', 'environment', 'event_id', 'event_type', 'status', 'next_attempt_at')
    .select(
      'created_at',
      db.raw('(select count(*)::int from webhook_attempts a where a.delivery_id = webhook_deliveries.id) as attempts'),
    )) as (DeliveryKeyColumns &
    Pick<DeliveryRow, 'status' | 'next_attempt_at' | 'created_at'> & { attempts: number })[];
  return rows.map((row) => ({
    ...deliveryKeysOf(row),
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
  }));
}

/** A refund still waiting for its provider's final answer. */
export interface PendingRefund {
  id: string;
  paymentId: string;
  merchantId: string;
  environment: string;
  provider: string;
  amount: number;
  currency: string;
  providerReference: string | null;
  createdAt: Date;
}

/**
 * Refunds `pending` for more than `olderThanSeconds`, oldest first, with their payment's provider.
 * @param filter.limit at most this many rows (1–1000)
 */
export async function listPendingRefunds(
  db: Db,
  filter: { olderThanSeconds: number; limit: number },
): Promise<PendingRefund[]> {
  const pending = db('refunds as r').join('payments as p', 'p.id', 'r.payment_id').where('r.status', 'pending');
  const rows = (await createdOver(db, pending, 'r', filter.olderThanSeconds)
    .limit(filter.limit)
    .select(
      'r.id',
      'r.payment_id',
      'r.merchant_id',
      'r.environment',
      'p.provider',
      'r.amount',
      'r.currency',
      'r.provider_reference',
      'r.created_at',
    )) as {
    id: string;
    payment_id: string;
    merchant_id: string;
    environment: string;
    provider: string;
    amount: string | number;
    currency: string;
    provider_reference: string | null;
    created_at: Date;
  }[];
  return rows.map((row) => ({
    id: row.id,
    paymentId: row.payment_id,
    merchantId: row.merchant_id,
    environment: row.environment,
    provider: row.provider,
    amount: Number(row.amount),
    currency: row.currency.trim(),
    providerReference: row.provider_reference,
    createdAt: row.created_at,
  }));
}

/** A payout whose rail has not given its final word yet (docs/operations.md#payouts-stuck-pending). */
export interface OpenPayout {
  id: string;
  merchantId: string;
  environment: string;
  /** `pending` (the rail does not have it yet) or `in_transit` (it has it, or may have it, and is being asked). */
  status: string;
  /** In minor units. */
  amount: number;
  fee: number;
  currency: string;
  /** The rail: the provider that pays it, and the kind of destination with its last four digits. */
  provider: string;
  destinationType: string;
  destinationLast4: string;
  /** Why a pending payout has not reached its rail (the rail is down); null otherwise. */
  pendingReason: string | null;
  providerReference: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Payouts `pending` or `in_transit` created more than `olderThanSeconds` ago, oldest first, with their rail.
 * @param filter.limit at most this many rows (1–1000)
 */
export async function listOpenPayouts(
  db: Db,
  filter: { olderThanSeconds: number; limit: number },
): Promise<OpenPayout[]> {
  const open = db('payouts as p')
    .join('payout_destinations as d', 'd.id', 'p.destination_id')
    .whereIn('p.status', OPEN_STATUSES.payouts);
  const rows = (await createdOver(db, open, 'p', filter.olderThanSeconds)
    .limit(filter.limit)
    .select(
      'p.id',
      'p.merchant_id',
      'p.environment',
      'p.status',
      'p.amount',
      'p.fee',
      'p.currency',
      'p.provider',
      'd.type as destination_type',
      'd.last4 as destination_last4',
      'p.pending_reason',
      'p.provider_reference',
      'p.created_at',
      'p.updated_at',
    )) as {
    id: string;
    merchant_id: string;
    environment: string;
    status: string;
    amount: string | number;
    fee: string | number;
    currency: string;
    provider: string;
    destination_type: string;
    destination_last4: string;
    pending_reason: string | null;
    provider_reference: string | null;
    created_at: Date;
    updated_at: Date;
  }[];
  return rows.map((row) => ({
    id: row.id,
    merchantId: row.merchant_id,
    environment: row.environment,
    status: row.status,
    amount: Number(row.amount),
    fee: Number(row.fee),
    currency: row.currency.trim(),
    provider: row.provider,
    destinationType: row.destination_type,
    destinationLast4: row.destination_last4,
    pendingReason: row.pending_reason,
    providerReference: row.provider_reference,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }));
}
