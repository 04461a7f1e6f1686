/**
 * The dashboard's read side (docs/limits.md#lists): payments and refunds as one transaction list, and analytics,
 * computed in SQL over the indexed read model (never by reading workflows).
 */
import type { Environment } from '../domain/environment';
import { COLLECTED_STATUSES } from '../domain/fees';
import type { PendingReason } from '../domain/payment';
import { iso, type Db } from './knex';
import { afterPosition, NEWEST_FIRST, positionOf, type ListPosition } from './cursor-pages';
import { scopeColumns } from './scoped-rows';

/** Scope of every query (docs/api.md#merchants-and-environments). */
export interface Scope {
  merchantId: string;
  environment: Environment;
}

/**
 * A transaction (docs/limits.md#lists); amounts, fee and net in minor units. Fee and net count what
 * moved: 0 and 0 for a payment whose money was not collected and for a refund not completed; a
 * completed refund's net is −amount.
 */
export interface TransactionView {
  id: string;
  type: 'payment' | 'refund';
  payment_id: string;
  amount: number;
  currency: string;
  fee: number;
  net: number;
  status: string;
  /** Why an open payment waits and until when (docs/payments.md#decision-time); null for refunds and final payments. */
  pending_reason: PendingReason | null;
  decision_expected_by: string | null;
  payment_method: string;
  customer: string | null;
  description: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * Filters of the list (docs/limits.md#lists): statuses, a method, a UTC day range [from, to); a currency and a search
 * (README.md#dashboard).
 */
export interface TransactionFilter {
  statuses?: string[];
  method?: string;
  /** ISO 4217 code (README.md#dashboard). */
  currency?: string;
  /** Part of the id, payment id, description or customer, case-insensitive (README.md#dashboard). */
  search?: string;
  from?: Date;
  to?: Date;
  /**
   * Only the payments of this checkout session (its attempts, docs/checkout.md#states) and their refunds.
   */
  checkoutSession?: string;
  /** Only transactions created at or before this instant: later pages of one listing stay put while new ones arrive. */
  asOf?: Date;
}

/**
 * The list's rows, payments then refunds, with fee and net counted only where money moved
 * (docs/limits.md#lists): a payment once its money was collected, as `feeAndNetOf` of
 * src/domain/fees.ts decides (a status of `COLLECTED_STATUSES`, or cancelled with the refund of a
 * late success); a refund once completed (net −amount); 0 and 0 otherwise.
 */
function unionQuery(db: Db, scope: Scope) {
  const collected = db.raw(
    `(status = any(?) or (status = 'cancelled' and exists (select 1 from refunds where refunds.payment_id = payments.id)))`,
    [[...COLLECTED_STATUSES]],
  );
  const payments = db('payments')
    .where(scopeColumns(scope))
    .select(
      'id',
      db.raw(`'payment' as type`),
      'id as payment_id',
      'amount',
      'currency',
      db.raw('case when ? then fee_amount else 0 end as fee', [collected]),
      db.raw('case when ? then amount - fee_amount else 0 end as net', [collected]),
      'status',
      'pending_reason',
      'decision_expected_by',
      'payment_method',
      db.raw('coalesce(customer_phone, customer_wallet, customer_email) as customer'),
      'description',
      'created_at',
      'updated_at',
      'checkout_session',
    );
  const refunds = db('refunds as r')
    .join('payments as p', 'p.id', 'r.payment_id')
    .where({ 'r.merchant_id': scope.merchantId, 'r.environment': scope.environment })
    .select(
      'r.id',
      db.raw(`'refund' as type`),
      'r.payment_id',
      'r.amount',
      'r.currency',
      db.raw('0::bigint as fee'),
      db.raw(`case when r.status = 'completed' then -r.amount else 0 end as net`),
      'r.status',
      db.raw('null::text as pending_reason'),
      db.raw('null::timestamptz as decision_expected_by'),
      'p.payment_method',
      db.raw('coalesce(p.customer_phone, p.customer_wallet, p.customer_email) as customer'),
      'p.description',
      'r.created_at',
      db.raw('coalesce(r.completed_at, r.created_at) as updated_at'),
      'p.checkout_session',
    );
  return db.queryBuilder().from(payments.unionAll(refunds).as('t'));
}

function applyFilter(query: ReturnType<typeof unionQuery>, filter: TransactionFilter) {
  if (filter.statuses?.length) query.whereIn('status', filter.statuses);
  if (filter.method) query.where({ payment_method: filter.method });
  if (filter.currency) query.where({ currency: filter.currency });
  if (filter.search) {
    const pattern = `%${filter.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query.where((inner) => {
      for (const column of ['id', 'payment_id', 'description', 'customer']) inner.orWhere(column, 'ilike', pattern);
    });
  }
  if (filter.checkoutSession) query.where({ checkout_session: filter.checkoutSession });
  if (filter.from) query.where('created_at', '>=', filter.from);
  if (filter.to) query.where('created_at', '<', filter.to);
  if (filter.asOf) query.where('created_at', '<=', filter.asOf);
  return query;
}

function toView(row: Record<string, any>): TransactionView {
  return {
    id: row.id,
    type: row.type,
    payment_id: row.payment_id,
    amount: Number(row.amount),
    currency: row.currency,
    fee: Number(row.fee),
    net: Number(row.net),
    status: row.status,
    pending_reason: row.pending_reason ?? null,
    decision_expected_by: row.decision_expected_by ? iso(row.decision_expected_by) : null,
    payment_method: row.payment_method,
    customer: row.customer,
    description: row.description,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** Where a transaction stands in the list (see {@link ListPosition}). */
export type TransactionListPosition = ListPosition;

/** The list position of the scope's payment or refund `id`, or undefined when the scope has none such. */
export async function findTransactionListPosition(
  db: Db,
  scope: Scope,
  id: string,
): Promise<TransactionListPosition | undefined> {
  return positionOf(db, unionQuery(db, scope).where({ id }));
}

/**
 * One page of transactions, newest first (ties by id, descending, so the order is total and a cursor never skips nor
 * repeats one), the total the filter selects, and whether more follow the page. The page is the `page`-th of `limit`
 * rows, or, with `startingAfter`, the `limit` rows after that position (docs/limits.md#lists).
 */
export async function listTransactions(
  db: Db,
  scope: Scope,
  filter: TransactionFilter,
  page: { page: number; limit: number; startingAfter?: TransactionListPosition },
): Promise<{ transactions: TransactionView[]; total: number; hasMore: boolean }> {
  const [{ total }] = (await applyFilter(unionQuery(db, scope), filter).count('* as total')) as unknown as [
    { total: number },
  ];
  const query = applyFilter(unionQuery(db, scope), filter);
  if (page.startingAfter) afterPosition(query, page.startingAfter);
  const rows = await query
    .select('*')
    .orderBy(NEWEST_FIRST)
    .limit(page.limit + 1)
    .offset(page.startingAfter ? 0 : (page.page - 1) * page.limit);
  return {
    transactions: rows.slice(0, page.limit).map(toView),
    total: Number(total),
    hasMore: rows.length > page.limit,
  };
}

/** One transaction by payment or refund id. */
export async function findTransaction(db: Db, scope: Scope, id: string): Promise<TransactionView | undefined> {
  const row = await unionQuery(db, scope).where({ id }).first('*');
  return row ? toView(row) : undefined;
}

/** Analytics over [from, to) (docs/limits.md#lists); amounts in minor units per currency. */
export interface Analytics {
  from: string;
  to: string;
  volume_by_currency: {
    currency: string;
    completed_volume: number;
    refunded_volume: number;
    fees: number;
    net: number;
  }[];
  count_by_status: Record<string, number>;
  count_by_method: Record<string, number>;
  success_rate: number | null;
  /**
   * Per UTC day and currency; `fees` of the completed payments (the dashboard's fees over time, README.md#dashboard).
   */
  daily: {
    date: string;
    currency: string;
    payments: number;
    completed: number;
    completed_volume: number;
    fees: number;
  }[];
}

/**
 * Computes the analytics (docs/limits.md#lists) in SQL over the payments created in `[from, to)`, of `currency` alone
 * when given (then no count or rate mixes currencies). `success_rate` = completed ÷ decided (completed, refunded,
 * failed), null when none.
 */
export async function computeAnalytics(
  db: Db,
  scope: Scope,
  from: Date,
  to: Date,
  currency?: string,
): Promise<Analytics> {
  const base = () => {
    const query = db('payments')
      .where(scopeColumns(scope))
      .where('created_at', '>=', from)
      .where('created_at', '<', to);
    return currency === undefined ? query : query.where({ currency });
  };
  const volumes = await base()
    .groupBy('currency')
    .orderBy('currency')
    .select(
      'currency',
      db.raw(`coalesce(sum(amount) filter (where status in ('completed', 'refunded')), 0) as completed_volume`),
      db.raw('coalesce(sum(amount_refunded), 0) as refunded_volume'),
      db.raw(`coalesce(sum(fee_amount) filter (where status in ('completed', 'refunded')), 0) as fees`),
    );
  const byStatus = await base().groupBy('status').select('status', db.raw('count(*)::int as n'));
  const byMethod = await base().groupBy('payment_method').select('payment_method', db.raw('count(*)::int as n'));
  const daily = await base()
    .groupByRaw(`date_trunc('day', created_at at time zone 'UTC'), currency`)
    .orderByRaw(`1, 2`)
    .select(
      db.raw(`to_char(date_trunc('day', created_at at time zone 'UTC'), 'YYYY-MM-DD') as date`),
      'currency',
      db.raw('count(*)::int as payments'),
      db.raw(`(count(*) filter (where status in ('completed', 'refunded')))::int as completed`),
      db.raw(`coalesce(sum(amount) filter (where status in ('completed', 'refunded')), 0) as completed_volume`),
      db.raw(`coalesce(sum(fee_amount) filter (where status in ('completed', 'refunded')), 0) as fees`),
    );
  const countByStatus = Object.fromEntries(byStatus.map((r: { status: string; n: number }) => [r.status, r.n]));
  const succeeded = (countByStatus.completed ?? 0) + (countByStatus.refunded ?? 0);
  const decided = succeeded + (countByStatus.failed ?? 0);
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    volume_by_currency: volumes.map((r: Record<string, string | number>) => {
      const completed = Number(r.completed_volume);
      const refunded = Number(r.refunded_volume);
      const fees = Number(r.fees);
      return {
        currency: String(r.currency),
        completed_volume: completed,
        refunded_volume: refunded,
        fees,
        net: completed - refunded - fees,
      };
    }),
    count_by_status: countByStatus,
    count_by_method: Object.fromEntries(
      byMethod.map((r: { payment_method: string; n: number }) => [r.payment_method, r.n]),
    ),
    success_rate: decided === 0 ? null : Math.round((succeeded / decided) * 10_000) / 10_000,
    daily: daily.map((r: Record<string, string | number>) => ({
      date: String(r.date),
      currency: String(r.currency),
      payments: Number(r.payments),
      completed: Number(r.completed),
      completed_volume: Number(r.completed_volume),
      fees: Number(r.fees),
    })),
  };
}
