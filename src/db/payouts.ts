/**
 * Payouts and payout destinations in PostgreSQL (docs/payouts.md). Every change of a payout's status is one
 * transaction with the ledger journals it causes and its event (docs/payouts.md#money): the reservation takes a row
 * lock on the merchant's balance account first, so concurrent payouts against one balance are decided one after
 * another and never reserve more than is available.
 */
import type { AuditEntry } from '../domain/audit-log';
import type { Environment } from '../domain/environment';
import { insertAuditEntries } from './audit-log';
import { DomainError } from '../domain/errors';
import { payoutPaidJournal, payoutReservedJournal, payoutReversedJournal, type LedgerPayout } from '../domain/ledger';
import type { Currency } from '../domain/money';
import type { PayoutSnapshot, PayoutStatus } from '../domain/payout';
import {
  postedStepOf,
  type PayoutEmittedEvent,
  type PayoutPostedStep,
  type PayoutWriteOrders,
} from '../domain/payout-table';
import type { PayoutDestination, PayoutDestinationType, PayoutFailureCode } from '../domain/payout-rail';
import { availableOf, readOwed, writeJournal, type LedgerScope } from './ledger';
import { recordProviderOutcome } from './provider-outcomes';
import type { EventInput } from './payments';
import { insertEventOnce } from './payments';
import { iso, isoOrNull, type Db } from './knex';
import { NEWEST_FIRST, newestFirstPage } from './cursor-pages';
import { findById, findInScope, scopeColumns } from './scoped-rows';

/** Verification state of a destination (docs/payouts.md#destinations). */
export type DestinationStatus = 'verified' | 'pending_verification' | 'unverified';

/** A payout destination as stored; times ISO 8601 UTC. */
export interface DestinationRecord {
  id: string;
  merchantId: string;
  environment: Environment;
  type: PayoutDestinationType;
  provider: string;
  phoneNumber: string | null;
  bankCode: string | null;
  accountNumber: string | null;
  accountHolderName: string | null;
  last4: string;
  status: DestinationStatus;
  usableFrom: string;
  createdAt: string;
}

interface DestinationRow {
  id: string;
  merchant_id: string;
  environment: Environment;
  type: PayoutDestinationType;
  provider: string;
  phone_number: string | null;
  bank_code: string | null;
  account_number: string | null;
  account_holder_name: string | null;
  last4: string;
  status: DestinationStatus;
  usable_from: Date;
  created_at: Date;
}

function fromDestinationRow(row: DestinationRow): DestinationRecord {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    environment: row.environment,
    type: row.type,
    provider: row.provider,
    phoneNumber: row.phone_number,
    bankCode: row.bank_code,
    accountNumber: row.account_number,
    accountHolderName: row.account_holder_name,
    last4: row.last4,
    status: row.status,
    usableFrom: iso(row.usable_from),
    createdAt: iso(row.created_at),
  };
}

/** The rail's view of a destination record. */
export function railDestinationOf(destination: DestinationRecord): PayoutDestination {
  if (destination.type === 'mobile_money') return { type: 'mobile_money', phoneNumber: destination.phoneNumber ?? '' };
  return {
    type: 'bank_account',
    bankCode: destination.bankCode ?? '',
    accountNumber: destination.accountNumber ?? '',
    accountHolderName: destination.accountHolderName ?? '',
  };
}

/** Inserts a destination. */
export async function insertDestination(db: Db, destination: DestinationRecord): Promise<void> {
  await db('payout_destinations').insert({
    id: destination.id,
    merchant_id: destination.merchantId,
    environment: destination.environment,
    type: destination.type,
    provider: destination.provider,
    phone_number: destination.phoneNumber,
    bank_code: destination.bankCode,
    account_number: destination.accountNumber,
    account_holder_name: destination.accountHolderName,
    last4: destination.last4,
    status: destination.status,
    usable_from: new Date(destination.usableFrom),
    created_at: new Date(destination.createdAt),
  });
}

/** The scope's destinations not deleted, newest first. */
export async function listDestinations(db: Db, scope: LedgerScope): Promise<DestinationRecord[]> {
  const rows = (await db('payout_destinations')
    .where(scopeColumns(scope))
    .whereNull('deleted_at')
    .orderBy(NEWEST_FIRST)) as DestinationRow[];
  return rows.map(fromDestinationRow);
}

/** The scope's destination `id` unless deleted; undefined for another merchant's or environment's. */
export async function findDestination(db: Db, scope: LedgerScope, id: string): Promise<DestinationRecord | undefined> {
  const row = (await db('payout_destinations')
    .where({ id, ...scopeColumns(scope) })
    .whereNull('deleted_at')
    .first()) as DestinationRow | undefined;
  return row ? fromDestinationRow(row) : undefined;
}

