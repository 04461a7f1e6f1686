/**
 * The simulated providers' own statuses mapped onto ours (D16), as every adapter's `statuses.ts`
 * maps its provider's: a transaction still awaiting the customer is `processing` once the provider
 * took it (the customer has the prompt), a success `completed`, a refusal `failed` with its reason.
 */
import type { FailureCode, ProviderOutcome } from '../../domain/payment';
import type { SandboxRefund, SandboxTransaction } from '../../db/sandbox-ledger';
import type { ProviderAnswer, RefundAnswer } from '../provider';

/** The simulator's word for a transaction's state. */
export type SandboxStatus = SandboxTransaction['status'];

/** What a callback claiming `status` claims, in our statuses. */
export function claimedStatusOf(status: SandboxStatus): ProviderOutcome['status'] {
  switch (status) {
    case 'succeeded':
      return 'completed';
    case 'failed':
      return 'failed';
    case 'cancelled':
      return 'cancelled';
    default:
      return 'processing';
  }
}

/** A ledger transaction as the provider's answer; `withNextAction` for initiation answers, which carry the next action it gave. */
export function answerOf(row: SandboxTransaction, withNextAction = false): ProviderAnswer {
  let outcome: ProviderOutcome;
  switch (row.status) {
    case 'succeeded':
      outcome = { status: 'completed' };
      break;
    case 'cancelled':
      outcome = { status: 'cancelled' };
      break;
    case 'failed':
      outcome = {
        status: 'failed',
        failureCode: (row.failure_code ?? 'declined') as FailureCode,
        failureMessage: row.failure_message ?? 'The payment failed',
      };
      break;
    default:
      outcome = { status: 'processing' };
  }
  return withNextAction ? { providerReference: row.provider_reference, outcome, nextAction: row.next_action ?? null } : { providerReference: row.provider_reference, outcome };
}

/** A ledger refund as the provider's answer about it. */
export function refundAnswerOf(code: string, row: SandboxRefund): RefundAnswer {
  if (row.status === 'pending') return { status: 'pending' };
  return { status: 'succeeded', refundReference: `${code}_rf_${row.idempotency_key.slice(-24)}` };
}
