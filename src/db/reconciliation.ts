/**
 * Reconciliation's storage (docs/reconciliation.md): our side of a provider account read from the
 * ledger (the journals that moved its clearing account), the runs (one per provider, environment and
 * day), and the exceptions (one per key, open until resolved with an adjustment journal).
 */
import { createHash } from 'node:crypto';
import type { Environment } from '../domain/environment';
import { base62FromDigest, ID_PREFIXES, ID_RANDOM_LENGTH } from '../domain/ids';
import type { JournalDraft } from '../domain/ledger';
import type { ExceptionDraft, ReconciliationExceptionKind, StatementEntry } from '../domain/reconciliation';
import type { Db } from './knex';
import { NEWEST_FIRST } from './cursor-pages';
import { writeJournal } from './ledger';
import { findById } from './scoped-rows';

/** A provider account in one environment. */
export interface ProviderAccount {
  provider: string;
  environment: Environment;
}

/** The id of the exception of `account` with `key`: one per key, whoever records it. */
export function exceptionIdOf(account: ProviderAccount, key: string): string {
  return derivedId(ID_PREFIXES.reconciliationException, account.provider, account.environment, key);
}

/** An id derived from `parts`, so one run or exception never gets two ids. */
function derivedId(prefix: string, ...parts: string[]): string {
  return prefix + base62FromDigest(createHash('sha256').update(parts.join('\u0000')).digest(), ID_RANDOM_LENGTH);
}

interface ClearingRow {
  cause: string;
  created_at: Date;
  amount: string | number;
  currency: string;
  payment_id: string;
  provider_reference: string | null;
}

/**
 * The ledger's movements of `account`'s clearing account: collections (`payment:{id}:completed`,
 * positive) and refunds paid (`refund:{id}:completed`, shown positive), with the payment's provider
 * reference; all of them in `window`, or those of the given provider references at any time.
 */
export async function ourStatement(
  db: Db,
  account: ProviderAccount,
  select: { window: { from: string; to: string } } | { providerReferences: readonly string[] },
): Promise<StatementEntry[]> {
  const query = db('ledger_postings as p')
    .join('ledger_accounts as a', 'a.id', 'p.account_id')
    .join('ledger_journals as j', 'j.id', 'p.journal_id')
    .joinRaw(
      `join payments as pay on pay.id = case
         when j.cause like 'payment:%' then split_part(j.cause, ':', 2)
         else (select r.payment_id from refunds r where r.id = split_part(j.cause, ':', 2)) end`,
    )
    .where({ 'a.kind': 'provider_clearing', 'a.owner': account.provider, 'a.environment': account.environment })
    .select('j.cause', 'j.created_at', 'p.amount', 'p.currency', 'pay.id as payment_id', 'pay.provider_reference');
  if ('window' in select)
    query.where('j.created_at', '>=', select.window.from).where('j.created_at', '<', select.window.to);
  else if (select.providerReferences.length === 0) return [];
  else query.whereIn('pay.provider_reference', [...select.providerReferences]);
  const rows = (await query.orderBy('j.created_at')) as ClearingRow[];
  return rows.flatMap((row): StatementEntry[] => {
    const [kind, id] = row.cause.split(':');
    if (!row.provider_reference || !id) return [];
    return [
      {
        kind: kind === 'payment' ? 'collection' : 'refund',
        providerReference: row.provider_reference,
        reference: id,
        amount: Math.abs(Number(row.amount)),
        currency: row.currency.trim(),
        status: 'settled',
        at: row.created_at.toISOString(),
        paymentId: row.payment_id,
      },
    ];
  });
}

/**
 * What our books expect `account`'s clearing account to hold in `currency`: the sum of every posting written, in
 * minor units. A balance read now is compared with all of them, whatever their journals' dates: a journal is dated
 * when its cause happened on the workflow's clock, which may run ahead of the clock of the worker that compares.
 */
