/**
 * Creating and reading payments (D5, D6, D10, D20). Creation starts the payment's workflow first and
 * then writes the read model, so a payment is never stored without the workflow that will finish it;
 * the workflow's first activity writes the same row idempotently.
 */
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import type { Principal } from '../domain/principal';
import type { Db } from '../db/knex';
import { findPayment, insertPaymentWithCreatedEvent } from '../db/payments';
import { PROVIDER_KINDS, type MethodKind } from '../domain/catalogue';
import { providerUnavailable, resolveGenericPayment } from '../domain/create-payment';
import { DomainError } from '../domain/errors';
import { feeFor } from '../domain/fees';
import { ID_PREFIXES } from '../domain/ids';
import type { PaymentSnapshot } from '../domain/payment-record';
import { paymentEvent } from '../lib/events';
import { newId } from '../lib/ids';
import type { ProviderRegistry } from '../providers/registry';
import {
  EnvironmentAttribute,
  MerchantIdAttribute,
  PaymentMethodAttribute,
  PaymentStatusAttribute,
  paymentWorkflowId,
  type PaymentWorkflowInput,
} from '../workflows/messages';
import type { GenericCreateBody } from '../api/schemas/payments';

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

/** Starts the payment's workflow (D20) with its search attributes, then writes the read model. */
async function startPayment(deps: PaymentServiceDeps, payment: PaymentSnapshot): Promise<void> {
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
  await insertPaymentWithCreatedEvent(deps.db, payment, paymentEvent(payment, 'payment.created'));
}

/**
 * Creates a generic payment (`POST /v1/payments`) for the key's merchant and environment.
 * @returns the payment in status `pending`
 * @throws DomainError `validation_error` for what list A does not serve, `provider_unavailable`
 *   (503) in live mode without an adapter (D16)
 */
export async function createGenericPayment(deps: PaymentServiceDeps, owner: Principal, body: GenericCreateBody): Promise<PaymentSnapshot> {
  const resolved = resolveGenericPayment({
    amount: body.amount,
    currency: body.currency,
    paymentMethod: body.payment_method,
    phoneNumber: body.phone_number,
    provider: body.provider,
  });
  if (!deps.providers.get(owner.environment, resolved.provider)) throw providerUnavailable(body.payment_method);
  const now = new Date();
  const kind = PROVIDER_KINDS[resolved.provider];
  const payment: PaymentSnapshot = {
    id: newId(ID_PREFIXES.payment),
    merchantId: owner.merchantId,
    environment: owner.environment,
    family: 'generic',
    amount: body.amount,
    amountRefunded: 0,
    currency: body.currency,
    status: 'pending',
    paymentMethod: body.payment_method,
    provider: resolved.provider,
    kind,
    description: body.description ?? null,
    customerPhone: resolved.customerPhone ?? null,
    customerEmail: body.customer_email ?? null,
    metadata: body.metadata ?? {},
    feeAmount: feeFor(body.amount, resolved.provider),
    failureCode: null,
    failureMessage: null,
    providerReference: null,
    nextAction: null,
    expiresAt: new Date(now.getTime() + expirySeconds(deps.config, kind) * 1000).toISOString(),
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
  await startPayment(deps, payment);
  return payment;
}

/**
 * The payment `id` of the owner's merchant and environment.
 * @throws DomainError `not_found` for unknown and foreign ids alike (D1)
 */
export async function getPayment(deps: Pick<PaymentServiceDeps, 'db'>, owner: Principal, id: string): Promise<PaymentSnapshot> {
  const payment = await findPayment(deps.db, owner, id);
  if (!payment) throw new DomainError('not_found', `no payment with id ${id}`);
  return payment;
}
