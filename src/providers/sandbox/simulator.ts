/**
 * Sandbox provider simulators (docs/payments.md#sandbox-scenarios, docs/payments.md#card-payments,
 * docs/providers.md#adapters), one per provider code, sharing one ledger
 * (./ledger.ts). They behave as live providers do at the boundary: initiation gives the
 * provider's reference and its own next action, answers can be definite, unknown (a time-out) or
 * late, signed callbacks are scheduled for the API (sent by ./callback-pump.ts), and a flow the
 * real provider lacks is declared unsupported: a simulator offers exactly its provider's live capabilities (the
 * descriptor's `live`), or its kind's defaults when the provider has no live adapter (`PROVIDER_CAPABILITIES`).
 * - `customer_number` (momo, mobile_money_b, mpesa, mobile_money_c, wallet): the number's last four digits
 *   decide (`behaviourForNumber`, docs/payments.md "Sandbox scenarios"); a request cannot be
 *   withdrawn (as MTN MoMo's requesttopay): `supports.cancel` is false and cancel throws;
 * - `bank_transfer`: waits for the transfer (`POST /v1/sandbox/payments/{id}/simulate`) or settles
 *   after `bankTransferDelayMs`;
 * - `card`: waits for the card confirmation (`POST /v1/sandbox/card-gateway/confirm`) with the
 *   client secret it gave, decided by `behaviourForCard`.
 */
import { randomBytes } from 'node:crypto';
import { PROVIDER_CAPABILITIES, type ProviderCode } from '../../domain/catalogue';
import { randomBase62 } from '../../domain/ids';
import type { NextAction } from '../../domain/payment';
import {
  bankTransferReference,
  behaviourForNumber,
  CLIENT_SECRET_RANDOM_LENGTH,
  clientSecretFor,
  DOOR_TIMEOUT_SUCCESS_MS,
  LATE_SUCCESS_AFTER_EXPIRY_MS,
  SANDBOX_BANK_ACCOUNT,
  type SandboxBehaviour,
} from '../../domain/sandbox';
import type { SandboxLedger, SandboxTransaction, ScheduledCallback } from '../../domain/sandbox-ledger';
import { newId } from '../../lib/ids';
import { ProviderRefusal, ProviderUnsupported, type InitiateRequest, type PaymentProvider } from '../provider';
import { parseSandboxCallback, type SandboxCallbackBody } from './callback';
import { answerOf, refundAnswerOf, type SandboxStatus } from './statuses';

/** What the simulators need: their ledger, a clock, delays in milliseconds and the callback secret. */
export interface SandboxDeps {
  ledger: SandboxLedger;
  /** The simulators' clock (settle times, refund decisions, callback due times). */
  now: () => Date;
  /**
   * Simulated customer approval for customer-number providers, in milliseconds (docs/payments.md#sandbox-scenarios: 3
   * s).
   */
  approvalDelayMs: number;
  /** Simulated bank transfer arrival, in milliseconds (docs/payments.md#sandbox-scenarios: 30 s). */
  bankTransferDelayMs: number;
  /**
   * How long a `0007` refund's answer stays unknown, in milliseconds (docs/payments.md#sandbox-scenarios: ~20 s;
   * default 20000).
   */
  refundUnknownMs?: number;
  /** HMAC secret of simulated provider callbacks (PROVIDER_CALLBACK_SECRET). */
  callbackSecret: string;
}

/** How a simulator decides: by the customer's number, by a bank transfer, by a card confirmation. */
export type SandboxMode = 'customer_number' | 'bank_transfer' | 'card';

/**
 * `0007`: how long a refund's answer stays unknown unless configured, in milliseconds
 * (docs/payments.md#sandbox-scenarios).
 */
export const DEFAULT_REFUND_UNKNOWN_MS = 20_000;

/** `0005`: the callbacks it sends at its settle time, in order, and how long after it each is due (ms). */
const DUPLICATE_CALLBACKS: readonly { status: SandboxStatus; afterMs: number }[] = [
  { status: 'succeeded', afterMs: 0 },
  { status: 'succeeded', afterMs: 500 },
  { status: 'pending', afterMs: 1_000 },
];

/** The next action the simulated provider gives (docs/providers.md#adapters): it, not the service, makes it up. */
function nextActionFor(mode: SandboxMode, request: InitiateRequest, providerReference: string): NextAction {
  switch (mode) {
    case 'card':
      return {
        type: 'card_confirm',
        client_secret: clientSecretFor(providerReference, randomBase62(CLIENT_SECRET_RANDOM_LENGTH, randomBytes)),
      };
    case 'bank_transfer':
      return { type: 'bank_transfer', ...SANDBOX_BANK_ACCOUNT, reference: bankTransferReference(request.paymentId) };
    default:
      return {
        type: 'mobile_money_approval',
        message: `A payment prompt was sent to ${request.customer}; the customer approves it on their phone`,
      };
  }
}

