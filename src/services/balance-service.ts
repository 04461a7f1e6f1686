/**
 * A merchant's balance and balance transactions (docs/ledger.md#balance-transactions), read from the ledger for the
 * caller's merchant and environment, and the sandbox's settle (docs/ledger.md#available-on).
 */
import type { Db } from '../db/knex';
import {
  findBalanceTransaction,
  findBalanceTransactionPosition,
  listBalanceTransactionsPage,
  readBalance,
  settleSandboxBalance,
  type BalanceTransactionFilter,
  type BalanceTransactionRecord,
} from '../db/ledger';
import { orNotFound, DomainError } from '../domain/errors';
import { cursorPosition } from './list-cursor';
import type { Principal } from '../domain/principal';
import type { BalanceAmounts } from '../views/balance';

/** The balance of the caller's merchant and environment at `now`, per currency in minor units. */
export async function getBalance(deps: { db: Db }, owner: Principal, now = new Date()): Promise<BalanceAmounts> {
  return readBalance(deps.db, owner, now);
}

/** What {@link listBalanceTransactions} filters on; bounds are inclusive instants. */
export type BalanceTransactionListRequest = Omit<BalanceTransactionFilter, 'startingAfter'> & {
  /** A balance transaction id of the caller's scope: answer those after it (created before it). */
  startingAfter?: string;
  /** 1–100. */
  limit: number;
};

/**
 * One page of the caller's balance transactions, newest first, with whether more follow.
 * @throws DomainError `validation_error` (400) naming `starting_after` when it is not one of the caller's
 */
export async function listBalanceTransactions(
  deps: { db: Db },
  owner: Principal,
  request: BalanceTransactionListRequest,
): Promise<{ transactions: BalanceTransactionRecord[]; hasMore: boolean }> {
  const { startingAfter, limit, ...filter } = request;
  const position = await cursorPosition(
    startingAfter,
    (id) => findBalanceTransactionPosition(deps.db, owner, id),
    (id) => `starting_after must be the id of one of your balance transactions; there is no ${id}`,
  );
  return listBalanceTransactionsPage(deps.db, owner, { ...filter, startingAfter: position }, limit);
}

/**
 * The caller's balance transaction `id`.
 * @throws DomainError `not_found` (404) for an unknown or foreign id (docs/api.md#merchants-and-environments)
 */
export async function getBalanceTransaction(
  deps: { db: Db },
  owner: Principal,
  id: string,
): Promise<BalanceTransactionRecord> {
  return orNotFound(await findBalanceTransaction(deps.db, owner, id), 'balance transaction', id);
}

/**
 * Sandbox only: makes the caller's pending sandbox funds available now (docs/ledger.md#available-on).
 * @returns how many balance transactions became available
 * @throws DomainError `not_found` (404) for a live credential (docs/payments.md#sandbox-scenarios)
 */
export async function settleSandboxFunds(deps: { db: Db }, owner: Principal, now = new Date()): Promise<number> {
  if (owner.environment !== 'sandbox')
    throw new DomainError('not_found', 'no such endpoint in live: only sandbox funds are settled on demand');
  return settleSandboxBalance(deps.db, owner.merchantId, now);
}
