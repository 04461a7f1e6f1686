/**
 * Sandbox provider simulators (D14, D15, D16), one per provider code, sharing one ledger. They
 * behave as the live providers do at the boundary: initiation gives the provider's reference and
 * next action, answers can be definite, unknown (a time-out) or late, callbacks are sent to the
 * API, and a flow the real provider lacks is declared unsupported.
 * - customer-number providers (mobile money A/B/C, wallet): the number's last four digits decide
 *   (docs/payments.md, "Sandbox scenarios"); a request cannot be withdrawn (cancel unsupported);
 * - bank transfer: waits for the transfer (`POST /v1/sandbox/payments/{id}/simulate`) or settles
 *   after the configured delay (30 s);
 * - card gateway: waits for the card confirmation (`POST /v1/sandbox/card-gateway/confirm`) with the
 *   client secret it gave.
 */
import { randomBytes } from 'node:crypto';
import type { ProviderCode } from '../../domain/catalogue';
import { randomBase62 } from '../../domain/ids';
import type { NextAction } from '../../domain/payment-record';
import {
  bankTransferReference,
  behaviourForNumber,
  DOOR_TIMEOUT_SUCCESS_MS,
  LATE_SUCCESS_AFTER_EXPIRY_MS,
  SANDBOX_BANK_ACCOUNT,
  type SandboxBehaviour,
} from '../../domain/sandbox';
import type { Db } from '../../db/knex';
import {
  decideSandboxTransaction,
  findSandboxRefund,
  findSettledSandboxTransaction,
  insertSandboxTransaction,
  refundSandboxTransaction,
  scheduleSandboxCallbacks,
  type ScheduledCallback,
  type SandboxTransaction,
} from '../../db/sandbox-ledger';
import { newId } from '../../lib/ids';
import {
  ProviderRefusal,
  ProviderUnsupported,
  type CallbackRequest,
  type InitiateRequest,
  type ParsedCallback,
  type PaymentProvider,
  type ProviderAnswer,
  type RefundAnswer,
  type RefundRequest,
} from '../provider';
import { parseSandboxCallback } from './callback';
import { answerOf, refundAnswerOf, type SandboxStatus } from './statuses';

/** What the simulators need: the database, a clock, delays in milliseconds and the callback secret. */
export interface SandboxDeps {
  db: Db;
  now: () => Date;
  /** Simulated customer approval for customer-number providers (D14: 3 s). */
  approvalDelayMs: number;
  /** Simulated bank transfer arrival (D14: 30 s). */
  bankTransferDelayMs: number;
  /** How long a `0007` refund's answer stays unknown (D14: ~20 s). */
  refundUnknownMs?: number;
  /** HMAC secret of simulated provider callbacks. */
  callbackSecret: string;
}

/** How a simulator decides. */
export type SandboxMode = 'customer_number' | 'bank_transfer' | 'card';

/** `0005`: the duplicate and the out-of-order callback follow the first by these delays, in milliseconds. */
const DUPLICATE_CALLBACK_DELAYS_MS = [0, 500, 1_000] as const;

/** The next action the simulated provider gives (D16): it, not the service, makes it up. */
function nextActionFor(mode: SandboxMode, request: InitiateRequest, providerReference: string): NextAction {
  if (mode === 'card') return { type: 'card_confirm', client_secret: `${providerReference}_secret_${randomBase62(24, randomBytes)}` };
  if (mode === 'bank_transfer') return { type: 'bank_transfer', ...SANDBOX_BANK_ACCOUNT, reference: bankTransferReference(request.paymentId) };
  return { type: 'mobile_money_approval', message: `A payment prompt was sent to ${request.customer}; the customer approves it with their PIN` };
}

/** When the simulated customer approves a request of `behaviour`, if ever. */
function settleAt(behaviour: SandboxBehaviour, request: InitiateRequest, now: Date, approvalDelayMs: number): Date | null {
  switch (behaviour.kind) {
    case 'no_answer':
    case 'instant_success':
    case 'decline':
      return null;
    case 'late_success':
      return new Date(Date.parse(request.expiresAt) + LATE_SUCCESS_AFTER_EXPIRY_MS);
    case 'initiation_timeout':
      return new Date(now.getTime() + DOOR_TIMEOUT_SUCCESS_MS);
    default:
      return new Date(now.getTime() + approvalDelayMs);
  }
}

