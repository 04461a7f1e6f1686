/**
 * The sandbox simulators' own ledger (D14): what each simulated provider "knows" about a payment.
 * Lives in PostgreSQL so the API (callbacks) and the worker (initiate, poll) share it.
 */
import type { Db } from './knex';

/** A simulated provider transaction; `status` is the provider's own vocabulary. */
export interface SandboxTransaction {
  provider_reference: string;
  provider: string;
  idempotency_key: string;
  payment_id: string;
  customer: string;
  amount: number;
  currency: string;
  status: 'pending' | 'succeeded' | 'failed';
  failure_code: string | null;
  failure_message: string | null;
  settle_at: Date | null;
}

/**
 * Inserts `row` unless a transaction with its idempotency key exists; returns the stored one either
 * way (so a retried initiate sees the first answer).
 */
export async function insertSandboxTransaction(db: Db, row: SandboxTransaction): Promise<SandboxTransaction> {
  await db('sandbox_provider_transactions').insert(row).onConflict('idempotency_key').ignore();
  return db<SandboxTransaction>('sandbox_provider_transactions')
    .where({ idempotency_key: row.idempotency_key })
    .first() as Promise<SandboxTransaction>;
}

/**
 * The transaction `reference`, after settling it when its `settle_at` has passed (the simulated
 * customer approved).
 */
export async function findSettledSandboxTransaction(db: Db, reference: string, now: Date): Promise<SandboxTransaction | undefined> {
  await db('sandbox_provider_transactions')
    .where({ provider_reference: reference, status: 'pending' })
    .where('settle_at', '<=', now)
    .update({ status: 'succeeded', updated_at: now });
  return db<SandboxTransaction>('sandbox_provider_transactions').where({ provider_reference: reference }).first();
}