/** The destination `id` whoever owns it (payouts keep naming a deleted one). */
export async function findDestinationById(db: Db, id: string): Promise<DestinationRecord | undefined> {
  return findById(db, 'payout_destinations', id, fromDestinationRow);
}

/**
 * Deletes the scope's destination `id` (kept for the payouts that name it).
 * @returns false when the scope has no such destination
 */
export async function deleteDestination(db: Db, scope: LedgerScope, id: string, at: Date): Promise<boolean> {
  const updated = await db('payout_destinations')
    .where({ id, ...scopeColumns(scope) })
    .whereNull('deleted_at')
    .update({ deleted_at: at });
  return updated > 0;
}

/** A destination a payout paid is verified from then on (docs/payouts.md#destinations). */
async function markDestinationPaid(db: Db, destinationId: string): Promise<void> {
  await db('payout_destinations')
    .where({ id: destinationId, status: 'pending_verification' })
    .update({ status: 'verified' });
}

interface PayoutRow {
  id: string;
  merchant_id: string;
  environment: Environment;
  amount: number;
  fee: number;
  currency: string;
  destination_id: string;
  provider: string;
  description: string | null;
  status: PayoutStatus;
  failure_code: PayoutFailureCode | null;
  failure_message: string | null;
  pending_reason: string | null;
  provider_reference: string | null;
  first_request_at: Date | null;
  automatic: boolean;
  created_at: Date;
  updated_at: Date;
  in_transit_at: Date | null;
  paid_at: Date | null;
  failed_at: Date | null;
  returned_at: Date | null;
  cancelled_at: Date | null;
}

function fromPayoutRow(row: PayoutRow): PayoutSnapshot {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    environment: row.environment,
    amount: Number(row.amount),
    fee: Number(row.fee),
    currency: row.currency.trim() as Currency,
    destinationId: row.destination_id,
    provider: row.provider,
    description: row.description,
    status: row.status,
    failureCode: row.failure_code,
    failureMessage: row.failure_message,
    pendingReason: row.pending_reason,
    providerReference: row.provider_reference,
    firstRequestAt: isoOrNull(row.first_request_at),
    automatic: row.automatic,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    inTransitAt: isoOrNull(row.in_transit_at),
    paidAt: isoOrNull(row.paid_at),
    failedAt: isoOrNull(row.failed_at),
    returnedAt: isoOrNull(row.returned_at),
    cancelledAt: isoOrNull(row.cancelled_at),
  };
}

/**
 * What the merchant's balance in `currency` makes available now, in minor units, read with the balance account's
 * row locked until the transaction `trx` ends (docs/payouts.md#money): the available balance `GET /v1/balance` shows,
 * read by the same function ({@link readOwed}, docs/ledger.md#balance-read). Only credits wait for their day; a debit
 * (a reservation written a moment "later" by a clock a few milliseconds ahead) counts as taken, so a race between two
 * payouts never hands the same money out twice. 0 when the merchant has no account in that currency.
 */
async function lockedAvailable(trx: Db, scope: LedgerScope, currency: string, now: Date): Promise<number> {
  const account = await trx('ledger_accounts')
    .where({ kind: 'merchant_balance', owner: scope.merchantId, environment: scope.environment, currency })
    .forUpdate()
    .first('id');
  if (!account) return 0;
  const [balance] = await readOwed(trx, scope, now, currency);
  return balance ? availableOf(balance) : 0;
}

/** Inserts `payout` (`pending`), its reservation journal, its `payout.created` event and `audit`, inside `trx`. */
async function reserve(
  trx: Db,
  payout: PayoutSnapshot,
  eventOf: (payout: PayoutSnapshot) => EventInput,
  audit?: AuditEntry,
): Promise<void> {
  await trx('payouts').insert({
    id: payout.id,
    merchant_id: payout.merchantId,
    environment: payout.environment,
    amount: payout.amount,
    fee: payout.fee,
    currency: payout.currency,
    destination_id: payout.destinationId,
    provider: payout.provider,
    description: payout.description,
    status: 'pending',
    automatic: payout.automatic,
    created_at: new Date(payout.createdAt),
    updated_at: new Date(payout.updatedAt),
  });
  await writeJournal(trx, payoutReservedJournal(payout), new Date(payout.createdAt));
  await insertEventOnce(trx, eventOf(payout));
  if (audit) await insertAuditEntries(trx, [audit]);
}

