/**
 * The ledger in PostgreSQL (docs/ledger.md): writes the journals of src/domain/ledger.ts once per
 * cause, inside the caller's transaction, and reads balances and balance transactions. The database
 * itself refuses to change or delete a posting and to commit a journal that does not balance
 * (migrations/20261125000400_ledger.ts).
 */
import { createHash } from 'node:crypto';
import { settlementDelayFor } from '../domain/catalogue';
import { countryOfNumber } from '../domain/phone';
import type { Environment } from '../domain/environment';
import { base62FromDigest, ID_PREFIXES, ID_RANDOM_LENGTH } from '../domain/ids';
import {
  journalProblems,
  paymentCollectedJournal,
  paymentJournalCause,
  refundCompletedJournal,
  refundFailedJournal,
  refundReservedJournal,
  type BalanceTransactionType,
  type CollectedPayment,
  type JournalDraft,
  type LedgerAccountRef,
  type LedgerRefund,
} from '../domain/ledger';
import type { RefundRecord } from '../domain/refund';
import type { AuditEntry } from '../domain/audit-log';
import { insertAuditEntries } from './audit-log';
import type { Knex } from 'knex';
import { iso, type Db } from './knex';
import { findInScope, scopeColumns } from './scoped-rows';
import { afterPosition, listPositionInScope, NEWEST_FIRST, type ListPosition } from './cursor-pages';

const DAY_MS = 86_400_000;

/** An id derived from the journal's cause, so one cause never yields two ids. */
function causeId(prefix: string, cause: string): string {
  return prefix + base62FromDigest(createHash('sha256').update(cause).digest(), ID_RANDOM_LENGTH);
}

/** A ledger account's key within one database: environment, currency, kind, owner. */
function accountKey(environment: string, currency: string, account: { kind: string; owner: string }): string {
  return `${environment}\u0000${currency}\u0000${account.kind}\u0000${account.owner}`;
}

/**
 * Ids of ledger accounts known committed, per database (keyed by its knex configuration, which a transaction shares).
 * An account's id never changes and an account is never deleted (a posting refers to it), so an entry never goes
 * stale; only ids read outside a transaction are kept, so an account created by a transaction that then rolled back
 * never enters it.
 */
const committedAccounts = new WeakMap<object, Map<string, number>>();

/**
 * The ids of `accounts` in one environment and currency, keyed by {@link accountKey}, created when missing (a
 * merchant's first posting).
 */
async function accountIds(
  db: Db,
  environment: Environment,
  currency: string,
  accounts: readonly LedgerAccountRef[],
): Promise<Map<string, number>> {
  const key = (a: { kind: string; owner: string }) => accountKey(environment, currency, a);
  const wanted = [...new Map(accounts.map((a) => [key(a), a])).values()].sort((a, b) =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0,
  );
  const known = committedAccounts.get(db.client.config as object) ?? new Map<string, number>();
  if (wanted.every((a) => known.has(key(a)))) return known;
  const read = async () => {
    const rows = (await db('ledger_accounts')
      .where({ environment, currency })
      .whereIn(
        ['kind', 'owner'],
        wanted.map((a) => [a.kind, a.owner]),
      )
      .select('id', 'kind', 'owner')) as { id: number; kind: string; owner: string }[];
    return new Map(rows.map((r) => [key(r), Number(r.id)]));
  };
  let ids = await read();
  if (ids.size < wanted.length) {
    // In key order, so two writers creating the same accounts never wait on each other crosswise.
    await db('ledger_accounts')
      .insert(
        wanted.map((a) => ({
          environment,
          currency,
          kind: a.kind,
          owner: a.owner,
        })),
      )
      .onConflict(['environment', 'currency', 'kind', 'owner'])
      .ignore();
    ids = await read();
  }
  if (!db.isTransaction) {
    for (const [k, id] of ids) known.set(k, id);
    committedAccounts.set(db.client.config as object, known);
  }
  return ids;
}

/** Options of {@link journalCtes}: SQL boolean and integer expressions evaluated by the statement itself. */
interface JournalCteOptions {
  /** The journal is written only when this holds (default: always). */
  when?: Knex.Raw;
  /** Days from `at` to the balance transaction's `available_on` (default: the draft's `availableAfterDays`). */
  availableAfterDays?: Knex.Raw;
}