export async function expectedClearingBalance(db: Db, account: ProviderAccount, currency: string): Promise<number> {
  const row = (await db('ledger_postings as p')
    .join('ledger_accounts as a', 'a.id', 'p.account_id')
    .where({
      'a.kind': 'provider_clearing',
      'a.owner': account.provider,
      'a.environment': account.environment,
      'a.currency': currency,
    })
    .first(db.raw('coalesce(sum(p.amount), 0)::bigint as total'))) as { total: string | number } | undefined;
  return Number(row?.total ?? 0);
}

/** The currencies our books hold a clearing account in for `account` (docs/ledger.md#accounts), sorted. */
export async function clearingCurrencies(db: Db, account: ProviderAccount): Promise<string[]> {
  const rows = (await db('ledger_accounts')
    .where({ kind: 'provider_clearing', owner: account.provider, environment: account.environment })
    .distinct('currency')
    .orderBy('currency')) as { currency: string }[];
  return rows.map((row) => row.currency.trim());
}

/**
 * Minor units of `account`'s movements still open now in `currency`: pending refunds of payments of that provider and
 * its payouts `pending` or `in_transit` (the provider may have paid either already, before we recorded it). What a
 * balance may be off by.
 */
export async function inFlightAmount(db: Db, account: ProviderAccount, currency: string): Promise<number> {
  const [refunds, payouts] = (await Promise.all([
    db('refunds as r')
      .join('payments as p', 'p.id', 'r.payment_id')
      .where({ 'r.status': 'pending', 'p.provider': account.provider, 'r.environment': account.environment })
      .where('r.currency', currency)
      .first(db.raw('coalesce(sum(r.amount), 0)::bigint as total')),
    db('payouts')
      .whereIn('status', ['pending', 'in_transit'])
      .where({ provider: account.provider, environment: account.environment, currency })
      .first(db.raw('coalesce(sum(amount), 0)::bigint as total')),
  ])) as ({ total: string | number } | undefined)[];
  return Number(refunds?.total ?? 0) + Number(payouts?.total ?? 0);
}

/**
 * Our payments of `account` with a provider answer that came after the reconciliation window and was
 * recorded, not acted on (docs/payments.md#states), first recorded in `window`: each becomes a
 * `late_answer` exception.
 */
export async function lateAnswers(
  db: Db,
  account: ProviderAccount,
  window: { from: string; to: string },
): Promise<ExceptionDraft[]> {
  const rows = (await db('payments')
    .where({ provider: account.provider, environment: account.environment })
    .whereNotNull('late_provider_answer')
    .where('updated_at', '>=', window.from)
    .where('updated_at', '<', window.to)
    .select('id', 'amount', 'currency', 'status', 'provider_reference', 'late_provider_answer')) as {
    id: string;
    amount: string | number;
    currency: string;
    status: string;
    provider_reference: string | null;
    late_provider_answer: unknown;
  }[];
  return rows.map((row) => ({
    kind: 'late_answer',
    key: `late_answer:${row.id}`,
    objectId: row.id,
    providerReference: row.provider_reference,
    expectedAmount: Number(row.amount),
    foundAmount: null,
    currency: row.currency.trim(),
    evidence: {
      ours: null,
      theirs: null,
      note: `the provider answered after the reconciliation window; the payment stayed ${row.status}: ${JSON.stringify(
        row.late_provider_answer,
      )}`,
    },
  }));
}

/** A reconciliation run as stored. */
export interface ReconciliationRun {
  id: string;
  provider: string;
  environment: Environment;
  day: string;
  status: 'running' | 'succeeded' | 'failed';
  method: 'transactions' | 'balance';
  summary: Record<string, unknown>;
  error: string | null;
  attempts: number;
  startedAt: Date;
  finishedAt: Date | null;
}

/** The run of `account` for `day`, its id derived from the three. */
export function runIdOf(account: ProviderAccount, day: string): string {
  return derivedId(ID_PREFIXES.reconciliationRun, account.provider, account.environment, day);
}

/** How long one attempt of a run may hold it, in seconds: the activity's start-to-close time-out. */
export const RUN_LEASE_SECONDS = 600;

