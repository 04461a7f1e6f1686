/**
 * Sandbox provider simulators (D14, D15, D16), one per provider code, sharing one ledger:
 * - customer-number providers (mobile money A/B/C, wallet): the number's last four digits decide;
 * - bank transfer: waits for the transfer (`POST /v1/sandbox/payments/{id}/simulate`) or settles
 *   after the configured delay (30 s);
 * - card gateway: waits for the card confirmation (`POST /v1/sandbox/card-gateway/confirm`).
 * Callbacks are signed `X-Provider-Signature: sha256=<hex HMAC-SHA256 of the raw body>` with the
 * configured callback secret, as a live provider's would be.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from '../lib/zod';
import type { ProviderCode } from '../domain/catalogue';
import type { FailureCode, ProviderOutcome } from '../domain/payment';
import { behaviourForNumber } from '../domain/sandbox';
import type { Db } from '../db/knex';
import {
  decideSandboxTransaction,
  findSettledSandboxTransaction,
  insertSandboxTransaction,
  refundSandboxTransaction,
  type SandboxTransaction,
} from '../db/sandbox-ledger';
import { newId } from '../lib/ids';
import {
  ProviderError,
  type InitiateRequest,
  type ParsedCallback,
  type PaymentProvider,
  type ProviderAnswer,
  type RefundAnswer,
  type RefundRequest,
} from './provider';

/** What the simulators need: the database, a clock, delays in milliseconds and the callback secret. */
export interface SandboxDeps {
  db: Db;
  now: () => Date;
  /** Simulated customer approval for customer-number providers (D14: 3 s). */
  approvalDelayMs: number;
  /** Simulated bank transfer arrival (D14: 30 s). */
  bankTransferDelayMs: number;
  /** HMAC secret of simulated provider callbacks. */
  callbackSecret: string;
}

/** How a simulator decides. */
export type SandboxMode = 'customer_number' | 'bank_transfer' | 'card';

/** Maps the simulated provider's status onto ours: an accepted request is `processing` (D11). */
export function answerOf(row: SandboxTransaction): ProviderAnswer {
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
  return { providerReference: row.provider_reference, outcome };
}

/** The body of a (simulated) provider callback (D16). */
export const callbackBody = z.object({
  provider_reference: z.string().min(1).max(100),
  status: z.enum(['pending', 'succeeded', 'failed', 'cancelled']),
  failure_code: z.enum(['declined', 'card_declined', 'insufficient_funds', 'provider_error']).optional(),
  failure_message: z.string().max(500).optional(),
});

/** Signs a callback body as the simulators (and tests) do: `sha256=<hex>`. */
export function signCallback(rawBody: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

function verifySignature(rawBody: string, signature: string | undefined, secret: string): boolean {
  if (!signature) return false;
  const expected = Buffer.from(signCallback(rawBody, secret));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** A simulated provider of `code` deciding as `mode` says. */
export function createSandboxProvider(code: ProviderCode, mode: SandboxMode, deps: SandboxDeps): PaymentProvider {
  async function find(reference: string): Promise<SandboxTransaction> {
    const row = await findSettledSandboxTransaction(deps.db, reference, deps.now());
    if (!row || row.provider !== code) throw new ProviderError(`unknown ${code} reference ${reference}`);
    return row;
  }

  return {
    code,

    async initiate(request: InitiateRequest): Promise<ProviderAnswer> {
      const now = deps.now();
      const base: SandboxTransaction = {
        provider_reference: newId(`${code}_`),
        provider: code,
        idempotency_key: request.idempotencyKey,
        payment_id: request.paymentId,
        customer: request.customer,
        amount: request.amount,
        currency: request.currency,
        status: 'pending',
        failure_code: null,
        failure_message: null,
        settle_at: null,
      };
      let row = base;
      if (mode === 'bank_transfer') {
        row = { ...base, settle_at: new Date(now.getTime() + deps.bankTransferDelayMs) };
      } else if (mode === 'customer_number') {
        const behaviour = behaviourForNumber(request.customer);
        if (behaviour.kind === 'instant_success') row = { ...base, status: 'succeeded' };
        else if (behaviour.kind === 'decline') {
          row = { ...base, status: 'failed', failure_code: behaviour.failureCode, failure_message: behaviour.failureMessage };
        } else if (behaviour.kind === 'approve_after_delay') {
          row = { ...base, settle_at: new Date(now.getTime() + deps.approvalDelayMs) };
        }
      }
      return answerOf(await insertSandboxTransaction(deps.db, row));
    },

    async fetchStatus(reference: string): Promise<ProviderAnswer> {
      return answerOf(await find(reference));
    },

    async cancel(reference: string): Promise<ProviderAnswer> {
      await find(reference);
      const row = await decideSandboxTransaction(deps.db, reference, { status: 'cancelled' }, deps.now());
      return answerOf(row as SandboxTransaction);
    },

    async refund(request: RefundRequest): Promise<RefundAnswer> {
      await find(request.providerReference);
      const ok = await refundSandboxTransaction(deps.db, request.providerReference, request.idempotencyKey, request.amount);
      return ok
        ? { status: 'succeeded', refundReference: `${code}_rf_${request.idempotencyKey.slice(-24)}` }
        : { status: 'failed', failureMessage: 'the provider refused the refund: nothing left to refund' };
    },

    parseCallback(rawBody: string, signature: string | undefined): ParsedCallback {
      if (!verifySignature(rawBody, signature, deps.callbackSecret)) throw new ProviderError('the callback signature is not valid');
      let json: unknown;
      try {
        json = JSON.parse(rawBody);
      } catch {
        throw new ProviderError('the callback body is not JSON');
      }
      const parsed = callbackBody.safeParse(json);
      if (!parsed.success) throw new ProviderError('the callback body is not a valid callback');
      const { provider_reference: providerReference, status } = parsed.data;
      const row: SandboxTransaction = {
        provider_reference: providerReference,
        provider: code,
        idempotency_key: '',
        payment_id: '',
        customer: '',
        amount: 0,
        currency: '',
        status,
        failure_code: parsed.data.failure_code ?? null,
        failure_message: parsed.data.failure_message ?? null,
        settle_at: null,
      };
      return answerOf(row);
    },
  };
}