/**
 * The common table expressions that write `journal` once (docs/ledger.md#invariants) as part of one statement, so a
 * journal commits with the read-model change of the same statement and costs no round trip of its own: `ledger_j`
 * (the journal row by its cause, answering its id when this statement wrote it), `ledger_p` (its postings, numbered
 * from line 1 in the draft's order, docs/ledger.md#layout) and `ledger_b` (the merchant's balance transaction, when the
 * draft has one). A cause already written makes all three write nothing.
 * @param ids the journal's account ids ({@link accountIds})
 * @param at when the cause happened; `available_on` counts from it
 */
function journalCtes(
  db: Db,
  journal: JournalDraft,
  at: Date,
  ids: Map<string, number>,
  options: JournalCteOptions = {},
): [string, Knex.Raw][] {
  const journalId = causeId(ID_PREFIXES.journal, journal.cause);
  const ctes: [string, Knex.Raw][] = [
    [
      'ledger_j',
      db.raw(
        `insert into ledger_journals (id, cause, environment, description, created_at)
         select ?, ?, ?, ?, ?::timestamptz where ? on conflict (cause) do nothing returning id`,
        [journalId, journal.cause, journal.environment, journal.description, at, options.when ?? db.raw('true')],
      ),
    ],
    [
      'ledger_p',
      db.raw(
        `insert into ledger_postings (journal_id, line, account_id, currency, amount)
         select ledger_j.id, v.line, v.account_id, ?, v.amount
           from ledger_j cross join (values ${journal.postings.map(() => '(?::smallint, ?::bigint, ?::bigint)').join(', ')})
             as v(line, account_id, amount)`,
        [
          journal.currency,
          ...journal.postings.flatMap((p, n) => {
            const id = ids.get(accountKey(journal.environment, journal.currency, p.account));
            if (id === undefined) throw new Error(`ledger account ${p.account.kind}:${p.account.owner} has no id`);
            return [n + 1, id, p.amount];
          }),
        ],
      ),
    ],
  ];
  const bt = journal.balanceTransaction;
  if (bt)
    ctes.push([
      'ledger_b',
      db.raw(
        `insert into ledger_balance_transactions
           (id, journal_id, merchant_id, environment, type, source, amount, fee, net, currency, description, available_on, created_at)
         select ?, ledger_j.id, ?, ?, ?, ?, ?::bigint, ?::bigint, ?::bigint, ?, ?,
                ?::timestamptz + (?) * interval '${DAY_MS / 1000} seconds', ?::timestamptz
           from ledger_j`,
        [
          causeId(ID_PREFIXES.balanceTransaction, journal.cause),
          bt.merchantId,
          journal.environment,
          bt.type,
          bt.source,
          bt.amount,
          bt.fee,
          bt.net,
          journal.currency,
          bt.description,
          at,
          options.availableAfterDays ?? db.raw('?::int', [bt.availableAfterDays]),
          at,
        ],
      ),
    ]);
  return ctes;
}

/**
 * The ids of the accounts `journal` posts to (see {@link accountIds}), once it is known to balance: a journal that does
 * not is refused before anything is written (the database refuses it too).
 * @throws Error `ledger journal refused: …` when it does not balance
 */
async function balancedJournalAccountIds(db: Db, journal: JournalDraft): Promise<Map<string, number>> {
  const problems = journalProblems(journal);
  if (problems.length > 0) throw new Error(`ledger journal refused: ${problems.join('; ')}`);
  return accountIds(
    db,
    journal.environment,
    journal.currency,
    journal.postings.map((p) => p.account),
  );
}

/**
 * Writes `journal` once (docs/ledger.md#invariants): its row by cause, its postings and the merchant's balance
 * transaction, in one statement inside `db` (pass the transaction of the read-model change that causes it). A cause
 * already written changes nothing.
 * @param at when the cause happened; a balance transaction's `available_on` counts from it
 * @returns true when this call wrote the journal, false when its cause was already in the ledger
 * @throws Error when the journal does not balance (no row is written); the database refuses it too
 */
export async function writeJournal(db: Db, journal: JournalDraft, at: Date): Promise<boolean> {
  const ids = await balancedJournalAccountIds(db, journal);
  let statement = db.queryBuilder();
  for (const [name, cte] of journalCtes(db, journal, at, ids)) statement = statement.with(name, cte);
  const [row] = (await statement.from('ledger_j').count<{ written: string }[]>('* as written')) as {
    written: string | number;
  }[];
  return Number(row?.written) > 0;
}