/**
 * Marks the run of `account` and `day` as running (creating it the first time), counting the attempt,
 * unless another attempt holds it: one that started less than {@link RUN_LEASE_SECONDS} ago and has
 * not finished (two runs of one day never compare at once).
 * @returns its id, or undefined when another attempt holds it
 */
export async function startRun(
  db: Db,
  account: ProviderAccount,
  day: string,
  method: ReconciliationRun['method'],
  now: Date,
): Promise<string | undefined> {
  const id = runIdOf(account, day);
  const taken = await db('reconciliation_runs')
    .insert({ id, ...account, day, method, status: 'running', attempts: 1, started_at: now })
    .onConflict('id')
    .merge({ status: 'running', error: null, started_at: now, attempts: db.raw('reconciliation_runs.attempts + 1') })
    .where((q) =>
      q
        .whereNot('reconciliation_runs.status', 'running')
        .orWhere(
          'reconciliation_runs.started_at',
          '<',
          db.raw(`?::timestamptz - make_interval(secs => ?)`, [now, RUN_LEASE_SECONDS]),
        ),
    )
    .returning('id');
  return taken.length > 0 ? id : undefined;
}

/** Records that the run failed with `error` (nothing it found is stored as reconciled). */
export async function failRun(db: Db, runId: string, error: string, now: Date): Promise<void> {
  await db('reconciliation_runs')
    .where({ id: runId })
    .update({ status: 'failed', error: error.slice(0, 500), finished_at: now });
}

/**
 * Stores what the run found and marks it succeeded, in one transaction: each exception once by its
 * key (a second run of the day adds only what is new, and never reopens a resolved one).
 * @returns how many exceptions this run added
 */
export async function finishRun(
  db: Db,
  runId: string,
  account: ProviderAccount,
  exceptions: readonly ExceptionDraft[],
  summary: Record<string, unknown>,
  now: Date,
): Promise<number> {
  return db.transaction(async (trx) => {
    let added = 0;
    if (exceptions.length > 0) {
      const inserted = await trx('reconciliation_exceptions')
        .insert(
          exceptions.map((e) => ({
            id: exceptionIdOf(account, e.key),
            run_id: runId,
            ...account,
            kind: e.kind,
            key: e.key,
            object_id: e.objectId,
            provider_reference: e.providerReference,
            expected_amount: e.expectedAmount,
            found_amount: e.foundAmount,
            currency: e.currency,
            evidence: JSON.stringify(e.evidence),
            created_at: now,
          })),
        )
        .onConflict(['provider', 'environment', 'key'])
        .ignore()
        .returning('id');
      added = inserted.length;
    }
    await trx('reconciliation_runs')
      .where({ id: runId })
      .update({
        status: 'succeeded',
        error: null,
        summary: JSON.stringify({ ...summary, exceptionsFound: exceptions.length, exceptionsAdded: added }),
        finished_at: now,
      });
    return added;
  });
}

/** A stored exception: what the run found, where, and its resolution. */
export interface ReconciliationException extends ExceptionDraft {
  id: string;
  /** The run that found it; null for one the payment workflow recorded (docs/payments.md#late-successes). */
  runId: string | null;
  provider: string;
  environment: Environment;
  status: 'open' | 'resolved';
  resolvedBy: string | null;
  resolution: string | null;
  adjustmentJournalId: string | null;
  resolvedAt: Date | null;
  createdAt: Date;
}

interface ExceptionRow {
  id: string;
  run_id: string | null;
  provider: string;
  environment: Environment;
  kind: ReconciliationExceptionKind;
  key: string;
  object_id: string | null;
  provider_reference: string | null;
  expected_amount: string | number | null;
  found_amount: string | number | null;
  currency: string | null;
  evidence: ExceptionDraft['evidence'];
  status: 'open' | 'resolved';
  resolved_by: string | null;
  resolution: string | null;
  adjustment_journal_id: string | null;
  resolved_at: Date | null;
  created_at: Date;
}