/** When a customer-number request of `behaviour` succeeds by itself, if ever. */
function settleAtForNumber(
  behaviour: SandboxBehaviour,
  request: InitiateRequest,
  now: Date,
  approvalDelayMs: number,
): Date | null {
  switch (behaviour.kind) {
    case 'instant_success':
    case 'decline':
    case 'no_answer':
    case 'provider_error':
    case 'silent_until_expiry':
      return null;
    case 'late_success':
      return new Date(Date.parse(request.expiresAt) + LATE_SUCCESS_AFTER_EXPIRY_MS);
    case 'initiation_timeout':
      return new Date(now.getTime() + DOOR_TIMEOUT_SUCCESS_MS);
    default:
      // approve_after_delay, and 0005-0007, which approve like any other number.
      return new Date(now.getTime() + approvalDelayMs);
  }
}

/** The ledger's first state of a customer-number request of `behaviour`. */
function initialStateOf(
  behaviour: SandboxBehaviour | undefined,
): Pick<SandboxTransaction, 'status' | 'failure_code' | 'failure_message'> {
  if (behaviour?.kind === 'instant_success') return { status: 'succeeded', failure_code: null, failure_message: null };
  // 0002: the provider accepted the request and the customer refused it (as today: accepted, failed).
  if (behaviour?.kind === 'decline')
    return { status: 'failed', failure_code: behaviour.failureCode, failure_message: behaviour.failureMessage };
  return { status: 'pending', failure_code: null, failure_message: null };
}

/**
 * A simulated provider of `code` deciding as `mode` says (see the module's comment), on the ledger
 * `deps.ledger`. Implements {@link PaymentProvider} with its three-valued answers: values, a
 * {@link ProviderRefusal} for an unknown reference or a bad callback, plain errors for the simulated
 * time-outs (`0007` refunds, `0008` initiation), {@link ProviderUnsupported} for cancel of a
 * customer-number request.
 */