/**
 * The payment's own facts a collection journal is built from (docs/ledger.md#postings); amounts in minor units.
 * `country` is its customer's (ISO alpha-2, null when unknown), whose market's settlement delay applies
 * (docs/providers.md#market-terms).
 */
export type CollectionFacts = Omit<CollectedPayment, 'settlementDelayDays'> & { country: string | null };

/**
 * The CTEs that post a payment's collection (docs/ledger.md#postings) once within the statement that records it
 * collected, written only when `when` holds: provider clearing, merchant net, platform fee, available after the
 * merchant's own settlement delay or else its provider's in the customer's market (docs/ledger.md#available-on,
 * docs/providers.md#market-terms), both read by the statement.
 * @param at when the provider's success was recorded
 * @returns CTEs named `ledger_j`, `ledger_p`, `ledger_b` (see {@link journalCtes})
 */
export async function collectionCtes(
  db: Db,
  payment: CollectionFacts,
  at: Date,
  when: Knex.Raw,
): Promise<[string, Knex.Raw][]> {
  const { country, ...facts } = payment;
  const providerDelay = settlementDelayFor(payment.provider, country);
  const journal = paymentCollectedJournal({ ...facts, settlementDelayDays: providerDelay });
  const ids = await balancedJournalAccountIds(db, journal);
  return journalCtes(db, journal, at, ids, {
    when,
    availableAfterDays: db.raw(
      'coalesce((select settlement_delay_days from developers where merchant_id = ?), ?::int)',
      [payment.merchantId, providerDelay],
    ),
  });
}

/**
 * Posts a payment's collection (docs/ledger.md#postings) once, reading the payment from its row: provider clearing,
 * merchant net, platform fee, available after the merchant's settlement delay or else its provider's in the customer's
 * market (docs/ledger.md#available-on, docs/providers.md#market-terms). Called for the cause `payment:{id}:completed`
 * a refund's write carries (the late success after a cancel, {@link postRefundJournals}); a payment already posted
 * changes nothing. A payment recorded collected posts in its own statement ({@link collectionCtes}).
 * @param at when the provider's success was recorded
 * @throws Error when the payment is not in the read model
 */
async function postPaymentCollected(db: Db, paymentId: string, at: Date): Promise<void> {
  const row = (await db('payments as p')
    .leftJoin('developers as d', 'd.merchant_id', 'p.merchant_id')
    .where('p.id', paymentId)
    .first(
      'p.merchant_id',
      'p.environment',
      'p.currency',
      'p.provider',
      'p.amount',
      'p.fee_amount',
      'p.customer_phone',
      'd.settlement_delay_days',
    )) as
    | {
        merchant_id: string;
        environment: Environment;
        currency: string;
        provider: string;
        amount: number;
        fee_amount: number;
        customer_phone: string | null;
        settlement_delay_days: number | null;
      }
    | undefined;
  if (!row) throw new Error(`payment ${paymentId} is not in the read model yet`);
  const journal = paymentCollectedJournal({
    id: paymentId,
    merchantId: row.merchant_id,
    environment: row.environment,
    currency: row.currency.trim(),
    provider: row.provider,
    amount: row.amount,
    fee: row.fee_amount,
    settlementDelayDays:
      row.settlement_delay_days ?? settlementDelayFor(row.provider, countryOfNumber(row.customer_phone?.trim())),
  });
  await writeJournal(db, journal, at);
}

/**
 * Posts the journals a refund's write was ordered to post (docs/ledger.md#postings): exactly `causes`, the `post`
 * effects the payment's table declared for the rows this write carries out (src/domain/payment-table.ts), each once
 * and in the order given: a payment's collection (`payment:{id}:completed`, from its row: the late success after a
 * cancel), the refund's reservation (at its `created_at`), its completion or its failure (at its `completed_at`).
 * Call it in the transaction that writes the refund. Nothing is derived from the refund's status: the causes decide,
 * and the refund must agree with them.
 * @throws Error when a cause is not one of this refund or its payment, when a completion or failure is ordered for a
 *   refund not in that state, or when its payment is not in the read model
 */
