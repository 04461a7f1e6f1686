/**
 * The reads of settlement reports (docs/ledger.md#reports): balance transactions with the payment (and its merchant
 * description and metadata) each one belongs to, and the balance a merchant was owed at an instant. Amounts in minor
 * units.
 */
import type { ReportLine } from '../domain/settlement-report';
import type { BalanceTransactionType } from '../domain/ledger';
import { owedSql, type LedgerScope } from './ledger';
import { iso, type Db } from './knex';

interface LineRow {
  id: string;
  type: BalanceTransactionType;
  source: string;
  payment_id: string | null;
  amount: string | number;
  fee: string | number;
  net: string | number;
  currency: string;
  description: string;
  merchant_description: string | null;
  metadata: Record<string, string> | null;
  available_on: Date;
  created_at: Date;
}

/**
 * The scope's balance transactions that `where` selects, oldest first (ties by id), each with its payment: a payment
 * line's own, a refund or refused refund's payment; a payout line names the payout's description.
 */
async function reportLines(db: Db, scope: LedgerScope, where: (query: ReturnType<Db>) => void): Promise<ReportLine[]> {
  const query = db('ledger_balance_transactions as b')
    .leftJoin('refunds as r', (on) => on.on('r.id', '=', 'b.source').andOnIn('b.type', ['refund', 'refund_failure']))
    .leftJoin('payments as p', (on) =>
      on.on('p.id', '=', db.raw("case when b.type = 'payment' then b.source else r.payment_id end")),
    )
    .leftJoin('payouts as po', (on) => on.on('po.id', '=', 'b.source').andOnIn('b.type', ['payout', 'payout_failure']))
    .where({ 'b.merchant_id': scope.merchantId, 'b.environment': scope.environment });
  where(query);
  const rows = (await query
    .orderBy([
      { column: 'b.created_at', order: 'asc' },
      { column: 'b.id', order: 'asc' },
    ])
    .select(
      'b.id',
      'b.type',
      'b.source',
      'p.id as payment_id',
      'b.amount',
      'b.fee',
      'b.net',
      'b.currency',
      'b.description',
      db.raw('coalesce(p.description, po.description) as merchant_description'),
      'p.metadata',
      'b.available_on',
      'b.created_at',
    )) as LineRow[];
  return rows.map((row) => ({
    balanceTransaction: row.id,
    category: row.type,
    source: row.source,
    payment: row.payment_id,
    createdAt: iso(row.created_at),
    availableOn: iso(row.available_on),
    currency: row.currency.trim(),
    gross: Number(row.amount),
    fee: Number(row.fee),
    net: Number(row.net),
    description: row.description,
    merchantDescription: row.merchant_description,
    paymentMetadata: row.payment_id === null ? null : (row.metadata ?? {}),
  }));
}

/** The balance transactions payout `payoutId` covers (docs/payouts.md#automatic-payouts), oldest first. */
export async function listPayoutReportLines(db: Db, scope: LedgerScope, payoutId: string): Promise<ReportLine[]> {
  return reportLines(db, scope, (query) => query.where('b.payout_id', payoutId));
}

/**
 * The scope's balance transactions created in `[start, end)`, oldest first, and what the merchant was owed per
 * currency just before `end` ({@link readOwedBefore}), read in one repeatable-read transaction so both see the same
 * ledger (docs/ledger.md#day-report).
 */
export async function readDayReport(
  db: Db,
  scope: LedgerScope,
  start: Date,
  end: Date,
): Promise<{ lines: ReportLine[]; closing: { currency: string; amount: number }[] }> {
  return db.transaction(
    async (trx) => {
      const lines = await reportLines(trx, scope, (query) =>
        query.where('b.created_at', '>=', start).where('b.created_at', '<', end),
      );
      return { lines, closing: await readOwedBefore(trx, scope, end) };
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
}

/**
 * What the scope's merchant was owed per currency (available and pending together, minor units) just before `at`:
 * its balance now (rollup plus the rows not rolled up, {@link owedSql}, docs/ledger.md#balance-read) less the net of
 * the balance transactions created at or after `at`. One statement, so one snapshot: a roll-up running meanwhile is
 * seen whole or not at all. Its cost grows with the rows created since `at`, not with the whole history.
 */
export async function readOwedBefore(
  db: Db,
  scope: LedgerScope,
  at: Date,
): Promise<{ currency: string; amount: number }[]> {
  const m = scope.merchantId;
  const e = scope.environment;
  const owed = owedSql(scope);
  const result = await db.raw<{ rows: { currency: string; amount: string | number }[] }>(
    `with owed as (${owed.sql}), later as (
       select currency, sum(net)::bigint as later from ledger_balance_transactions
        where merchant_id = ? and environment = ? and created_at >= ? group by currency
     )
     select currency, (o.owed - coalesce(l.later, 0))::bigint as amount
       from owed o left join later l using (currency)
      order by currency`,
    [...owed.bindings, m, e, at],
  );
  return result.rows.map((row) => ({ currency: row.currency.trim(), amount: Number(row.amount) }));
}
