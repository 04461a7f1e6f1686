/**
 * Sandbox simulator of a mobile money operator (D14, D16): the MSISDN's last four digits decide the
 * outcome (src/domain/sandbox.ts). Serves operators A, B and C under their own provider codes.
 */
import type { ProviderCode } from '../domain/catalogue';
import type { ProviderOutcome } from '../domain/payment';
import { behaviourForNumber } from '../domain/sandbox';
import type { Db } from '../db/knex';
import { findSettledSandboxTransaction, insertSandboxTransaction, type SandboxTransaction } from '../db/sandbox-ledger';
import { newId } from '../lib/ids';
import { ProviderError, type InitiateRequest, type PaymentProvider, type ProviderAnswer } from './provider';

/** What the simulator needs: the database, its clock and the approval delay in milliseconds. */
export interface SandboxDeps {
  db: Db;
  now: () => Date;
  approvalDelayMs: number;
}

/** Maps the simulated operator's status onto ours: an accepted request is `processing` (D11). */
function toAnswer(row: SandboxTransaction): ProviderAnswer {
  let outcome: ProviderOutcome;
  if (row.status === 'succeeded') outcome = { status: 'completed' };
  else if (row.status === 'failed') {
    outcome = {
      status: 'failed',
      failureCode: (row.failure_code ?? 'declined') as 'declined',
      failureMessage: row.failure_message ?? 'The payment failed',
    };
  } else outcome = { status: 'processing' };
  return { providerReference: row.provider_reference, outcome };
}

/** A simulated mobile money operator answering as D14 says. */
export function createSandboxMobileMoney(code: ProviderCode, deps: SandboxDeps): PaymentProvider {
  return {
    code,
    async initiate(request: InitiateRequest): Promise<ProviderAnswer> {
      const now = deps.now();
      const behaviour = behaviourForNumber(request.customer);
      const base = {
        provider_reference: newId(`${code}_`),
        provider: code,
        idempotency_key: request.idempotencyKey,
        payment_id: request.paymentId,
        customer: request.customer,
        amount: request.amount,
        currency: request.currency,
        failure_code: null,
        failure_message: null,
        settle_at: null,
      };
      let row: SandboxTransaction;
      switch (behaviour.kind) {
        case 'instant_success':
          row = { ...base, status: 'succeeded' };
          break;
        case 'decline':
          row = { ...base, status: 'failed', failure_code: behaviour.failureCode, failure_message: behaviour.failureMessage };
          break;
        case 'no_answer':
          row = { ...base, status: 'pending' };
          break;
        case 'approve_after_delay':
          row = { ...base, status: 'pending', settle_at: new Date(now.getTime() + deps.approvalDelayMs) };
          break;
      }
      return toAnswer(await insertSandboxTransaction(deps.db, row));
    },
    async fetchStatus(providerReference: string): Promise<ProviderAnswer> {
      const row = await findSettledSandboxTransaction(deps.db, providerReference, deps.now());
      if (!row || row.provider !== code) throw new ProviderError(`unknown ${code} reference ${providerReference}`);
      return toAnswer(row);
    },
  };
}
