/**
 * The sandbox simulators' own ledger (D14): what each simulated provider "knows" about a payment.
 * Lives in PostgreSQL so the API (card confirm, bank simulate) and the worker (initiate, poll,
 * cancel, refund) share it.
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
  status: 'pending' | 'succeeded' | 'failed' | 'cancelled';
  failure_code: string | null;
  failure_message: string | null;
  settle_at: Date | null;
  refunded_amount?: number;
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

/** Settles `reference` when its `settle_at` has passed (the simulated customer approved). */
async function settleDue(db: Db, reference: string, now: Date): Promise<void> {
  await db('sandbox_provider_transactions')
    .where({ provider_reference: reference, status: 'pending' })
    .where('settle_at', '<=', now)
    .update({ status: 'succeeded', updated_at: now });
}

/** The transaction `reference`, after settling it when it is due. */
export async function findSettledSandboxTransaction(db: Db, reference: string, now: Date): Promise<SandboxTransaction | undefined> {
  await settleDue(db, reference, now);
  return db<SandboxTransaction>('sandbox_provider_transactions').where({ provider_reference: reference }).first();
}

/** The transaction of a payment at a provider, if it was initiated. */
export async function findSandboxTransactionByPayment(db: Db, provider: string, paymentId: string): Promise<SandboxTransaction | undefined> {
  return db<SandboxTransaction>('sandbox_provider_transactions').where({ provider, payment_id: paymentId }).first();
}

/**
 * Decides a pending transaction (card confirm, bank simulate, cancel). A transaction already decided
 * keeps its first decision.
 * @returns the transaction as it stands afterwards
 */
export async function decideSandboxTransaction(
  db: Db,
  reference: string,
  decision: { status: 'succeeded' | 'failed' | 'cancelled'; failureCode?: string; failureMessage?: string },
  now: Date,
): Promise<SandboxTransaction | undefined> {
  await settleDue(db, reference, now);
  await db('sandbox_provider_transactions')
    .where({ provider_reference: reference, status: 'pending' })
    .update({
      status: decision.status,
      failure_code: decision.failureCode ?? null,
      failure_message: decision.failureMessage ?? null,
      updated_at: now,
    });
  return db<SandboxTransaction>('sandbox_provider_transactions').where({ provider_reference: reference }).first();
}

/**
 * Records a simulated refund once per idempotency key, if the transaction succeeded and the total
 * refunded stays within its amount.
 * @returns true when the refund stands (now or from an earlier call with the same key)
 */
export async function refundSandboxTransaction(db: Db, reference: string, idempotencyKey: string, amount: number): Promise<boolean> {
  return db.transaction(async (trx) => {
    const inserted = await trx('sandbox_provider_refunds')
      .insert({ idempotency_key: idempotencyKey, provider_reference: reference, amount })
      .onConflict('idempotency_key')
      .ignore()
      .returning('idempotency_key');
    if (inserted.length === 0) return true;
    const updated = await trx('sandbox_provider_transactions')
      .where({ provider_reference: reference, status: 'succeeded' })
      .whereRaw('refunded_amount + ? <= amount', [amount])
      .increment('refunded_amount', amount);
    if (updated === 1) return true;
    await trx('sandbox_provider_refunds').where({ idempotency_key: idempotencyKey }).delete();
    return false;
  });
}