export async function postRefundJournals(db: Db, refund: RefundRecord, causes: readonly string[]): Promise<void> {
  let provider: string | undefined;
  for (const cause of causes) {
    const named = paymentJournalCause(cause);
    if (named?.journal === 'payment_collected' && named.paymentId === refund.paymentId) {
      await postPaymentCollected(db, refund.paymentId, new Date(refund.createdAt));
      continue;
    }
    if (named?.journal !== 'refund' || named.refundId !== refund.id)
      throw new Error(`refund ${refund.id}: ${cause} is not a journal of this refund or its payment`);
    if (named.step !== 'reserved' && named.step !== refund.status)
      throw new Error(`refund ${refund.id}: ${cause} posted for a ${refund.status} refund`);
    provider ??= await paymentProvider(db, refund.paymentId);
    const ledgerRefund: LedgerRefund = {
      id: refund.id,
      paymentId: refund.paymentId,
      merchantId: refund.merchantId,
      environment: refund.environment,
      currency: refund.currency.trim(),
      provider,
      amount: refund.amount,
    };
    const journal = { reserved: refundReservedJournal, completed: refundCompletedJournal, failed: refundFailedJournal };
    const at = named.step === 'reserved' ? refund.createdAt : (refund.completedAt ?? refund.createdAt);
    await writeJournal(db, journal[named.step](ledgerRefund), new Date(at));
  }
}

/** The provider of payment `paymentId`. @throws Error when the payment is not in the read model */
async function paymentProvider(db: Db, paymentId: string): Promise<string> {
  const payment = (await db('payments').where({ id: paymentId }).first('provider')) as { provider: string } | undefined;
  if (!payment) throw new Error(`payment ${paymentId} is not in the read model yet`);
  return payment.provider;
}

/** Scope of every read (docs/api.md#merchants-and-environments). */
export interface LedgerScope {
  merchantId: string;
  environment: Environment;
}

/** Amounts per currency, minor units. */
export type CurrencyAmounts = { amount: number; currency: string }[];

/** Rows not rolled up past which a balance read rolls them into the merchant's rollup (docs/ledger.md#balance-read). */
export const ROLLUP_AFTER_ROWS = 500;

/** What a merchant is owed in one currency at a moment (docs/ledger.md#balance-read); amounts in minor units. */
export interface OwedBalance {
  currency: string;
  /** Everything the merchant is owed: its rollup plus its balance transactions not rolled up (the tail). */
  owed: number;
  /**
   * The credits of `owed` still waiting for their day (`net` above 0, `available_on` after the moment). A debit is
   * never pending: it takes its amount at once, even one dated a few milliseconds ahead by another process's clock.
   */
  pending: number;
  /** What the merchant's refunds waiting for their provider hold (already taken from `owed`). */
  refundReserved: number;
  /** How many balance transactions are not rolled up yet. */
  tail: number;
}

/**
 * What the merchant may be paid now out of `balance`, minor units: owed less the credits still pending
 * (docs/ledger.md#balance-read). The one definition of "available" that `GET /v1/balance` shows and a payout may take
 * (docs/payouts.md#money); negative when refunds or payouts took more than the available part.
 */
export function availableOf(balance: Pick<OwedBalance, 'owed' | 'pending'>): number {
  return balance.owed - balance.pending;
}

/**
 * The SQL of what a merchant is owed per currency, all of it, available and pending (docs/ledger.md#balance-read): the
 * rollup plus the balance transactions not rolled up (the tail), as rows `(currency, owed, tail)` with `tail` the
 * count of those rows. One definition for every statement that needs it ({@link readOwed}, the settlement reports'
 * opening balance), each embedding it as a common table expression so that it reads one snapshot.
 * @param currency only this currency when given
 * @returns the query and its bindings, for `db.raw`
 */
export function owedSql(scope: LedgerScope, currency?: string): { sql: string; bindings: (string | number)[] } {
  const only = currency === undefined ? '' : ' and currency = ?';
  const c = currency === undefined ? [] : [currency];
  return {
    sql: `select currency, sum(amount)::bigint as owed, sum(rows)::int as tail from (
            select currency, total as amount, 0 as rows from ledger_balance_rollups
             where merchant_id = ? and environment = ?${only}
            union all
            select currency, net, 1 from ledger_balance_transactions
             where merchant_id = ? and environment = ? and not rolled_up${only}
          ) parts group by currency`,
    bindings: [scope.merchantId, scope.environment, ...c, scope.merchantId, scope.environment, ...c],
  };
}

