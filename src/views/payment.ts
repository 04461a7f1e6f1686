/**
 * The API's two forms of a payment (docs/payments.md#payment-record): the generic payment of `/v1/payments` (also the
 * `data` of payment events, docs/payments.md#events) and the merchant-scoped payment of `/v1/api/merchants/…`. Each
 * form is one zod schema, which the OpenAPI document shows and whose type the view function returns.
 */
import { z } from '../lib/zod';
import { formatFeePercentage } from '../domain/fees';
import { formatDecimalAmount } from '../domain/money';
import { PAYMENT_STATUSES, type PaymentSnapshot } from '../domain/payment';
import { paymentBalanceTransaction } from './balance';
import { timestamp } from './timestamp';

/** What the customer or front end does next (docs/payments.md#payment-record). */
export const nextAction = z
  .union([
    z.object({
      type: z.literal('bank_transfer'),
      bank_name: z.string(),
      account_name: z.string(),
      account_number: z.string(),
      reference: z.string(),
    }),
    z.object({ type: z.literal('card_confirm'), client_secret: z.string() }),
    z.object({ type: z.literal('mobile_money_approval'), message: z.string() }),
  ])
  .nullable()
  .openapi('NextAction', {
    description:
      'What the customer or your front end does next, as the provider gave it: transfer instructions, the card confirmation, or the mobile money prompt; null once nothing is awaited',
  });

/** The generic payment (docs/payments.md#payment-record); `amount` in minor units. */
export const genericPayment = z
  .object({
    id: z.string().openapi({ description: 'Payment id, `pay_` and 24 characters' }),
    object: z.literal('payment'),
    amount: z.number().int().openapi({
      description:
        "In the currency's minor unit (RWF and UGX have none: 1500 is RWF 1,500; KES, GHS, USD, EUR, GBP and LRD have two: 1500 is 15.00)",
    }),
    amount_refunded: z.number().int().openapi({ description: 'Refunded so far, in minor units' }),
    amount_refund_pending: z.number().int().openapi({
      description:
        'Held by refunds whose provider answer is not final yet, in minor units: not refunded yet and not refundable again; it moves to `amount_refunded` when such a refund completes and is released when it fails',
    }),
    currency: z.string().openapi({ description: 'ISO 4217 code' }),
    status: z.enum(PAYMENT_STATUSES).openapi({
      description:
        '`pending` (the provider has the request; waiting for the customer), `processing`, then `completed`, `failed`, `cancelled`, or `refunded` once fully refunded',
    }),
    payment_method: z.string(),
    provider: z.string(),
    description: z.string().nullable(),
    phone_number: z.string().optional(),
    customer_email: z.string().optional(),
    wallet_id: z.string().optional(),
    metadata: z.record(z.string(), z.string()),
    failure_code: z.string().nullable(),
    failure_message: z.string().nullable(),
    cancellation_reason: z.string().nullable(),
    next_action: nextAction,
    client_secret: z
      .string()
      .optional()
      .openapi({ description: 'Card payments: what your front end confirms the card with' }),
    environment: z.enum(['sandbox', 'live']),
    expires_at: timestamp.openapi({ description: 'When a payment still open fails with `failure_code` `expired`' }),
    balance_transaction: z.string().nullable().openapi({
      description:
        'The balance transaction (`txn_…`) that credited you once the provider collected the money; null before or without it',
    }),
    reconciled_at: timestamp.nullable().openapi({
      description:
        'Set when a provider success that arrived after the payment had failed (expired or provider error) completed it',
    }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi('Payment');

/** The generic payment as answered; `amount` in minor units, times ISO 8601 UTC. */
export type GenericPaymentView = z.output<typeof genericPayment>;

/**
 * The generic form of `payment`: `phone_number`, `wallet_id` and `customer_email` only when the payment has them,
 * `client_secret` for card payments awaiting confirmation (docs/payments.md#card-payments).
 */
export function toGenericPaymentView(payment: PaymentSnapshot): GenericPaymentView {
  const customer: Pick<GenericPaymentView, 'phone_number' | 'customer_email' | 'wallet_id'> = {};
  if (payment.customerPhone !== null) customer.phone_number = payment.customerPhone;
  if (payment.walletId) customer.wallet_id = payment.walletId;
  if (payment.customerEmail !== null) customer.customer_email = payment.customerEmail;
  return {
    id: payment.id,
    object: 'payment',
    amount: payment.amount,
    amount_refunded: payment.amountRefunded,
    amount_refund_pending: payment.amountRefundPending ?? 0,
    currency: payment.currency,
    status: payment.status,
    payment_method: payment.paymentMethod,
    provider: payment.provider,
    description: payment.description,
    ...customer,
    metadata: payment.metadata,
    failure_code: payment.failureCode,
    failure_message: payment.failureMessage,
    cancellation_reason: payment.cancellationReason ?? null,
    next_action: payment.nextAction,
    ...(payment.nextAction?.type === 'card_confirm' ? { client_secret: payment.nextAction.client_secret } : {}),
    environment: payment.environment,
    expires_at: payment.expiresAt,
    balance_transaction: paymentBalanceTransaction(payment),
    reconciled_at: payment.reconciledAt ?? null,
    created_at: payment.createdAt,
    updated_at: payment.updatedAt,
  };
}

/** The merchant-scoped payment (docs/limits.md#amounts, docs/payments.md#fees); decimal-string amounts. */
export const merchantPayment = z
  .object({
    id: z.string(),
    status: z.enum(PAYMENT_STATUSES),
    amount: z.string(),
    currency: z.string(),
    payment_method: z.string(),
    description: z.string().nullable(),
    client_secret: z.string().optional(),
    failure_code: z.string().nullable(),
    created_at: timestamp,
    metadata: z
      .record(z.string(), z.string())
      .openapi({ description: 'Your metadata, plus `fee_amount` and `fee_percentage` as decimal strings' }),
  })
  .openapi('MerchantScopedPayment');

/** The merchant-scoped payment as answered. */
export type MerchantPaymentView = z.output<typeof merchantPayment>;

/**
 * The merchant-scoped form of `payment`: decimal-string amounts with the currency's decimals, `client_secret` for
 * card gateway payments, and the fee in `metadata` as `fee_amount` and `fee_percentage` (docs/payments.md#fees).
 * @param feeBasisPoints the method's fee rate (2.9 % = 290)
 */
export function toMerchantPaymentView(payment: PaymentSnapshot, feeBasisPoints: number): MerchantPaymentView {
  return {
    id: payment.id,
    status: payment.status,
    amount: formatDecimalAmount(payment.amount, payment.currency),
    currency: payment.currency,
    payment_method: payment.paymentMethod,
    description: payment.description,
    ...(payment.nextAction?.type === 'card_confirm' ? { client_secret: payment.nextAction.client_secret } : {}),
    failure_code: payment.failureCode,
    created_at: payment.createdAt,
    metadata: {
      ...payment.metadata,
      fee_amount: formatDecimalAmount(payment.feeAmount, payment.currency),
      fee_percentage: formatFeePercentage(feeBasisPoints),
    },
  };
}
