/**
 * The store the sandbox simulators keep their ledger in (docs/payments.md#sandbox-scenarios): what a
 * simulated provider knows about its transactions and refunds, and the callbacks it will send.
 * Types only; src/db/sandbox-ledger.ts implements both interfaces in PostgreSQL and the entry points
 * (src/worker.ts, src/server.ts) hand that implementation in.
 */
import type {
  CallbackClaim,
  DueCallback,
  SandboxDecision,
  SandboxRefund,
  SandboxRefundRefusal,
  SandboxTransaction,
  ScheduledCallback,
} from '../../domain/sandbox-ledger';

/** The transactions and refunds of the simulated providers, as the simulators read and write them. */
export interface SandboxLedger {
  /**
   * Records `transaction` unless one with its idempotency key exists, and with it (only when this
   * call recorded it) schedules `callbacks`.
   * @returns the stored transaction either way (a retried initiate sees the first answer), and whether this call
   *   recorded it
   */
  insertTransaction(
    transaction: SandboxTransaction,
    callbacks: readonly ScheduledCallback[],
  ): Promise<{ transaction: SandboxTransaction; inserted: boolean }>;

  /**
   * The transaction `reference`, after settling it (`succeeded`) when its `settle_at` has passed at `now`; undefined
   * when unknown.
   */
  findSettledTransaction(reference: string, now: Date): Promise<SandboxTransaction | undefined>;

  /**
   * Decides `reference` if it is still pending at `now`: the first decision wins, and the callbacks
   * it had scheduled and not yet sent are withdrawn.
   * @returns the transaction as it stands afterwards; undefined for an unknown reference
   */
  decideTransaction(reference: string, decision: SandboxDecision, now: Date): Promise<SandboxTransaction | undefined>;

  /**
   * Records a refund of `amount` minor units once per idempotency key, if the transaction succeeded
   * and the total refunded stays within its amount; `decideAt` keeps it `pending` until then.
   * @returns the refund as stored (now or by an earlier call with the same key), or why it was refused (then nothing is
   *   stored)
   */
  refundTransaction(
    reference: string,
    idempotencyKey: string,
    amount: number,
    decideAt: Date | null,
  ): Promise<{ refund: SandboxRefund } | { refused: SandboxRefundRefusal }>;

  /**
   * The refund with `idempotencyKey`, decided (`succeeded`) when its `decide_at` has passed at `now`; undefined when
   * never received.
   */
  findRefund(idempotencyKey: string, now: Date): Promise<SandboxRefund | undefined>;
}

/** The simulators' scheduled callbacks, as the callback pump sends them. */
export interface SandboxCallbackQueue {
  /**
   * Claims up to `claim.limit` unsent callbacks due at `now` with fewer than `claim.maxAttempts`
   * attempts, counting the attempt; several claimers at once each get different callbacks.
   * @returns the claimed callbacks, oldest due first
   */
  claimDueCallbacks(now: Date, claim: CallbackClaim): Promise<DueCallback[]>;

  /** Marks a claimed callback delivered at `now`; it is never sent again. */
  markCallbackSent(id: string, now: Date): Promise<void>;

  /** Puts a claimed callback whose delivery failed back to be sent again from `dueAt`. */
  rescheduleCallback(id: string, dueAt: Date): Promise<void>;
}