/**
 * The one statement {@link readOwed} runs (docs/ledger.md#balance-read), with its bindings, for `db.raw`: rows
 * `(currency, owed, pending, reserved, tail)`, amounts in minor units as bigint text. Also what the bench explains.
 * @param currency only this currency when given
 */
export function readOwedSql(
  scope: LedgerScope,
  now: Date,
  currency?: string,
): { sql: string; bindings: (string | number | Date)[] } {
  const m = scope.merchantId;
  const e = scope.environment;
  const only = currency === undefined ? '' : ' and currency = ?';
  const c = currency === undefined ? [] : [currency];
  const owed = owedSql(scope, currency);
  return {
    sql: `with owed as (${owed.sql}), pending as (
       select currency, sum(net)::bigint as pending from ledger_balance_transactions
        where merchant_id = ? and environment = ? and available_on > ? and net > 0${only} group by currency
     ), reserved as (
       select currency, sum(amount)::bigint as reserved from refunds
        where merchant_id = ? and environment = ? and status = 'pending'${only} group by currency
     )
     select currency, coalesce(o.owed, 0)::bigint as owed, coalesce(p.pending, 0)::bigint as pending,
            coalesce(r.reserved, 0)::bigint as reserved, coalesce(o.tail, 0) as tail
       from owed o full join pending p using (currency) full join reserved r using (currency)
      order by currency`,
    bindings: [...owed.bindings, m, e, now, ...c, m, e, ...c],
  };
}

/**
 * What a merchant is owed at `now`, per currency (only `currency` when given), in one statement
 * (docs/ledger.md#balance-read, {@link readOwedSql}): the rollup plus the tail, the credits still pending and the
 * pending refunds.
 * The single source of the balance for both its readers, `GET /v1/balance` ({@link readBalance}) and a payout's
 * check under the balance account's lock (src/db/payouts.ts), so the available balance a merchant reads is exactly
 * what a payout may take. Reads no row twice and never sums the merchant's history.
 * @param db the database, or the transaction holding the balance account's lock
 * @returns one entry per currency the merchant has any row in, ordered by currency
 */
export async function readOwed(db: Db, scope: LedgerScope, now: Date, currency?: string): Promise<OwedBalance[]> {
  const statement = readOwedSql(scope, now, currency);
  const result = await db.raw<{
    rows: { currency: string; owed: string; pending: string; reserved: string; tail: number }[];
  }>(statement.sql, statement.bindings);
  return result.rows.map((r) => ({
    currency: r.currency.trim(),
    owed: Number(r.owed),
    pending: Number(r.pending),
    refundReserved: Number(r.reserved),
    tail: r.tail,
  }));
}

/**
 * A merchant's balance (docs/ledger.md#balance-read) at `now`, per currency in minor units: what is owed and available,
 * what is owed and still pending (credits whose `available_on` is after now), and what its refunds in flight hold, as
 * {@link readOwed} reads them. When more than {@link ROLLUP_AFTER_ROWS} rows are not rolled up, the read rolls them up
 * afterwards ({@link rollUpBalance}).
 */
export async function readBalance(
  db: Db,
  scope: LedgerScope,
  now: Date,
): Promise<{ available: CurrencyAmounts; pending: CurrencyAmounts; refundReserved: CurrencyAmounts }> {
  const rows = await readOwed(db, scope, now);
  if (rows.reduce((sum, r) => sum + r.tail, 0) > ROLLUP_AFTER_ROWS) await rollUpBalance(db, scope);
  return {
    available: rows.map((r) => ({ amount: availableOf(r), currency: r.currency })),
    pending: rows.map((r) => ({ amount: r.pending, currency: r.currency })),
    refundReserved: rows.map((r) => ({ amount: r.refundReserved, currency: r.currency })),
  };
}

/**
 * Adds the `net` of the merchant's balance transactions not rolled up yet to its rollup and marks them rolled up, in
 * one statement (docs/ledger.md#balance-read): a row is counted once, in the rollup or in the tail, whatever runs at
 * the same time (a second roll-up waits on the rows the first marks, then finds them rolled up and skips them).
 * @returns how many balance transactions were rolled up
 */