/** The balance transaction types a payout itself writes (its reservation, its give-back): never drawn on by another. */
const PAYOUT_TYPES = ['payout', 'payout_failure'];

/**
 * The balance transactions of `currency` in `scope` available at `now` that no payout covers yet, as a query to
 * narrow and then read or name (`payout_id`): what a payout, manual or automatic, may draw on
 * (docs/payouts.md#manual-payout-report).
 */
function uncoveredAvailable(trx: Db, scope: LedgerScope, currency: string, now: Date) {
  return trx('ledger_balance_transactions')
    .where({ ...scopeColumns(scope), currency })
    .whereNull('payout_id')
    .where('available_on', '<=', now);
}

/** How many balance transactions {@link coverFirstInFirstOut} reads at a time. */
const COVER_BATCH = 500;

/**
 * Names (`payout_id`) the balance transactions manual payout `payout` drew on, first in first out
 * (docs/payouts.md#manual-payout-report), inside `trx` under the balance account's lock: its own reservation, then the
 * available balance transactions of its currency that no payout covers yet (payments, refunds, adjustments; not other
 * payouts' reservations or give-backs), in the order they became available (then created, then id), until their net
 * reaches the payout's amount plus fee. The last one named may be drawn on only in part: what it leaves stays in the
 * balance, and its payout report shows that part as a negative `balance_carried` (docs/ledger.md#payout-report).
 * Reads {@link COVER_BATCH} rows at a time, so a long uncovered history costs only what is drawn.
 */
async function coverFirstInFirstOut(trx: Db, payout: PayoutSnapshot, now: Date): Promise<void> {
  const scope = { merchantId: payout.merchantId, environment: payout.environment };
  await trx('ledger_balance_transactions')
    .where({ ...scopeColumns(scope), currency: payout.currency, source: payout.id, type: 'payout' })
    .whereNull('payout_id')
    .update({ payout_id: payout.id });
  const due = payout.amount + payout.fee;
  let drawn = 0;
  while (drawn < due) {
    const batch = (await uncoveredAvailable(trx, scope, payout.currency, now)
      .whereNotIn('type', PAYOUT_TYPES)
      .orderBy([{ column: 'available_on' }, { column: 'created_at' }, { column: 'id' }])
      .limit(COVER_BATCH)
      .select('id', 'net')) as { id: string; net: string | number }[];
    const taken: string[] = [];
    for (const row of batch) {
      if (drawn >= due) break;
      taken.push(row.id);
      drawn += Number(row.net);
    }
    if (taken.length > 0)
      await trx('ledger_balance_transactions').whereIn('id', taken).update({ payout_id: payout.id });
    if (batch.length < COVER_BATCH) break;
  }
}

/**
 * Inserts `payout` (`pending`) with its reservation of amount + fee and its `payout.created` event in one
 * transaction, under the lock of the merchant's balance account (docs/payouts.md#money). A payout id already stored
 * changes nothing and answers the stored payout. `audit`: the create's audit entry, written with it. A manual payout
 * names the balance transactions it drew on, first in first out ({@link coverFirstInFirstOut}).
 * @returns the payout stored, and whether this call inserted it
 * @throws DomainError `insufficient_balance` (409) when the available balance is negative or below amount + fee;
 *   nothing is written
 */
export async function insertPayoutReserved(
  db: Db,
  payout: PayoutSnapshot,
  eventOf: (payout: PayoutSnapshot) => EventInput,
  audit?: AuditEntry,
): Promise<{ payout: PayoutSnapshot; inserted: boolean }> {
  return db.transaction(async (trx) => {
    const scope = { merchantId: payout.merchantId, environment: payout.environment };
    const now = new Date();
    const available = await lockedAvailable(trx, scope, payout.currency, now);
    const existing = (await trx('payouts').where({ id: payout.id }).first()) as PayoutRow | undefined;
    if (existing) return { payout: fromPayoutRow(existing), inserted: false };
    const total = payout.amount + payout.fee;
    if (available < 0)
      throw new DomainError(
        'insufficient_balance',
        `the available ${payout.currency} balance is negative (${available}); payouts wait until it is positive`,
      );
    if (available < total)
      throw new DomainError(
        'insufficient_balance',
        `the available ${payout.currency} balance is ${available}, less than the amount ${payout.amount} plus the payout fee ${payout.fee}`,
      );
    await reserve(trx, payout, eventOf, audit);
    if (!payout.automatic) await coverFirstInFirstOut(trx, payout, now);
    return { payout, inserted: true };
  });
}

