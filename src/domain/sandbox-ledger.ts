/**
 * What the sandbox simulators record (docs/payments.md#sandbox-scenarios, docs/providers.md#adapters):
 * each simulated provider's transactions, refunds and the callbacks it will send, in the provider's
 * own vocabulary, and the store the simulators keep them in: they read and write them through `SandboxLedger`, the
 * callback pump sends through `SandboxCallbackQueue`; src/db/sandbox-ledger.ts implements both in PostgreSQL and the
 * entry points (src/worker.ts, src/server.ts) hand that implementation in, so the API (card confirm, bank simulate) and
 * the workers share them. Amounts in minor units.
 */
import type { NextAction } from './payment';

/** A simulated provider transaction; `status` is the provider's own vocabulary. Amounts in minor units. */
export interface SandboxTransaction {
  /** The simulator's reference (`{code}_` + 24 base62), primary key. */
  provider_reference: string;
  /** The provider code of the simulator that owns it (`momo`, `card_gateway`, …). */
  provider: string;
  /** The caller's idempotency key (`payment:{pay_id}:initiate`), unique. */
  idempotency_key: string;
  payment_id: string;
  /** MSISDN, wallet id, e-mail or payment id (InitiationRequest.customer). */
  customer: string;
  amount: number;
  currency: string;
  status: 'pending' | 'succeeded' | 'failed' | 'cancelled';
  failure_code: string | null;
  failure_message: string | null;
  /**
   * When a pending transaction succeeds by itself (the simulated customer approves, the transfer arrives); null: never.
   */
  settle_at: Date | null;
  /** Sum of the refunds taken (pending or succeeded), minor units; never above `amount`. */
  refunded_amount?: number;
  /** The next action the simulator gave at initiation (docs/providers.md#adapters). */
  next_action?: NextAction | null;
  /**
   * The card gateway's client secret (`{reference}_secret_…`, docs/payments.md#card-payments); null for other
   * simulators.
   */
  client_secret?: string | null;
  /** Where the simulator sends its callbacks; null: none. */
  callback_url?: string | null;
  /** `0011`: until when the simulator answers no status question about it (the payment's expiry); null: it answers. */
  silent_until?: Date | null;
}

/**
 * A decision about a pending transaction: the customer confirmed or refused, the transfer arrived or was returned, the
 * request was withdrawn.
 */
export interface SandboxDecision {
  status: 'succeeded' | 'failed' | 'cancelled';
  failureCode?: string;
  failureMessage?: string;
}

/**
 * A simulated refund of `amount` minor units: `succeeded`, or `pending` until `decide_at` (a refund whose answer is
 * unknown, docs/payments.md#sandbox-scenarios `0007`).
 */
export interface SandboxRefund {
  /** The caller's idempotency key (`refund:{ref_id}`), primary key. */
  idempotency_key: string;
  provider_reference: string;
  amount: number;
  status: 'pending' | 'succeeded';
  decide_at: Date | null;
}

/** Why the simulated provider refused a refund. */
export type SandboxRefundRefusal = 'not_collected' | 'exceeds_collected';

/**
 * A callback a simulator will send (docs/payments.md#provider-callbacks): the raw JSON body, to which URL and from
 * when.
 */
export interface ScheduledCallback {
  provider: string;
  providerReference: string;
  callbackUrl: string;
  body: string;
  dueAt: Date;
}

/**
 * A scheduled callback as claimed for sending: `dueAt` is when it was due, `attempts` counts this one (1 on the first
 * try).
 */
export interface DueCallback extends ScheduledCallback {
  id: string;
  attempts: number;
}

/** How due callbacks are claimed for sending. */
export interface CallbackClaim {
  /** Most rows claimed at once. */
  limit: number;
  /** Rows tried this many times are given up and never claimed again. */
  maxAttempts: number;
  /**
   * How long a claim holds its rows, in milliseconds: the claimer marks each sent or reschedules
   * it before then; a claimer that died leaves its rows to be claimed again after it.
   */
  leaseMs: number;
}

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
