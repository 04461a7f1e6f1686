/**
 * The simulated providers' own statuses and reasons mapped onto ours (docs/providers.md#adapters), as every adapter's
 * `statuses.ts` maps its provider's: a transaction still awaiting the customer (the customer has the
 * prompt, the client secret or the transfer instructions and has not acted) is `pending`, as
 * docs/payments.md#states has it; a success `completed`, a refusal `failed` with its reason, a
 * withdrawn request `cancelled`. No simulator models a customer who acted while the provider is
 * still settling, so none answers `processing`. A ledger refund is `pending` until decided, then `succeeded`.
 */
import { createHash } from 'node:crypto';
import { withReceiptNumber, type FailureCode, type ProviderAnswer, type ProviderOutcome } from '../../domain/payment';
import type { SandboxRefund, SandboxTransaction } from '../../domain/sandbox-ledger';
import type { RefundAnswer } from '../provider';

/** The simulator's word for a transaction's state: `pending`, `succeeded`, `failed` or `cancelled`. */
export type SandboxStatus = SandboxTransaction['status'];

/** The simulators' failure reasons, which are already ours (docs/payments.md#sandbox-scenarios). */
const SANDBOX_FAILURE_CODES: readonly FailureCode[] = [
  'declined',
  'card_declined',
  'insufficient_funds',
  'provider_error',
];

/** Our failure code for the simulator's reason; a failure without a known reason is a decline. */
export function failureCodeOf(reason: string | null): FailureCode {
  return SANDBOX_FAILURE_CODES.find((code) => code === reason) ?? 'declined';
}

/**
 * What a callback claiming the simulator's `status` claims, in our statuses (its `pending` is ours: awaiting the
 * customer).
 */
export function claimedStatusOf(status: SandboxStatus): ProviderOutcome['status'] {
  switch (status) {
    case 'succeeded':
      return 'completed';
    case 'failed':
      return 'failed';
    case 'cancelled':
      return 'cancelled';
    default:
      return 'pending';
  }
}

/** A ledger transaction's state as our {@link ProviderOutcome}. */
export function outcomeOf(
  row: Pick<SandboxTransaction, 'status' | 'failure_code' | 'failure_message'>,
): ProviderOutcome {
  switch (row.status) {
    case 'succeeded':
      return { status: 'completed' };
    case 'cancelled':
      return { status: 'cancelled' };
    case 'failed':
      return {
        status: 'failed',
        failureCode: failureCodeOf(row.failure_code),
        failureMessage: row.failure_message ?? 'The payment failed',
      };
    default:
      return { status: 'pending' };
  }
}

/**
 * The simulated receipt number of the sandbox transaction `providerReference` (docs/payments.md#payment-record
 * `provider_receipt_number`): `SBX` and 7 upper-case hex characters of the reference's SHA-256, stable per transaction,
 * the shape of a mobile-money receipt id.
 */
export function sandboxReceiptNumber(providerReference: string): string {
  return `SBX${createHash('sha256').update(providerReference).digest('hex').slice(0, 7).toUpperCase()}`;
}

/**
 * A ledger transaction as the provider's answer. `withNextAction` for initiation answers, which
 * carry the next action the simulator gave (null when it gave none).
 */
export function answerOf(row: SandboxTransaction, withNextAction = false): ProviderAnswer {
  const outcome = withReceiptNumber(outcomeOf(row), sandboxReceiptNumber(row.provider_reference));
  const answer: ProviderAnswer = { providerReference: row.provider_reference, outcome };
  return withNextAction ? { ...answer, nextAction: row.next_action ?? null } : answer;
}

/**
 * A ledger refund as the provider's answer about it: `pending` until decided, then `succeeded`
 * with the provider's refund reference (`{code}_rf_` + the key's last 24 characters, stable per key).
 */
export function refundAnswerOf(code: string, row: SandboxRefund): RefundAnswer {
  if (row.status === 'pending') return { status: 'pending' };
  return { status: 'succeeded', refundReference: `${code}_rf_${row.idempotency_key.slice(-24)}` };
}
