/**
 * Creating, reading, cancelling and refunding payments (D5, D6, D10–D13, D20). Creation starts the
 * payment's workflow first and then writes the read model, so a payment is never stored without the
 * workflow that will finish it; the workflow's first activity writes the same row idempotently.
 * Cancel and refund are Updates of that workflow, so the answer is what the workflow decided (D12).
 */
import { randomBytes } from 'node:crypto';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import { findPayment, insertPaymentWithCreatedEvent } from '../db/payments';
import { PROVIDER_KINDS, type MethodKind, type PaymentMethod, type ProviderCode } from '../domain/catalogue';
import { providerUnavailable, type ResolvedPayment } from '../domain/create-payment';
import { DomainError, ERROR_CODES, type ErrorCode } from '../domain/errors';
import { feeFor } from '../domain/fees';
import { ID_PREFIXES, randomBase62 } from '../domain/ids';
import type { Currency } from '../domain/money';
import { isOpen } from '../domain/payment';
import type { NextAction, PaymentSnapshot } from '../domain/payment-record';
import type { Principal } from '../domain/principal';
import type { RefundRecord } from '../domain/refund';
import { bankTransferReference, SANDBOX_BANK_ACCOUNT } from '../domain/sandbox';
import { paymentEvent } from '../lib/events';
import { audit, auditEntry } from './audit';
import { newId } from '../lib/ids';
import type { ProviderAnswer } from '../providers/provider';
import type { ProviderRegistry } from '../providers/registry';
import {
  cancelPaymentUpdate,
  EnvironmentAttribute,
  MerchantIdAttribute,
  PaymentMethodAttribute,
  PaymentStatusAttribute,
  paymentWorkflowId,
  providerCallbackSignal,
  refundPaymentUpdate,
  type PaymentWorkflowInput,
} from '../workflows/messages';

/** What the payment service needs. */
export interface PaymentServiceDeps {
  db: Db;
  temporal: Client;
  providers: ProviderRegistry;
  config: Pick<
    Config,
    | 'TEMPORAL_TASK_QUEUE'
    | 'EXPIRY_MOBILE_MONEY_SECONDS'
    | 'EXPIRY_BANK_TRANSFER_SECONDS'
    | 'EXPIRY_CARD_SECONDS'
    | 'EXPIRY_WALLET_SECONDS'
    | 'REFUND_WINDOW_DAYS'
  >;
}

/** A payment to create once its request was validated and resolved to a provider. */
export interface NewPayment {
  family: PaymentSnapshot['family'];
  amount: number;
  currency: Currency;
  paymentMethod: PaymentMethod;
  resolved: ResolvedPayment & { walletId?: string };
  description?: string;
  customerEmail?: string;
  metadata?: Record<string, string>;
}

function expirySeconds(config: PaymentServiceDeps['config'], kind: MethodKind): number {
  switch (kind) {
    case 'mobile_money':
      return config.EXPIRY_MOBILE_MONEY_SECONDS;
    case 'bank_transfer':
      return config.EXPIRY_BANK_TRANSFER_SECONDS;
    case 'card':
      return config.EXPIRY_CARD_SECONDS;
    case 'wallet':
      return config.EXPIRY_WALLET_SECONDS;
  }
}

/** What the customer or front end does next (D10): where to transfer to, or the card's client secret (D15). */
function nextActionFor(provider: ProviderCode, paymentId: string): NextAction | null {
  if (provider === 'bank_transfer') return { type: 'bank_transfer', ...SANDBOX_BANK_ACCOUNT, reference: bankTransferReference(paymentId) };
  if (provider === 'card_gateway') return { type: 'card_confirm', client_secret: `${paymentId}_secret_${randomBase62(24, randomBytes)}` };
  return null;
}

/**
 * Creates a payment of either family for the caller's merchant and environment: builds the record,
 * starts its workflow (D20) with the search attributes, then writes the read model, `payment.created`
 * and the audit entry in one statement (the workflow's first activity starts the deliveries, D22).
 * @returns the payment in status `pending`
 * @throws DomainError `provider_unavailable` (503) in live mode without an adapter (D16)
 */
