/**
 * The sandbox simulators' ledger in PostgreSQL (docs/payments.md#sandbox-scenarios): the records of
 * src/domain/sandbox-ledger.ts, shared by the API (card confirm, bank simulate) and the workers
 * (initiate, poll, cancel, refund, callbacks). `createSandboxLedger` is the store the simulators and
 * the callback pump are given (`SandboxLedger`, `SandboxCallbackQueue`). Timestamps are `timestamptz` read
 * back as `Date`.
 */
import type {
  CallbackClaim,
  DueCallback,
  SandboxCallbackQueue,
  SandboxDecision,
  SandboxLedger,
  SandboxRefund,
  SandboxRefundRefusal,
  SandboxTransaction,
  ScheduledCallback,
} from '../domain/sandbox-ledger';
import type { Db } from './knex';

/**
 * Inserts `row` unless a transaction with its idempotency key exists, and in the same database
 * transaction schedules `callbacks` (only when this call inserted the row, so a failure between
 * the two never leaves a transaction whose callbacks are lost). Returns the stored transaction
 * either way (so a retried initiate sees the first answer), and whether this call inserted it.
 * Without callbacks there is nothing to keep together: one statement inserts and returns the row,
 * and only a repeated key costs a second one that reads the first (a concurrent insert of the same
 * key has committed by then: `on conflict` waited for it).
 */
export async function insertSandboxTransaction(
  db: Db,
  row: SandboxTransaction,
  callbacks: readonly ScheduledCallback[] = [],
): Promise<{ transaction: SandboxTransaction; inserted: boolean }> {
  const insertOrFind = async (q: Db) => {
    const inserted: SandboxTransaction[] = await q('sandbox_provider_transactions')
      .insert({ ...row, next_action: row.next_action ? JSON.stringify(row.next_action) : null })
      .onConflict('idempotency_key')
      .ignore()
      .returning('*');
    if (inserted[0]) return { transaction: inserted[0], inserted: true };
    const transaction = (await q<SandboxTransaction>('sandbox_provider_transactions')
      .where({ idempotency_key: row.idempotency_key })
      .first()) as SandboxTransaction;
    return { transaction, inserted: false };
  };
  if (callbacks.length === 0) return insertOrFind(db);
  return db.transaction(async (trx) => {
    const result = await insertOrFind(trx);
    if (result.inserted) await scheduleSandboxCallbacks(trx, callbacks);
    return result;
  });
}

/** Settles `reference` when its `settle_at` has passed (the simulated customer approved). */
async function settleDue(db: Db, reference: string, now: Date): Promise<void> {
  await db('sandbox_provider_transactions')
    .where({ provider_reference: reference, status: 'pending' })
    .where('settle_at', '<=', now)
    .update({ status: 'succeeded', updated_at: now });
}

/** The transaction `reference` as stored, without settling it. */
export async function findSandboxTransaction(db: Db, reference: string): Promise<SandboxTransaction | undefined> {
  return db<SandboxTransaction>('sandbox_provider_transactions').where({ provider_reference: reference }).first();
}

/** The transaction `reference`, after settling it when it is due at `now`. */
export async function findSettledSandboxTransaction(
  db: Db,
  reference: string,
  now: Date,
): Promise<SandboxTransaction | undefined> {
  await settleDue(db, reference, now);
  return findSandboxTransaction(db, reference);
}

/** The transaction of a payment at a provider, if it was initiated. */
export async function findSandboxTransactionByPayment(
  db: Db,
  provider: string,
  paymentId: string,
): Promise<SandboxTransaction | undefined> {
  return db<SandboxTransaction>('sandbox_provider_transactions').where({ provider, payment_id: paymentId }).first();
}

/**
 * Decides `reference` if it is still pending at `now` (after settling it when due): the first
 * decision wins. When this call decided it, the callbacks it had scheduled and not yet sent (the
 * settlement they announced will not happen) are withdrawn, in the same database transaction.
 * @returns the transaction as it stands afterwards and whether this call decided it; undefined for an unknown reference
 */