export async function rollUpBalance(db: Db, scope: LedgerScope): Promise<number> {
  const result = await db.raw<{ rows: { rolled: number }[] }>(
    `with moved as (
       update ledger_balance_transactions set rolled_up = true
        where merchant_id = ? and environment = ? and not rolled_up
        returning currency, net
     ), sums as (
       insert into ledger_balance_rollups (merchant_id, environment, currency, total)
       select ?, ?, currency, sum(net) from moved group by currency
       on conflict (merchant_id, environment, currency) do update set total = ledger_balance_rollups.total + excluded.total
     )
     select count(*)::int as rolled from moved`,
    [scope.merchantId, scope.environment, scope.merchantId, scope.environment],
  );
  return result.rows[0]?.rolled ?? 0;
}

/** A balance transaction as stored (docs/ledger.md#balance-transactions); amounts in minor units. */
export interface BalanceTransactionRecord {
  id: string;
  type: BalanceTransactionType;
  amount: number;
  fee: number;
  net: number;
  currency: string;
  source: string;
  payoutId: string | null;
  availableOn: string;
  createdAt: string;
  description: string;
}

/** A balance transaction's row: the record's columns of the same name, and the others under their column names. */
interface BalanceTransactionRow extends Pick<
  BalanceTransactionRecord,
  'id' | 'type' | 'amount' | 'fee' | 'net' | 'currency' | 'source' | 'description'
> {
  payout_id: string | null;
  available_on: Date;
  created_at: Date;
}

function fromBalanceTransactionRow(row: BalanceTransactionRow): BalanceTransactionRecord {
  return {
    id: row.id,
    type: row.type,
    amount: row.amount,
    fee: row.fee,
    net: row.net,
    currency: row.currency.trim(),
    source: row.source,
    payoutId: row.payout_id,
    availableOn: iso(row.available_on),
    createdAt: iso(row.created_at),
    description: row.description,
  };
}

/** Filters of {@link listBalanceTransactionsPage}; bounds inclusive. */
export interface BalanceTransactionFilter {
  type?: BalanceTransactionType;
  source?: string;
  payout?: string;
  createdGte?: Date;
  createdLte?: Date;
  availableOnGte?: Date;
  availableOnLte?: Date;
  /** Only rows after this one in the list order (newest first, ties by id). */
  startingAfter?: ListPosition;
}

/** The list position of the scope's balance transaction `id`, or undefined when the scope has none such. */
export async function findBalanceTransactionPosition(
  db: Db,
  scope: LedgerScope,
  id: string,
): Promise<ListPosition | undefined> {
  return listPositionInScope(db, 'ledger_balance_transactions', scope, id);
}

/**
 * One page of the scope's balance transactions, newest first (ties by id, descending).
 * @param limit the most rows to answer (1–100)
 */
export async function listBalanceTransactionsPage(
  db: Db,
  scope: LedgerScope,
  filter: BalanceTransactionFilter,
  limit: number,
): Promise<{ transactions: BalanceTransactionRecord[]; hasMore: boolean }> {
  const query = db('ledger_balance_transactions').where(scopeColumns(scope));
  if (filter.type) query.where({ type: filter.type });
  if (filter.source) query.where({ source: filter.source });
  if (filter.payout) query.where({ payout_id: filter.payout });
  if (filter.createdGte) query.where('created_at', '>=', filter.createdGte);
  if (filter.createdLte) query.where('created_at', '<=', filter.createdLte);
  if (filter.availableOnGte) query.where('available_on', '>=', filter.availableOnGte);
  if (filter.availableOnLte) query.where('available_on', '<=', filter.availableOnLte);
  if (filter.startingAfter) afterPosition(query, filter.startingAfter);
  const rows = (await query.orderBy(NEWEST_FIRST).limit(limit + 1)) as BalanceTransactionRow[];
  return { transactions: rows.slice(0, limit).map(fromBalanceTransactionRow), hasMore: rows.length > limit };
}

/** The scope's balance transaction `id`, or undefined (another merchant's is not found). */
export async function findBalanceTransaction(
  db: Db,
  scope: LedgerScope,
  id: string,
): Promise<BalanceTransactionRecord | undefined> {
  return findInScope(db, 'ledger_balance_transactions', scope, id, fromBalanceTransactionRow);
}

