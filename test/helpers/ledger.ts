/**
 * The invariants of docs/ledger.md#invariants, read from PostgreSQL, as sentences (empty: they hold). Used after
 * every step of the property tests, by the refund race, the fault suite, and the final test of the run.
 */
import type { Db } from '../../src/db/knex';

/** What to check besides the whole ledger's sums. */
export interface LedgerCheck {
  /** Check these merchants' payments and refunds one by one (their journals match their states). */
  merchantIds?: readonly string[];
  /**
   * Also check that each of those merchants' sandbox payments' clearing postings equal what the simulator
   * collected minus what it refunded (nothing for a late answer left to an operator). Only at rest: a refund the
   * simulator paid but the workflow has not recorded yet is a difference for a moment.
   */
  againstSimulators?: boolean;
}

/**
 * The invariants that do not hold, as sentences: every environment and currency sums to zero, every
 * journal balances, every merchant balance equals the sum of its balance transactions' `net` and
 * what the balance read sums (its rollup and the rows not rolled up), and (for `check.merchantIds`) every payment
 * and refund has exactly the journals its state calls for.
 */
export async function ledgerProblems(db: Db, check: LedgerCheck = {}): Promise<string[]> {
  const problems: string[] = [];
  const unbalanced = (
    await db.raw<{ rows: { environment: string; currency: string; total: string }[] }>(
      `select a.environment, p.currency, sum(p.amount)::text as total
         from ledger_postings p join ledger_accounts a on a.id = p.account_id
        group by a.environment, p.currency having sum(p.amount) <> 0`,
    )
  ).rows;
  for (const r of unbalanced) problems.push(`${r.environment} ${r.currency} postings sum to ${r.total}`);
  const journals = (
    await db.raw<{ rows: { journal_id: string }[] }>(
      `select journal_id from ledger_postings group by journal_id, currency having sum(amount) <> 0`,
    )
  ).rows;
  for (const r of journals) problems.push(`journal ${r.journal_id} does not balance`);
  const merchants = (
    await db.raw<{
      rows: { owner: string; environment: string; currency: string; posted: string; net: string; read: string }[];
    }>(
      `select a.owner, a.environment, a.currency,
              coalesce(-posted.total, 0)::text as posted,
              coalesce((select sum(b.net) from ledger_balance_transactions b
                         where b.merchant_id = a.owner and b.environment = a.environment and b.currency = a.currency), 0)::text as net,
              (coalesce((select r.total from ledger_balance_rollups r
                          where r.merchant_id = a.owner and r.environment = a.environment and r.currency = a.currency), 0)
               + coalesce((select sum(b.net) from ledger_balance_transactions b
                            where b.merchant_id = a.owner and b.environment = a.environment and b.currency = a.currency
                              and not b.rolled_up), 0))::text as read
         from ledger_accounts a
         -- Summed once for all accounts: no index reads postings by account (docs/ledger.md#layout).
         left join (select account_id, sum(amount) as total from ledger_postings group by account_id) posted
           on posted.account_id = a.id
        where a.kind = 'merchant_balance'`,
    )
  ).rows;
  for (const r of merchants) {
    if (r.posted !== r.net || r.net !== r.read)
      problems.push(
        `merchant ${r.owner} ${r.environment} ${r.currency}: postings ${r.posted}, balance transactions ${r.net}, rollup and tail ${r.read}`,
      );
  }
  const orphans = (
    await db.raw<{ rows: { merchant_id: string }[] }>(
      `select distinct b.merchant_id from ledger_balance_transactions b where not exists (
         select 1 from ledger_accounts a where a.kind = 'merchant_balance' and a.owner = b.merchant_id
            and a.environment = b.environment and a.currency = b.currency)`,
    )
  ).rows;
  for (const r of orphans) problems.push(`merchant ${r.merchant_id} has balance transactions but no account`);
  if (check.merchantIds?.length) problems.push(...(await stateProblems(db, check.merchantIds)));
  if (check.merchantIds?.length && check.againstSimulators)
    problems.push(...(await simulatorProblems(db, check.merchantIds)));
  return problems;
}