export async function decidePendingSandboxTransaction(
  db: Db,
  reference: string,
  decision: SandboxDecision,
  now: Date,
): Promise<{ transaction: SandboxTransaction; decided: boolean } | undefined> {
  return db.transaction(async (trx) => {
    await settleDue(trx, reference, now);
    const updated = await trx('sandbox_provider_transactions')
      .where({ provider_reference: reference, status: 'pending' })
      .update({
        status: decision.status,
        failure_code: decision.failureCode ?? null,
        failure_message: decision.failureMessage ?? null,
        updated_at: now,
      });
    if (updated === 1)
      await trx('sandbox_provider_callbacks').where({ provider_reference: reference }).whereNull('sent_at').delete();
    const transaction = await findSandboxTransaction(trx, reference);
    return transaction ? { transaction, decided: updated === 1 } : undefined;
  });
}

/**
 * Decides a pending transaction (card confirm, bank simulate, cancel); a transaction already
 * decided keeps its first decision (see {@link decidePendingSandboxTransaction}).
 * @returns the transaction as it stands afterwards; undefined for an unknown reference
 */
export async function decideSandboxTransaction(
  db: Db,
  reference: string,
  decision: SandboxDecision,
  now: Date,
): Promise<SandboxTransaction | undefined> {
  return (await decidePendingSandboxTransaction(db, reference, decision, now))?.transaction;
}

/**
 * Records a simulated refund of `amount` minor units once per idempotency key, if the transaction
 * succeeded and the total refunded stays within its amount (row-locked, so concurrent refunds of one
 * transaction never exceed it). `decideAt` makes it `pending` until then (its amount is held).
 * A key already recorded answers the stored refund and refunds nothing more.
 * @returns the refund as stored (now or by an earlier call with the same key), or why it was refused (then nothing is
 *   stored)
 */
export async function refundSandboxTransaction(
  db: Db,
  reference: string,
  idempotencyKey: string,
  amount: number,
  decideAt: Date | null = null,
): Promise<{ refund: SandboxRefund } | { refused: SandboxRefundRefusal }> {
  return db.transaction(async (trx) => {
    // The transaction's row lock orders the refunds of one payment; what is read after it is current.
    const transaction = await trx<SandboxTransaction>('sandbox_provider_transactions')
      .where({ provider_reference: reference })
      .forUpdate()
      .first();
    const existing = await trx<SandboxRefund>('sandbox_provider_refunds')
      .where({ idempotency_key: idempotencyKey })
      .first();
    if (existing) return { refund: existing };
    if (!transaction || transaction.status !== 'succeeded') return { refused: 'not_collected' as const };
    if ((transaction.refunded_amount ?? 0) + amount > transaction.amount)
      return { refused: 'exceeds_collected' as const };
    const refund: SandboxRefund = {
      idempotency_key: idempotencyKey,
      provider_reference: reference,
      amount,
      status: decideAt ? 'pending' : 'succeeded',
      decide_at: decideAt,
    };
    await trx('sandbox_provider_refunds').insert(refund);
    await trx('sandbox_provider_transactions')
      .where({ provider_reference: reference })
      .increment('refunded_amount', amount);
    return { refund };
  });
}

/**
 * The refund with `idempotencyKey`, after deciding it (`succeeded`) when its `decide_at` has passed at `now`.
 * @returns undefined when the provider never received it
 */
export async function findSandboxRefund(db: Db, idempotencyKey: string, now: Date): Promise<SandboxRefund | undefined> {
  await db('sandbox_provider_refunds')
    .where({ idempotency_key: idempotencyKey, status: 'pending' })
    .where('decide_at', '<=', now)
    .update({ status: 'succeeded' });
  return db<SandboxRefund>('sandbox_provider_refunds').where({ idempotency_key: idempotencyKey }).first();
}