function fromExceptionRow(row: ExceptionRow): ReconciliationException {
  const amount = (value: string | number | null) => (value === null ? null : Number(value));
  return {
    id: row.id,
    runId: row.run_id,
    provider: row.provider,
    environment: row.environment,
    kind: row.kind,
    key: row.key,
    objectId: row.object_id,
    providerReference: row.provider_reference,
    expectedAmount: amount(row.expected_amount),
    foundAmount: amount(row.found_amount),
    currency: row.currency?.trim() ?? null,
    evidence: row.evidence,
    status: row.status,
    resolvedBy: row.resolved_by,
    resolution: row.resolution,
    adjustmentJournalId: row.adjustment_journal_id,
    resolvedAt: row.resolved_at,
    createdAt: row.created_at,
  };
}

/** Exceptions, newest first, filtered. */
export async function listExceptions(
  db: Db,
  filter: { status?: 'open' | 'resolved'; provider?: string; environment?: Environment; limit: number },
): Promise<ReconciliationException[]> {
  const query = db<ExceptionRow>('reconciliation_exceptions');
  if (filter.status) query.where('status', filter.status);
  if (filter.provider) query.where('provider', filter.provider);
  if (filter.environment) query.where('environment', filter.environment);
  const rows = await query.orderBy(NEWEST_FIRST).limit(filter.limit);
  return rows.map(fromExceptionRow);
}

/** Exception `id`, or undefined. */
export async function findException(db: Db, id: string): Promise<ReconciliationException | undefined> {
  return findById(db, 'reconciliation_exceptions', id, fromExceptionRow);
}

/** The run `id`, or undefined. */
export async function findRun(db: Db, id: string): Promise<ReconciliationRun | undefined> {
  const row = (await db('reconciliation_runs').where({ id }).first()) as
    | (Omit<ReconciliationRun, 'startedAt' | 'finishedAt' | 'day'> & {
        day: Date | string;
        started_at: Date;
        finished_at: Date | null;
      })
    | undefined;
  if (!row) return undefined;
  const day = typeof row.day === 'string' ? row.day : row.day.toISOString().slice(0, 10);
  return {
    id: row.id,
    provider: row.provider,
    environment: row.environment,
    day,
    status: row.status,
    method: row.method,
    summary: row.summary,
    error: row.error,
    attempts: row.attempts,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

/**
 * Resolves exception `id` with the operator's name and reason, writing `adjustment` (when given) in
 * the same transaction (docs/reconciliation.md#resolving).
 * @returns the exception after, or undefined when it is unknown
 * @throws Error `already resolved` when it was resolved before (nothing is written)
 */
export async function resolveException(
  db: Db,
  id: string,
  resolution: { operator: string; reason: string; adjustment?: JournalDraft },
  now: Date,
): Promise<ReconciliationException | undefined> {
  return db.transaction(async (trx) => {
    const row = await trx<ExceptionRow>('reconciliation_exceptions').where({ id }).forUpdate().first();
    if (!row) return undefined;
    if (row.status === 'resolved') throw new ExceptionAlreadyResolved(id, row.resolved_by ?? '');
    let journalId: string | null = null;
    if (resolution.adjustment) {
      await writeJournal(trx, resolution.adjustment, now);
      journalId = (await trx('ledger_journals').where({ cause: resolution.adjustment.cause }).first('id'))?.id ?? null;
    }
    const [updated] = await trx<ExceptionRow>('reconciliation_exceptions')
      .where({ id })
      .update({
        status: 'resolved',
        resolved_by: resolution.operator,
        resolution: resolution.reason,
        adjustment_journal_id: journalId,
        resolved_at: now,
      })
      .returning('*');
    return fromExceptionRow(updated as ExceptionRow);
  });
}

/** Raised when an exception is resolved a second time. */
export class ExceptionAlreadyResolved extends Error {
  constructor(
    readonly exceptionId: string,
    readonly resolvedBy: string,
  ) {
    super(`${exceptionId} is already resolved by ${resolvedBy}`);
    this.name = 'ExceptionAlreadyResolved';
  }
}