/**
 * The journal of the cause `cause` a payout's row declared (docs/ledger.md#postings).
 * @throws Error when the ledger's rules name that step's journal otherwise
 */
function payoutJournalOf(payout: LedgerPayout, cause: string) {
  const step: PayoutPostedStep = postedStepOf(cause);
  const journal = step === 'paid' ? payoutPaidJournal(payout) : payoutReversedJournal(payout, step);
  if (journal.cause !== cause) throw new Error(`the payout table posts ${cause}; the ledger names ${journal.cause}`);
  return journal;
}

/**
 * Writes `payout` as the payout table's row left it (src/domain/payout-table.ts), with exactly the effects it
 * declared (`orders`): the journals of its causes, its event (`eventOf(payout, type)`), the destination's
 * verification and the decided outcome its rail's health is measured by (once per payout,
 * docs/availability.md#payouts), in one transaction (docs/payouts.md#money). The write asserts the row: the stored
 * payout must still be in `orders.from`. A repeat of a write that committed (the stored payout already is what it
 * writes) changes nothing and answers its event again, so a retried caller still starts its deliveries.
 * @returns the payout afterwards, and the event written (undefined when the row emits none)
 * @throws Error when the payout is not stored, or is in another status than the row's (the table was not followed)
 */
export async function writePayoutStatus(
  db: Db,
  payout: PayoutSnapshot,
  orders: PayoutWriteOrders,
  eventOf: (payout: PayoutSnapshot, type: PayoutEmittedEvent) => EventInput,
): Promise<{ payout: PayoutSnapshot; event?: EventInput }> {
  return db.transaction(async (trx) => {
    const [row] = (await trx('payouts')
      .where({ id: payout.id, status: orders.from })
      .update({
        status: payout.status,
        updated_at: new Date(payout.updatedAt),
        pending_reason: payout.pendingReason,
        failure_code: payout.failureCode,
        failure_message: payout.failureMessage,
        provider_reference: payout.providerReference,
        first_request_at: payout.firstRequestAt && new Date(payout.firstRequestAt),
        in_transit_at: payout.inTransitAt && new Date(payout.inTransitAt),
        paid_at: payout.paidAt && new Date(payout.paidAt),
        failed_at: payout.failedAt && new Date(payout.failedAt),
        returned_at: payout.returnedAt && new Date(payout.returnedAt),
        cancelled_at: payout.cancelledAt && new Date(payout.cancelledAt),
      })
      .returning('*')) as PayoutRow[];
    if (!row) {
      const current = (await trx('payouts').where({ id: payout.id }).first()) as PayoutRow | undefined;
      if (!current) throw new Error(`payout ${payout.id} is not stored`);
      const stored = fromPayoutRow(current);
      if (stored.status !== payout.status || stored.updatedAt !== payout.updatedAt)
        throw new Error(
          `payout ${payout.id} is ${stored.status}, not ${orders.from} as the payout table's row for ${payout.status} requires`,
        );
      return { payout: stored, event: orders.emit ? eventOf(stored, orders.emit) : undefined };
    }
    const written = fromPayoutRow(row);
    const at = new Date(written.updatedAt);
    for (const cause of orders.post) await writeJournal(trx, payoutJournalOf(written, cause), at);
    if (orders.verifyDestination) await markDestinationPaid(trx, written.destinationId);
    if (orders.outcome)
      await recordProviderOutcome(trx, {
        ...orders.outcome.key,
        environment: written.environment,
        merchantId: written.merchantId,
        objectId: written.id,
        attempt: orders.outcome.attempt,
      });
    const event = orders.emit ? eventOf(written, orders.emit) : undefined;
    if (event) await insertEventOnce(trx, event);
    return { payout: written, event };
  });
}

/** The payout `id` whoever owns it; undefined when not stored. */
export async function findPayoutById(db: Db, id: string): Promise<PayoutSnapshot | undefined> {
  return findById(db, 'payouts', id, fromPayoutRow);
}

/** The scope's payout `id`; undefined for another merchant's or environment's. */
export async function findPayout(db: Db, scope: LedgerScope, id: string): Promise<PayoutSnapshot | undefined> {
  return findInScope(db, 'payouts', scope, id, fromPayoutRow);
}

/** Filters of {@link listPayoutsPage}; bounds inclusive. */
export interface PayoutFilter {
  status?: PayoutStatus;
  destination?: string;
  createdGte?: Date;
  createdLte?: Date;
  /** Only rows after this one in the list order (newest first, ties by id). */
  startingAfter?: string;
}

