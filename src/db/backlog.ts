/**
 * What is still open and how old it is (docs/operations.md#backlog): the webhook deliveries and
 * refunds that are `pending`, for the backlog gauges and the on-call commands. Each read goes through
 * a partial index that holds only open rows (migration 20261125000900), so its cost follows the
 * backlog, not the history.
 */
import type { Db } from './knex';

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
  /** Open reconciliation exceptions by provider and kind (docs/reconciliation.md#exceptions). */
  exceptions: { provider: string; kind: string; count: number }[];
}

/** Open rows of `table`, by environment: one index-only aggregate. */
async function openBy(db: Db, table: 'webhook_deliveries' | 'refunds'): Promise<BacklogFigure[]> {
  const rows = (await db(table)
    .where('status', 'pending')
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

/** The open deliveries and refunds by environment, and the open exceptions (aggregates on partial indexes). */
export async function readBacklog(db: Db): Promise<Backlog> {
  const [deliveries, refunds, exceptions] = await Promise.all([
    openBy(db, 'webhook_deliveries'),
    openBy(db, 'refunds'),
    db('reconciliation_exceptions')
      .where('status', 'open')
      .groupBy('provider', 'kind')
      .select('provider', 'kind', db.raw('count(*)::int as count')) as Promise<Backlog['exceptions']>,
  ]);
  return { deliveries, refunds, exceptions };
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
  if (filter.status === 'pending')
    query
      .where('created_at', '<', db.raw(`now() - make_interval(secs => ?)`, [filter.olderThanSeconds]))
      .orderBy([{ column: 'created_at' }, { column: 'id' }]);
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
    )) as {
    id: string;
    webhook_id: string;
    merchant_id: string;
    environment: string;
    event_id: string;
    event_type: string;
    status: string;
    next_attempt_at: Date | null;
    created_at: Date;
    attempts: number;
  }[];
  return rows.map((row) => ({
    id: row.id,
    webhookId: row.webhook_id,
    merchantId: row.merchant_id,
    environment: row.environment,
    eventId: row.event_id,
    eventType: row.event_type,
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
  const rows = (await db('refunds as r')
    .join('payments as p', 'p.id', 'r.payment_id')
    .where('r.status', 'pending')
    .where('r.created_at', '<', db.raw(`now() - make_interval(secs => ?)`, [filter.olderThanSeconds]))
    .orderBy([{ column: 'r.created_at' }, { column: 'r.id' }])
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