export async function createPayment(deps: PaymentServiceDeps, owner: Principal, request: NewPayment, ip: string | null = null): Promise<PaymentSnapshot> {
  const { provider } = request.resolved;
  if (!deps.providers.get(owner.environment, provider)) throw providerUnavailable(request.paymentMethod);
  const now = new Date();
  const id = newId(ID_PREFIXES.payment);
  const kind = PROVIDER_KINDS[provider];
  const payment: PaymentSnapshot = {
    id,
    merchantId: owner.merchantId,
    environment: owner.environment,
    family: request.family,
    amount: request.amount,
    amountRefunded: 0,
    currency: request.currency,
    status: 'pending',
    paymentMethod: request.paymentMethod,
    provider,
    kind,
    description: request.description ?? null,
    customerPhone: request.resolved.customerPhone ?? null,
    customerEmail: request.customerEmail ?? null,
    walletId: request.resolved.walletId ?? null,
    metadata: request.metadata ?? {},
    feeAmount: feeFor(request.amount, provider),
    failureCode: null,
    failureMessage: null,
    cancellationReason: null,
    providerReference: null,
    nextAction: nextActionFor(provider, id),
    expiresAt: new Date(now.getTime() + expirySeconds(deps.config, kind) * 1000).toISOString(),
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    version: 0,
  };
  const input: PaymentWorkflowInput = { payment, refundWindowSeconds: deps.config.REFUND_WINDOW_DAYS * 86_400 };
  await deps.temporal.workflow.start('paymentWorkflow', {
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    workflowId: paymentWorkflowId(payment.id),
    args: [input],
    typedSearchAttributes: [
      { key: MerchantIdAttribute, value: payment.merchantId },
      { key: EnvironmentAttribute, value: payment.environment },
      { key: PaymentMethodAttribute, value: payment.paymentMethod },
      { key: PaymentStatusAttribute, value: payment.status },
    ],
  });
  await insertPaymentWithCreatedEvent(deps.db, payment, paymentEvent(payment, 'payment.created'), auditEntry(owner, 'payment.created', payment.id, ip));
  // D22: the `payment.created` deliveries are started by the workflow's first activity, after this
  // same (idempotent) write, so one place starts them whichever of the two writes came first.
  return payment;
}

/**
 * The payment `id` of the caller's merchant and environment.
 * @throws DomainError `not_found` for unknown and foreign ids alike (D1)
 */
export async function getPayment(deps: Pick<PaymentServiceDeps, 'db'>, owner: Principal, id: string): Promise<PaymentSnapshot> {
  const payment = await findPayment(deps.db, owner, id);
  if (!payment) throw new DomainError('not_found', `no payment with id ${id}`);
  return payment;
}

/** Maps a refused Update back to the D51 error the workflow named; rethrows anything else. */
function updateRefusal(error: unknown, closedCode: ErrorCode, closedMessage: string): never {
  if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
    const code = error.cause.type as ErrorCode;
    if (ERROR_CODES.includes(code)) throw new DomainError(code, error.cause.message);
  }
  if (error instanceof WorkflowNotFoundError) throw new DomainError(closedCode, closedMessage);
  throw error;
}

/**
 * Cancels a pending or processing payment (D11, D12) through the workflow's Update.
 * @returns the cancelled payment
 * @throws DomainError `not_found`, `payment_not_cancellable` (409, also when a provider success
 *   won the race), `provider_unavailable`
 */
export async function cancelPayment(
  deps: PaymentServiceDeps,
  owner: Principal,
  id: string,
  reason: string | undefined,
  ip: string | null = null,
): Promise<PaymentSnapshot> {
  const payment = await getPayment(deps, owner, id);
  const closed = `a ${payment.status} payment cannot be cancelled; only pending and processing payments can`;
  if (!isOpen(payment.status)) throw new DomainError('payment_not_cancellable', closed);
  let cancelled: PaymentSnapshot;
  try {
    cancelled = await deps.temporal.workflow.getHandle(paymentWorkflowId(id)).executeUpdate(cancelPaymentUpdate, { args: [{ reason }] });
  } catch (error) {
    updateRefusal(error, 'payment_not_cancellable', closed);
  }
  await audit(deps.db, owner, 'payment.cancelled', id, ip);
  return cancelled;
}

/**
 * Refunds part (`amount` minor units) or all of a completed payment (D11, D12).
 * @returns the refund, `completed` or `failed` as the provider answered
 * @throws DomainError `not_found`, `payment_not_refundable` (409), `amount_exceeds_refundable` (400)
 */
export async function refundPayment(
  deps: PaymentServiceDeps,
  owner: Principal,
  id: string,
  request: { amount?: number; reason?: string },
  ip: string | null = null,
): Promise<RefundRecord> {
  const payment = await getPayment(deps, owner, id);
  const closed = `a ${payment.status} payment cannot be refunded; only completed payments can`;
  if (payment.status !== 'completed') throw new DomainError('payment_not_refundable', closed);
  const refundId = newId(ID_PREFIXES.refund);
  let refund: RefundRecord;
  try {
    refund = await deps.temporal.workflow
      .getHandle(paymentWorkflowId(id))
      .executeUpdate(refundPaymentUpdate, { args: [{ refundId, amount: request.amount, reason: request.reason }], updateId: refundId });
  } catch (error) {
    updateRefusal(error, 'payment_not_refundable', closed);
  }
  await audit(deps.db, owner, 'refund.created', refund.id, ip);
  return refund;
}

/**
 * Hands a provider's answer about a payment to its workflow (D16): the callback route, the sandbox
 * card gateway and the bank transfer simulator all end here.
 */
export async function deliverProviderAnswer(temporal: Client, paymentId: string, answer: ProviderAnswer): Promise<void> {
  await temporal.workflow.getHandle(paymentWorkflowId(paymentId)).signal(providerCallbackSignal, answer);
}