/**
 * The balance transaction a payment or refund view names (docs/ledger.md#balance-transactions), by source id: a
 * collected payment's, a pending or completed refund's reservation; absent for a failed refund and an
 * uncollected payment.
 */
export async function balanceTransactionIdsOf(
  db: Db,
  sources: { payments?: readonly string[]; refunds?: readonly string[] },
): Promise<Map<string, string>> {
  const payments = sources.payments ?? [];
  const refunds = sources.refunds ?? [];
  if (payments.length + refunds.length === 0) return new Map();
  const rows = (await db('ledger_balance_transactions as b')
    .where((q) => {
      q.where((p) => p.where('b.type', 'payment').whereIn('b.source', [...payments]));
      q.orWhere((r) =>
        r
          .where('b.type', 'refund')
          .whereIn('b.source', [...refunds])
          .whereNotExists(db('refunds').where('refunds.id', db.ref('b.source')).where('refunds.status', 'failed')),
      );
    })
    .select('b.id', 'b.source')) as { id: string; source: string }[];
  return new Map(rows.map((r) => [r.source, r.id]));
}

/** A posting as the dashboard's payment detail shows it (docs/ledger.md#postings); minor units, debit positive. */
export interface PostingRecord {
  journalId: string;
  cause: string;
  account: string;
  currency: string;
  amount: number;
  createdAt: string;
}

/**
 * The postings of the journals a payment and its refunds caused, oldest first; journals of the same moment in the order
 * their causes happen (the collection, a refund's reservation, its outcome), each journal's postings by line.
 */
export async function listPostingsOfPayment(db: Db, paymentId: string, refundIds: readonly string[]) {
  const causes = [
    `payment:${paymentId}:completed`,
    ...refundIds.flatMap((id) => ['reserved', 'completed', 'failed'].map((s) => `refund:${id}:${s}`)),
  ];
  const rows = (await db('ledger_postings as p')
    .join('ledger_journals as j', 'j.id', 'p.journal_id')
    .join('ledger_accounts as a', 'a.id', 'p.account_id')
    .whereIn('j.cause', causes)
    // Journals of one moment (a late success's collection and its automatic refund) in the order they happen.
    .orderByRaw(
      `j.created_at, case when j.cause like 'payment:%' then 0 when j.cause like '%:reserved' then 1 else 2 end, j.cause, p.line`,
    )
    .select('j.id as journal_id', 'j.cause', 'a.kind', 'a.owner', 'p.currency', 'p.amount', 'j.created_at')) as {
    journal_id: string;
    cause: string;
    kind: string;
    owner: string;
    currency: string;
    amount: number;
    created_at: Date;
  }[];
  return rows.map((r): PostingRecord => ({
    journalId: r.journal_id,
    cause: r.cause,
    account: r.owner ? `${r.kind}:${r.owner}` : r.kind,
    currency: r.currency.trim(),
    amount: r.amount,
    createdAt: iso(r.created_at),
  }));
}

/**
 * Sandbox only (docs/ledger.md#available-on): makes the merchant's pending sandbox funds available at `now`.
 * @returns how many balance transactions became available
 */
export async function settleSandboxBalance(db: Db, merchantId: string, now: Date): Promise<number> {
  return db('ledger_balance_transactions')
    .where({ merchant_id: merchantId, environment: 'sandbox' })
    .where('available_on', '>', now)
    .update({ available_on: now });
}

/**
 * Sets a merchant's own settlement delay in days (null: its providers', docs/ledger.md#available-on) with the audit
 * entry, in one transaction.
 */
export async function updateSettlementDelay(
  db: Db,
  merchantId: string,
  days: number | null,
  activity: AuditEntry,
): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('developers').where({ merchant_id: merchantId }).update({ settlement_delay_days: days });
    await insertAuditEntries(trx, [activity]);
  });
}

/** A merchant's own settlement delay in days, or null when it has none (its providers' apply). */
export async function findSettlementDelay(db: Db, merchantId: string): Promise<number | null> {
  const row = (await db('developers').where({ merchant_id: merchantId }).first('settlement_delay_days')) as
    { settlement_delay_days: number | null } | undefined;
  return row?.settlement_delay_days ?? null;
}