/** Payments, refunds and payouts whose journals are not what their states call for (docs/ledger.md#postings). */
async function stateProblems(db: Db, merchantIds: readonly string[]): Promise<string[]> {
  const payments = (
    await db.raw<{ rows: { id: string; status: string; late: boolean; journals: number }[] }>(
      `select p.id, p.status,
              exists(select 1 from refunds r where r.payment_id = p.id and r.reason = 'late_success_after_cancel') as late,
              (select count(*)::int from ledger_journals j where j.cause = 'payment:' || p.id || ':completed') as journals
         from payments p where p.merchant_id = any(?)`,
      [[...merchantIds]],
    )
  ).rows;
  const problems: string[] = [];
  for (const p of payments) {
    const collected = p.status === 'completed' || p.status === 'refunded' || (p.status === 'cancelled' && p.late);
    if (p.journals !== (collected ? 1 : 0))
      problems.push(`payment ${p.id} ${p.status} has ${p.journals} collection journals`);
  }
  const refunds = (
    await db.raw<{ rows: { id: string; status: string; causes: string[] }[] }>(
      `select r.id, r.status, array(select j.cause from ledger_journals j where j.cause like 'refund:' || r.id || ':%' order by j.cause) as causes
         from refunds r where r.merchant_id = any(?)`,
      [[...merchantIds]],
    )
  ).rows;
  for (const r of refunds) {
    const expected = [`refund:${r.id}:reserved`];
    if (r.status === 'completed') expected.unshift(`refund:${r.id}:completed`);
    if (r.status === 'failed') expected.unshift(`refund:${r.id}:failed`);
    if (r.causes.join() !== expected.join())
      problems.push(`refund ${r.id} ${r.status} has journals ${r.causes.join()}`);
  }
  const payouts = (
    await db.raw<{ rows: { id: string; status: string; causes: string[] }[] }>(
      `select p.id, p.status, array(select j.cause from ledger_journals j where j.cause like 'payout:' || p.id || ':%' order by j.cause) as causes
         from payouts p where p.merchant_id = any(?)`,
      [[...merchantIds]],
    )
  ).rows;
  // docs/ledger.md#postings: reserved always; then paid, failed, cancelled, or paid and returned.
  const payoutSteps: Record<string, string[]> = {
    pending: ['reserved'],
    in_transit: ['reserved'],
    paid: ['paid', 'reserved'],
    failed: ['failed', 'reserved'],
    cancelled: ['cancelled', 'reserved'],
    returned: ['paid', 'reserved', 'returned'],
  };
  for (const p of payouts) {
    const expected = (payoutSteps[p.status] ?? []).map((step) => `payout:${p.id}:${step}`);
    if (p.causes.join() !== expected.join())
      problems.push(`payout ${p.id} ${p.status} has journals ${p.causes.join()}`);
  }
  return problems;
}

/**
 * Sandbox payments whose clearing postings differ from the simulator's collected minus refunded. Every late success is
 * booked (docs/payments.md#late-successes); only a payment left `failed` with a late answer recorded, as payments were
 * before, holds nothing of it in our books (docs/reconciliation.md#exceptions, `late_answer`).
 */
async function simulatorProblems(db: Db, merchantIds: readonly string[]): Promise<string[]> {
  const rows = (
    await db.raw<{ rows: { id: string; posted: string; collected: string }[] }>(
      `select p.id,
              coalesce((select sum(lp.amount) from ledger_postings lp
                          join ledger_journals j on j.id = lp.journal_id
                          join ledger_accounts a on a.id = lp.account_id and a.kind = 'provider_clearing'
                         where j.cause = 'payment:' || p.id || ':completed'
                            or j.cause in (select 'refund:' || r.id || ':completed' from refunds r where r.payment_id = p.id)), 0)::text as posted,
              coalesce((select case when t.status = 'succeeded' and not l.late then t.amount else 0 end
                              - coalesce((select sum(sr.amount) from sandbox_provider_refunds sr
                                           where sr.provider_reference = t.provider_reference and sr.status = 'succeeded'), 0)
                          from sandbox_provider_transactions t where t.payment_id = p.id), 0)::text as collected
         from payments p, lateral (select p.status = 'failed' and p.late_provider_answer is not null as late) l
        where p.merchant_id = any(?) and p.environment = 'sandbox'`,
      [[...merchantIds]],
    )
  ).rows;
  return rows
    .filter((r) => r.posted !== r.collected)
    .map((r) => `payment ${r.id}: clearing ${r.posted}, the simulator collected ${r.collected}`);
}