/** Schedules the callbacks a simulator will send (nothing for an empty list). */
export async function scheduleSandboxCallbacks(db: Db, callbacks: readonly ScheduledCallback[]): Promise<void> {
  if (callbacks.length === 0) return;
  await db('sandbox_provider_callbacks').insert(
    callbacks.map((c) => ({
      provider: c.provider,
      provider_reference: c.providerReference,
      callback_url: c.callbackUrl,
      body: c.body,
      due_at: c.dueAt,
    })),
  );
}

/**
 * Claims up to `claim.limit` unsent callbacks due at `now` with fewer than `claim.maxAttempts`
 * attempts, in due order: counts the attempt and moves their due time to the end of the lease.
 * Rows are picked with `FOR UPDATE SKIP LOCKED`, so several workers claiming at once each get
 * different rows.
 * @returns the claimed callbacks, oldest due first
 */
export async function claimDueSandboxCallbacks(db: Db, now: Date, claim: CallbackClaim): Promise<DueCallback[]> {
  const result = await db.raw<{
    rows: {
      id: string | number;
      provider: string;
      provider_reference: string;
      callback_url: string;
      body: string;
      was_due_at: Date;
      attempts: number;
    }[];
  }>(
    `WITH due AS (
       SELECT id, due_at FROM sandbox_provider_callbacks
        WHERE sent_at IS NULL AND due_at <= ? AND attempts < ?
        ORDER BY due_at, id
        LIMIT ?
        FOR UPDATE SKIP LOCKED
     )
     UPDATE sandbox_provider_callbacks AS c
        SET attempts = c.attempts + 1, due_at = ?
       FROM due
      WHERE c.id = due.id
     RETURNING c.id, c.provider, c.provider_reference, c.callback_url, c.body, c.attempts, due.due_at AS was_due_at`,
    [now, claim.maxAttempts, claim.limit, new Date(now.getTime() + claim.leaseMs)],
  );
  return result.rows
    .map((r) => ({
      id: String(r.id),
      provider: r.provider,
      providerReference: r.provider_reference,
      callbackUrl: r.callback_url,
      body: r.body,
      dueAt: r.was_due_at,
      attempts: r.attempts,
    }))
    .sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime() || Number(a.id) - Number(b.id));
}

/** Marks a claimed callback delivered at `now`; it is never sent again. */
export async function markSandboxCallbackSent(db: Db, id: string, now: Date): Promise<void> {
  await db('sandbox_provider_callbacks').where({ id }).update({ sent_at: now });
}

/** Puts a claimed callback whose delivery failed back to be sent again from `dueAt`. */
export async function rescheduleSandboxCallback(db: Db, id: string, dueAt: Date): Promise<void> {
  await db('sandbox_provider_callbacks').where({ id }).whereNull('sent_at').update({ due_at: dueAt });
}

/**
 * The ledger on `db`, as the simulators (`SandboxLedger`) and the callback pump
 * (`SandboxCallbackQueue`) of src/domain/sandbox-ledger.ts use it.
 */
export function createSandboxLedger(db: Db): SandboxLedger & SandboxCallbackQueue {
  return {
    insertTransaction: (transaction: SandboxTransaction, callbacks: readonly ScheduledCallback[]) =>
      insertSandboxTransaction(db, transaction, callbacks),
    findSettledTransaction: (reference: string, now: Date) => findSettledSandboxTransaction(db, reference, now),
    decideTransaction: (reference: string, decision: SandboxDecision, now: Date) =>
      decideSandboxTransaction(db, reference, decision, now),
    refundTransaction: (reference: string, idempotencyKey: string, amount: number, decideAt: Date | null) =>
      refundSandboxTransaction(db, reference, idempotencyKey, amount, decideAt),
    findRefund: (idempotencyKey: string, now: Date) => findSandboxRefund(db, idempotencyKey, now),
    claimDueCallbacks: (now: Date, claim: CallbackClaim) => claimDueSandboxCallbacks(db, now, claim),
    markCallbackSent: (id: string, now: Date) => markSandboxCallbackSent(db, id, now),
    rescheduleCallback: (id: string, dueAt: Date) => rescheduleSandboxCallback(db, id, dueAt),
  };
}
