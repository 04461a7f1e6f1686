/**
 * The sandbox simulators' own ledger (D14): what each simulated provider "knows" about a payment,
 * its refunds, and the callbacks it will send. Lives in PostgreSQL so the API (card confirm, bank
 * simulate) and the workers (initiate, poll, cancel, refund, callbacks) share it.
 */
import type { NextAction } from '../domain/payment-record';
import type { Db } from './knex';

/** A simulated provider transaction; `status` is the provider's own vocabulary. Amounts in minor units. */
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
  next_action?: NextAction | null;
  client_secret?: string | null;
  callback_url?: string | null;
}

/**
 * Inserts `row` unless a transaction with its idempotency key exists; returns the stored one either
 * way (so a retried initiate sees the first answer), and whether this call inserted it.
 */
export async function insertSandboxTransaction(db: Db, row: SandboxTransaction): Promise<{ transaction: SandboxTransaction; inserted: boolean }> {
  const inserted = await db('sandbox_provider_transactions')
    .insert({ ...row, next_action: row.next_action ? JSON.stringify(row.next_action) : null })
    .onConflict('idempotency_key')
    .ignore()
    .returning('provider_reference');
  const transaction = (await db<SandboxTransaction>('sandbox_provider_transactions').where({ idempotency_key: row.idempotency_key }).first()) as SandboxTransaction;
  return { transaction, inserted: inserted.length === 1 };
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

/** The card transaction whose client secret is `clientSecret` (the simulated gateway's confirm, D15). */
export async function findSandboxTransactionByClientSecret(db: Db, clientSecret: string): Promise<SandboxTransaction | undefined> {
  return db<SandboxTransaction>('sandbox_provider_transactions').where({ client_secret: clientSecret }).first();
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

/** A simulated refund: `succeeded`, or `pending` until `decide_at` (a refund whose answer is unknown, D14 `0007`). */
export interface SandboxRefund {
  idempotency_key: string;
  provider_reference: string;
  amount: number;
  status: 'pending' | 'succeeded';
  decide_at: Date | null;
}

/**
 * Records a simulated refund once per idempotency key, if the transaction succeeded and the total
 * refunded stays within its amount. `decideAt` makes it `pending` until then (its amount is held).
 * @returns the refund as stored (now or from an earlier call with the same key), or undefined when refused
 */
export async function refundSandboxTransaction(
  db: Db,
  reference: string,
  idempotencyKey: string,
  amount: number,
  decideAt: Date | null = null,
): Promise<SandboxRefund | undefined> {
  return db.transaction(async (trx) => {
    const inserted = await trx('sandbox_provider_refunds')
      .insert({ idempotency_key: idempotencyKey, provider_reference: reference, amount, status: decideAt ? 'pending' : 'succeeded', decide_at: decideAt })
      .onConflict('idempotency_key')
      .ignore()
      .returning('idempotency_key');
    if (inserted.length === 1) {
      const updated = await trx('sandbox_provider_transactions')
        .where({ provider_reference: reference, status: 'succeeded' })
        .whereRaw('refunded_amount + ? <= amount', [amount])
        .increment('refunded_amount', amount);
      if (updated !== 1) {
        await trx('sandbox_provider_refunds').where({ idempotency_key: idempotencyKey }).delete();
        return undefined;
      }
    }
    return trx<SandboxRefund>('sandbox_provider_refunds').where({ idempotency_key: idempotencyKey }).first();
  });
}

/**
 * The refund with `idempotencyKey`, after deciding it (`succeeded`) when its `decide_at` has passed.
 * @returns undefined when the provider never received it
 */
export async function findSandboxRefund(db: Db, idempotencyKey: string, now: Date): Promise<SandboxRefund | undefined> {
  await db('sandbox_provider_refunds').where({ idempotency_key: idempotencyKey, status: 'pending' }).where('decide_at', '<=', now).update({ status: 'succeeded' });
  return db<SandboxRefund>('sandbox_provider_refunds').where({ idempotency_key: idempotencyKey }).first();
}

/** A callback a simulator will send (D16): the body and when. */
export interface ScheduledCallback {
  provider: string;
  providerReference: string;
  callbackUrl: string;
  body: string;
  dueAt: Date;
}

/** A scheduled callback as claimed for sending. */
export interface DueCallback extends ScheduledCallback {
  id: string;
  attempts: number;
}

/** Schedules the callbacks a simulator will send. */
export async function scheduleSandboxCallbacks(db: Db, callbacks: readonly ScheduledCallback[]): Promise<void> {
  if (callbacks.length === 0) return;
  await db('sandbox_provider_callbacks').insert(
    callbacks.map((c) => ({ provider: c.provider, provider_reference: c.providerReference, callback_url: c.callbackUrl, body: c.body, due_at: c.dueAt })),
  );
}

/**
 * Claims up to `limit` callbacks due at `now` (marks them sent, in due order; several workers may
 * claim at once, each row goes to one of them).
 */
export async function claimDueSandboxCallbacks(db: Db, now: Date, limit: number): Promise<DueCallback[]> {
  const rows = (await db('sandbox_provider_callbacks')
    .whereIn(
      'id',
      db('sandbox_provider_callbacks').whereNull('sent_at').where('due_at', '<=', now).orderBy('due_at').limit(limit).forUpdate().skipLocked().select('id'),
    )
    .update({ sent_at: now, attempts: db.raw('attempts + 1') })
    .returning(['id', 'provider', 'provider_reference', 'callback_url', 'body', 'due_at', 'attempts'])) as {
    id: string;
    provider: string;
    provider_reference: string;
    callback_url: string;
    body: string;
    due_at: Date;
    attempts: number;
  }[];
  return rows
    .map((r) => ({ id: String(r.id), provider: r.provider, providerReference: r.provider_reference, callbackUrl: r.callback_url, body: r.body, dueAt: r.due_at, attempts: r.attempts }))
    .sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime() || Number(a.id) - Number(b.id));
}

/** Puts a claimed callback back to be sent again at `dueAt` (its delivery failed). */
export async function rescheduleSandboxCallback(db: Db, id: string, dueAt: Date): Promise<void> {
  await db('sandbox_provider_callbacks').where({ id }).update({ sent_at: null, due_at: dueAt });
}
