/**
 * A payment's timeline for the dashboard (README.md#dashboard): every status change with its time and its source,
 * read from what the payment's workflow did. The service turns the workflow's history into
 * {@link WorkflowFact}s (what woke the workflow, and each payment state it wrote); this module
 * decides which facts are status changes and what caused each. Pure: no Temporal, no I/O.
 */
import type { PaymentSnapshot, PaymentStatus } from './payment';
import type { RefundRecord } from './refund';

/**
 * Where a status change came from: the payment's creation (and the provider's answer to it), a
 * provider callback (confirmed by asking the provider, docs/payments.md#provider-callbacks), a poll of the provider,
 * the expiry at
 * `expires_at` (docs/payments.md#states), the merchant (cancel, refund), or a late provider success that reconciled a
 * closed payment (docs/payments.md#states).
 */
export type ChangeSource = 'create' | 'provider_callback' | 'poll' | 'expiry' | 'merchant' | 'reconciliation';

/** One thing the payment's workflow did, in history order (all runs of the workflow id, oldest first). */
export type WorkflowFact =
  /**
   * A run started: `create` for a new payment (with the payment as created, status `pending`),
   * `continued` for a long wait continued as new, `reopen` for a settled payment re-opened (docs/payments.md#workflow).
   */
  | { kind: 'started'; mode: 'create'; payment: PaymentSnapshot }
  | { kind: 'started'; mode: 'continued' | 'reopen' }
  /** A provider callback arrived (docs/payments.md#provider-callbacks). */
  | { kind: 'callback' }
  /** The merchant's cancel or refund was accepted by the workflow. */
  | { kind: 'merchant'; action: 'cancel' | 'refund' }
  /** A poll got an answer that changes the payment. */
  | { kind: 'polled' }
  /** The provider was asked to cancel (by the merchant's cancel, or at expiry). */
  | { kind: 'provider_cancel_asked' }
  /**
   * The provider answered the payment's initiation: the payment then (`pending`, or `failed` when refused outright).
   */
  | { kind: 'initiated'; payment: PaymentSnapshot }
  /** The workflow wrote this state of the payment (the read model follows it). */
  | { kind: 'recorded'; payment: PaymentSnapshot };

/** A status change as the timeline shows it; `at` is ISO 8601 UTC. */
export interface StatusChangeEntry {
  at: string;
  from: PaymentStatus | null;
  to: PaymentStatus;
  source: ChangeSource;
  failure_code: string | null;
  failure_message: string | null;
}

/**
 * The status changes the facts describe, oldest first. The first state written is the creation
 * (`from` null, source `create`); a later write is a change when its status differs from the one
 * before. Its source is what last woke the workflow, except that a failure by expiry is `expiry`
 * and a closed payment that becomes `completed` is `reconciliation` (docs/payments.md#states).
 */
export function statusChangesOf(facts: readonly WorkflowFact[]): StatusChangeEntry[] {
  const entries: StatusChangeEntry[] = [];
  let current: PaymentStatus | null = null;
  let cause: ChangeSource = 'create';
  const write = (payment: PaymentSnapshot, at: string) => {
    if (payment.status === current) return;
    let source = cause;
    if (current === null) source = 'create';
    else if (payment.status === 'failed' && payment.failureCode === 'expired') source = 'expiry';
    else if (payment.status === 'completed' && (current === 'failed' || current === 'cancelled'))
      source = 'reconciliation';
    entries.push({
      at,
      from: current,
      to: payment.status,
      source,
      failure_code: payment.failureCode,
      failure_message: payment.failureMessage,
    });
    current = payment.status;
  };
  for (const fact of facts) {
    switch (fact.kind) {
      case 'started':
        if (fact.mode === 'create') {
          cause = 'create';
          write(fact.payment, fact.payment.createdAt);
        }
        break;
      case 'callback':
        cause = 'provider_callback';
        break;
      case 'merchant':
        cause = 'merchant';
        break;
      case 'polled':
        cause = 'poll';
        break;
      case 'provider_cancel_asked':
        // Only a merchant's cancel or the expiry ask the provider to cancel an open payment.
        if (cause !== 'merchant') cause = 'expiry';
        break;
      case 'initiated':
        cause = 'create';
        write(fact.payment, fact.payment.updatedAt);
        break;
      case 'recorded':
        write(fact.payment, current === null ? fact.payment.createdAt : fact.payment.updatedAt);
        break;
    }
  }
  return entries;
}

/** One moment of a refund's course as the timeline shows it; `at` is ISO 8601 UTC, `amount` in minor units. */
export interface RefundChangeEntry {
  at: string;
  refund_id: string;
  amount: number;
  /** The refund's status from this moment on: `pending` when requested, then `completed` or `failed` once settled. */
  status: RefundRecord['status'];
  /** The merchant's reason, on the request. */
  reason: string | null;
  /** Why it failed, on a failure. */
  failure_message: string | null;
}

/**
 * The refunds' course, oldest first (ties by refund id, the request before the settlement): every
 * refund is `pending` from its request (`created_at`) until it settles at `completed_at` as
 * `completed` or `failed` (docs/payments.md#cancel-and-refund); a refund still pending has its
 * request only. So no moment shows a refund in a state it reached later.
 */
export function refundChangesOf(refunds: readonly RefundRecord[]): RefundChangeEntry[] {
  const entries = refunds.flatMap((refund): RefundChangeEntry[] => {
    const requested: RefundChangeEntry = {
      at: refund.createdAt,
      refund_id: refund.id,
      amount: refund.amount,
      status: 'pending',
      reason: refund.reason,
      failure_message: null,
    };
    if (refund.status === 'pending' || refund.completedAt === null) return [requested];
    return [
      requested,
      {
        at: refund.completedAt,
        refund_id: refund.id,
        amount: refund.amount,
        status: refund.status,
        reason: null,
        failure_message: refund.failureMessage,
      },
    ];
  });
  const settledRank = (entry: RefundChangeEntry) => (entry.status === 'pending' ? 0 : 1);
  return entries.sort(
    (a, b) =>
      Date.parse(a.at) - Date.parse(b.at) || a.refund_id.localeCompare(b.refund_id) || settledRank(a) - settledRank(b),
  );
}

/**
 * Why the workflow will next ask the provider: a poll, the expiry's last word, or a refund whose answer is unknown
 * (docs/payments.md#cancel-and-refund).
 */
export type ProviderCheckReason = 'poll' | 'expiry' | 'refund_check';

/**
 * The reason of a check at `atMs` for a payment in `status` expiring at `expiresAtMs` (ms since
 * the epoch): an open payment's wait that ends at its expiry is the expiry; other open waits are
 * polls; a settled payment's are refund checks.
 */
export function providerCheckReason(status: PaymentStatus, atMs: number, expiresAtMs: number): ProviderCheckReason {
  if (status !== 'pending' && status !== 'processing') return 'refund_check';
  return atMs >= expiresAtMs - 1_000 ? 'expiry' : 'poll';
}