export function createSandboxProvider(code: ProviderCode, mode: SandboxMode, deps: SandboxDeps): PaymentProvider {
  const refundUnknownMs = deps.refundUnknownMs ?? DEFAULT_REFUND_UNKNOWN_MS;
  // Exactly what the provider's live adapter offers (its descriptor's `live`), so sandbox never refunds or cancels
  // what live refuses; the defaults of its kind for a provider without one (docs/payments.md#sandbox-scenarios).
  const supports = PROVIDER_CAPABILITIES[code];

  /** The transaction `reference` of this simulator, settled when due. */
  async function find(reference: string): Promise<SandboxTransaction> {
    const row = await deps.ledger.findSettledTransaction(reference, deps.now());
    if (!row || row.provider !== code) throw new ProviderRefusal(`unknown ${code} reference ${reference}`);
    return row;
  }

  /** The scenario of a transaction: its number's for customer-number providers, none for others. */
  function behaviourOf(customer: string): SandboxBehaviour | undefined {
    return mode === 'customer_number' ? behaviourForNumber(customer) : undefined;
  }

  /**
   * The callbacks a new transaction's scenario will send: at its settle time (`0005`: three of them); none without a
   * URL or a settle time.
   */
  function callbacksOf(row: SandboxTransaction, behaviour: SandboxBehaviour | undefined): ScheduledCallback[] {
    if (!row.callback_url || !row.settle_at) return [];
    const sends =
      behaviour?.kind === 'duplicate_callbacks' ? DUPLICATE_CALLBACKS : [{ status: 'succeeded' as const, afterMs: 0 }];
    return sends.map(({ status, afterMs }) => {
      const body: SandboxCallbackBody = { provider_reference: row.provider_reference, status };
      return {
        provider: code,
        providerReference: row.provider_reference,
        callbackUrl: row.callback_url as string,
        body: JSON.stringify(body),
        dueAt: new Date((row.settle_at as Date).getTime() + afterMs),
      };
    });
  }

  return {
    code,
    supports,

    async initiate(request) {
      const now = deps.now();
      const providerReference = newId(`${code}_`);
      const nextAction = nextActionFor(mode, request, providerReference);
      const behaviour = behaviourOf(request.customer);
      // 0010: an error of the provider's own, at once; nothing is taken.
      if (behaviour?.kind === 'provider_error')
        throw new ProviderRefusal(`${code} could not process the request (simulated provider error)`, 'provider_error');
      const row: SandboxTransaction = {
        provider_reference: providerReference,
        provider: code,
        idempotency_key: request.idempotencyKey,
        payment_id: request.paymentId,
        customer: request.customer,
        amount: request.amount,
        currency: request.currency,
        ...initialStateOf(behaviour),
        settle_at:
          mode === 'bank_transfer'
            ? new Date(now.getTime() + deps.bankTransferDelayMs)
            : behaviour
              ? settleAtForNumber(behaviour, request, now, deps.approvalDelayMs)
              : null,
        next_action: nextAction,
        client_secret: nextAction.type === 'card_confirm' ? nextAction.client_secret : null,
        callback_url: request.callbackUrl,
        silent_until: behaviour?.kind === 'silent_until_expiry' ? new Date(request.expiresAt) : null,
      };
      // Idempotent on the key: a repeated call finds the first transaction and its next action.
      const { transaction, inserted } = await deps.ledger.insertTransaction(row, callbacksOf(row, behaviour));
      if (transaction.provider !== code)
        throw new ProviderRefusal(`idempotency key ${request.idempotencyKey} belongs to another provider's request`);
      // 0008: the provider took the request, but its answer never reached us; a retry finds it.
      if (inserted && behaviour?.kind === 'initiation_timeout')
        throw new Error(`${code} did not answer in time (simulated time-out at initiation)`);
      // A transaction this call wrote and that nothing has settled since is its own answer; any other is read as it
      // stands now.
      const fresh = inserted && (transaction.settle_at === null || transaction.settle_at.getTime() > now.getTime());
      return answerOf(fresh ? transaction : await find(transaction.provider_reference), true);
    },

    async fetchStatus(reference) {
      const row = await find(reference);
      // 0011: no usable answer until the payment's expiry, as a provider that times out.
      if (row.silent_until && deps.now().getTime() < new Date(row.silent_until).getTime())
        throw new Error(`${code} did not answer in time (simulated silence until expiry)`);
      return answerOf(row);
    },

    async cancel(reference) {
      if (!supports.cancel) throw new ProviderUnsupported(code, 'cancel');
      await find(reference);
      // A transaction already decided keeps its decision: a cancel that races a success loses
      // (docs/payments.md#states).
      return answerOf(
        (await deps.ledger.decideTransaction(reference, { status: 'cancelled' }, deps.now())) as SandboxTransaction,
      );
    },

    async refund(request) {
      if (!supports.refund) throw new ProviderUnsupported(code, 'refund');
      // As the live adapter answers a partial refund it cannot make (docs/providers.md#adapters).
      if (!supports.partialRefund && request.amount !== request.paymentAmount)
        throw new ProviderRefusal(`${code} refunds the whole payment only: refund the full amount or nothing`);
      const row = await find(request.providerReference);
      const behaviour = behaviourOf(row.customer);
      // 0006: this provider refuses every refund (a definite answer; nothing is recorded).
      if (behaviour?.kind === 'refunds_refused')
        return { status: 'failed', failureMessage: 'the provider refused the refund' };
      const decideAt =
        behaviour?.kind === 'refund_answer_unknown' ? new Date(deps.now().getTime() + refundUnknownMs) : null;
      const result = await deps.ledger.refundTransaction(
        request.providerReference,
        request.idempotencyKey,
        request.amount,
        decideAt,
      );
      if ('refused' in result) {
        return {
          status: 'failed',
          failureMessage:
            result.refused === 'not_collected'
              ? 'the provider refused the refund: the payment was not collected'
              : 'the provider refused the refund: it exceeds what is left to refund',
        };
      }
      // 0007: the provider took the refund, but its answer is lost until it decides (ask with fetchRefund).
      const stored = (await deps.ledger.findRefund(request.idempotencyKey, deps.now())) ?? result.refund;
      if (stored.status === 'pending')
        throw new Error(`${code} did not answer the refund in time (simulated time-out)`);
      return refundAnswerOf(code, stored);
    },

    async fetchRefund(request) {
      const refund = await deps.ledger.findRefund(request.idempotencyKey, deps.now());
      // Never received (or refused, which records nothing): the caller may send it again with the same key.
      if (!refund || refund.provider_reference !== request.providerReference) return { status: 'not_received' };
      return refundAnswerOf(code, refund);
    },

    parseCallback(request) {
      return parseSandboxCallback(request, deps.callbackSecret);
    },
  };
}