/**
 * One page of the scope's payouts, newest first (ties by id, descending).
 * @param limit the most rows to answer (1–100)
 * @throws DomainError `validation_error` naming `starting_after` when it is not one of the scope's payouts
 */
export async function listPayoutsPage(
  db: Db,
  scope: LedgerScope,
  filter: PayoutFilter,
  limit: number,
): Promise<{ payouts: PayoutSnapshot[]; hasMore: boolean }> {
  const page = await newestFirstPage(db, 'payouts', scope, { ...filter, limit }, fromPayoutRow, (query) => {
    if (filter.status) query.where({ status: filter.status });
    if (filter.destination) query.where({ destination_id: filter.destination });
    if (filter.createdGte) query.where('created_at', '>=', filter.createdGte);
    if (filter.createdLte) query.where('created_at', '<=', filter.createdLte);
  });
  return { payouts: page.rows, hasMore: page.hasMore };
}

/** A merchant's automatic payout setting in one environment (docs/payouts.md#automatic-payouts). */
export interface PayoutScheduleRecord {
  schedule: 'manual' | 'daily' | 'weekly';
  destinationId: string | null;
  currency: Currency | null;
  /** Minor units kept in the balance. */
  minimum: number;
  updatedAt: string | null;
}

/** The scope's setting; `manual` with nothing else when it never set one. */
export async function findPayoutSchedule(db: Db, scope: LedgerScope): Promise<PayoutScheduleRecord> {
  const row = (await db('payout_schedules').where(scopeColumns(scope)).first()) as
    | {
        schedule: PayoutScheduleRecord['schedule'];
        destination_id: string | null;
        currency: string | null;
        minimum: string;
        updated_at: Date;
      }
    | undefined;
  if (!row) return { schedule: 'manual', destinationId: null, currency: null, minimum: 0, updatedAt: null };
  return {
    schedule: row.schedule,
    destinationId: row.destination_id,
    currency: (row.currency?.trim() ?? null) as Currency | null,
    minimum: Number(row.minimum),
    updatedAt: iso(row.updated_at),
  };
}

/** Writes the scope's setting. */
export async function savePayoutSchedule(db: Db, scope: LedgerScope, setting: PayoutScheduleRecord): Promise<void> {
  await db('payout_schedules')
    .insert({
      merchant_id: scope.merchantId,
      environment: scope.environment,
      schedule: setting.schedule,
      destination_id: setting.destinationId,
      currency: setting.currency,
      minimum: setting.minimum,
      updated_at: new Date(setting.updatedAt ?? Date.now()),
    })
    .onConflict(['merchant_id', 'environment'])
    .merge();
}

/**
 * Creates an automatic payout (docs/payouts.md#automatic-payouts) in one transaction under the balance account's lock:
 * its amount is what the available balance holds above `minimum`, less the fee (`feeOf(amount)`, minor units); the
 * payout is stored and reserved like any other, and it names (`payout_id`) every available balance transaction of the
 * currency no payout covers yet, its own reservation included, with `audit` when given. A payout id already stored
 * changes nothing.
 * @returns the payout, or undefined when nothing is above the minimum
 */
export async function insertAutomaticPayout(
  db: Db,
  draft: Omit<PayoutSnapshot, 'amount' | 'fee'>,
  minimum: number,
  feeOf: (amount: number) => number,
  eventOf: (payout: PayoutSnapshot) => EventInput,
  audit?: AuditEntry,
): Promise<PayoutSnapshot | undefined> {
  return db.transaction(async (trx) => {
    const scope = { merchantId: draft.merchantId, environment: draft.environment };
    const now = new Date();
    const available = await lockedAvailable(trx, scope, draft.currency, now);
    const existing = (await trx('payouts').where({ id: draft.id }).first()) as PayoutRow | undefined;
    if (existing) return fromPayoutRow(existing);
    const above = available - minimum;
    // The largest amount whose fee still fits (the fee grows with the amount: a few steps from this guess).
    let amount = above - feeOf(above);
    while (amount + 1 + feeOf(amount + 1) <= above) amount += 1;
    while (amount > 0 && amount + feeOf(amount) > above) amount -= 1;
    if (amount <= 0) return undefined;
    const payout: PayoutSnapshot = { ...draft, amount, fee: feeOf(amount) };
    await reserve(trx, payout, eventOf, audit);
    await uncoveredAvailable(trx, scope, draft.currency, now)
      .where((q) => q.whereNotIn('type', PAYOUT_TYPES).orWhere({ source: payout.id }))
      .update({ payout_id: payout.id });
    return payout;
  });
}