/** A simulated provider of `code` deciding as `mode` says. */
export function createSandboxProvider(code: ProviderCode, mode: SandboxMode, deps: SandboxDeps): PaymentProvider {
  async function find(reference: string): Promise<SandboxTransaction> {
    const row = await findSettledSandboxTransaction(deps.db, reference, deps.now());
    if (!row || row.provider !== code) throw new ProviderRefusal(`unknown ${code} reference ${reference}`);
    return row;
  }

  /** The callbacks a transaction's scenario sends once the customer acted. */
  function callbacksOf(row: SandboxTransaction, behaviour: SandboxBehaviour | undefined): ScheduledCallback[] {
    if (!row.callback_url || !row.settle_at) return [];
    const statuses: SandboxStatus[] = behaviour?.kind === 'duplicate_callbacks' ? ['succeeded', 'succeeded', 'pending'] : ['succeeded'];
    return statuses.map((status, i) => ({
      provider: code,
      providerReference: row.provider_reference,
      callbackUrl: row.callback_url as string,
      body: JSON.stringify({ provider_reference: row.provider_reference, status }),
      dueAt: new Date((row.settle_at as Date).getTime() + (DUPLICATE_CALLBACK_DELAYS_MS[i] ?? 0)),
    }));
  }

  return {
    code,
    supports: { cancel: mode !== 'customer_number', refund: true },

    async initiate(request: InitiateRequest): Promise<ProviderAnswer> {
      const now = deps.now();
      const providerReference = newId(`${code}_`);
      const nextAction = nextActionFor(mode, request, providerReference);
      const behaviour = mode === 'customer_number' ? behaviourForNumber(request.customer) : undefined;
      const row: SandboxTransaction = {
        provider_reference: providerReference,
        provider: code,
        idempotency_key: request.idempotencyKey,
        payment_id: request.paymentId,
        customer: request.customer,
        amount: request.amount,
        currency: request.currency,
        status: behaviour?.kind === 'instant_success' ? 'succeeded' : behaviour?.kind === 'decline' ? 'failed' : 'pending',
        failure_code: behaviour?.kind === 'decline' ? behaviour.failureCode : null,
        failure_message: behaviour?.kind === 'decline' ? behaviour.failureMessage : null,
        settle_at: mode === 'bank_transfer' ? new Date(now.getTime() + deps.bankTransferDelayMs) : behaviour ? settleAt(behaviour, request, now, deps.approvalDelayMs) : null,
        next_action: nextAction,
        client_secret: nextAction.type === 'card_confirm' ? nextAction.client_secret : null,
        callback_url: request.callbackUrl,
      };
      const { transaction, inserted } = await insertSandboxTransaction(deps.db, row);
      if (inserted) {
        await scheduleSandboxCallbacks(deps.db, callbacksOf(transaction, behaviour));
        // 0008: the provider took the request, but its answer never reached us.
        if (behaviour?.kind === 'initiation_timeout') throw new Error(`${code} did not answer (simulated time-out at initiation)`);
      }
      return answerOf((await findSettledSandboxTransaction(deps.db, transaction.provider_reference, deps.now())) ?? transaction, true);
    },

    async fetchStatus(reference: string): Promise<ProviderAnswer> {
      return answerOf(await find(reference));
    },

    async cancel(reference: string): Promise<ProviderAnswer> {
      if (mode === 'customer_number') throw new ProviderUnsupported(code, 'cancel');
      await find(reference);
      const row = await decideSandboxTransaction(deps.db, reference, { status: 'cancelled' }, deps.now());
      return answerOf(row as SandboxTransaction);
    },

    async refund(request: RefundRequest): Promise<RefundAnswer> {
      const row = await find(request.providerReference);
      const behaviour = mode === 'customer_number' ? behaviourForNumber(row.customer) : undefined;
      if (behaviour?.kind === 'refunds_refused') return { status: 'failed', failureMessage: 'the provider refused the refund' };
      const unknown = behaviour?.kind === 'refund_answer_unknown';
      const decideAt = unknown ? new Date(deps.now().getTime() + (deps.refundUnknownMs ?? 20_000)) : null;
      const refund = await refundSandboxTransaction(deps.db, request.providerReference, request.idempotencyKey, request.amount, decideAt);
      if (!refund) return { status: 'failed', failureMessage: 'the provider refused the refund: nothing left to refund' };
      // 0007: the provider took the refund, but its answer is lost until it decides.
      const stored = (await findSandboxRefund(deps.db, request.idempotencyKey, deps.now())) ?? refund;
      if (stored.status === 'pending') throw new Error(`${code} did not answer the refund (simulated time-out)`);
      return refundAnswerOf(code, stored);
    },

    async fetchRefund(request: RefundRequest): Promise<RefundAnswer | { status: 'not_received' }> {
      const refund = await findSandboxRefund(deps.db, request.idempotencyKey, deps.now());
      if (!refund) return { status: 'not_received' };
      return refundAnswerOf(code, refund);
    },

    parseCallback(request: CallbackRequest): ParsedCallback {
      return parseSandboxCallback(request, deps.callbackSecret);
    },
  };
}
