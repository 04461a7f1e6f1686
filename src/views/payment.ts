/**
 * The API's two forms of a payment (docs/payments.md#payment-record): the generic payment of `/v1/payments` (also the
 * `data` of payment events, docs/payments.md#events) and the merchant-scoped payment of `/v1/api/merchants/…`. Each
 * form is one zod schema, which the OpenAPI document shows and whose type the view function returns.
 */
import { z } from '../lib/zod';
import { PROVIDER_CAPABILITIES } from '../domain/catalogue';
import { formatFeePercentage } from '../domain/fees';
import { formatDecimalAmount } from '../domain/money';
import { PAYMENT_STATUSES, PENDING_REASONS, type PaymentSnapshot } from '../domain/payment';
import { cancelAbility, DEFAULT_REFUND_WINDOW_DAYS, refundAbility } from '../domain/payment-actions';
import type { ProviderCapabilities } from '../domain/provider-descriptor';
import { paymentBalanceTransaction } from './balance';
import { timestamp } from './timestamp';
import { createdAt, currencyCode, nullableText, objectId, objectName, optionalText, updatedAt } from './fields';

/** What the customer or front end does next (docs/payments.md#payment-record). */
export const nextAction = z
  .union([
    z.object({
      type: z.literal('bank_transfer').openapi({ description: 'The customer makes a bank transfer' }),
      bank_name: z.string().openapi({ description: 'The bank to pay into' }),
      account_name: z.string().openapi({ description: "The account holder's name" }),
      account_number: z.string().openapi({ description: 'The account to pay into' }),
      reference: z.string().openapi({
        description: 'The reference the customer must give with the transfer, so it is matched to this payment',
      }),
    }),
    z.object({
      type: z.literal('card_confirm').openapi({ description: 'The customer confirms the card payment on your page' }),
      client_secret: z.string().openapi({ description: 'The secret your page passes to the card form' }),
    }),
    z.object({
      type: z.literal('mobile_money_approval').openapi({ description: 'The customer approves on their phone' }),
      message: z.string().openapi({ description: 'What to tell the customer' }),
    }),
    z.object({
      type: z.literal('redirect').openapi({ description: "The customer pays on the provider's own page" }),
      url: z.string().openapi({
        description:
          "The provider's payment page (Orange Money's web payment, Wave's `wave_launch_url`): send the customer's browser there",
      }),
    }),
  ])
  .nullable()
  .openapi('NextAction', {
    description:
      "What the customer or your front end does next, as the provider gave it: transfer instructions, the card confirmation, the mobile money prompt, or the provider's payment page to send the customer to; null once nothing is awaited",
  });

/**
 * The provider's own customer-facing id of the collected money (docs/payments.md#payment-record
 * `provider_receipt_number`).
 */
export const providerReceiptNumber = nullableText(
  "The provider's own id of the collected money, the one the customer sees on their receipt or SMS: M-Pesa's `MpesaReceiptNumber` (e.g. `NLJ7RT61SV`), MTN MoMo's `financialTransactionId`, Airtel's `airtel_money_id`, the card gateway's charge id (`ch_…`), or the sandbox's simulated one (`SBX` and 7 characters); null until the provider confirmed the collection, or when its confirmation named none",
);
/** Why an open payment waits (docs/payments.md#decision-time). */
export const pendingReason = z.enum(PENDING_REASONS).nullable().openapi('PendingReason', {
  description:
    'Why the open payment waits: `awaiting_customer` (the customer has the prompt, the card form or the transfer details), `awaiting_provider` (the customer acted; the provider is settling), `provider_unreachable` (the provider has not acknowledged the request yet; it is sent again), `awaiting_callback` (a bank transfer: waiting for the bank to report it), `checking_with_provider` (the provider left a question about it unanswered); null once the payment is final',
});

/** The latest time an open payment will be final (docs/payments.md#decision-time). */
export const decisionExpectedBy = timestamp.nullable().openapi({
  description:
    "The latest time the open payment will be final (ISO 8601, UTC): its expiry plus up to 3 minutes for the provider's last word; for `provider_unreachable` no earlier than 6 minutes after creation; for `checking_with_provider` the end of the reconciliation window after that; null once final",
});

/** Whether the payment can be refunded now, and why not (docs/payments.md#refundable-and-cancellable). */
export const refundable = z
  .object({
    allowed: z.boolean().openapi({
      description: 'True when `POST /v1/payments/{id}/refund` of the whole refundable rest would be taken now',
    }),
    partial: z.boolean().openapi({
      description:
        'True when a refund of part of the rest would be taken too (false: the provider refunds whole payments only, or nothing is refundable)',
    }),
    reason: nullableText(
      'Why not, for a person: the message the refund would be refused with (its status, the refund window, nothing left to refund, a provider that cannot refund); null when allowed',
    ),
  })
  .openapi('Refundable', {
    description:
      "Whether the payment can be refunded now, from its status, the refund window, the refundable rest and its provider's capabilities (the same in sandbox and live)",
  });

/** Whether the payment can be cancelled now, and why not (docs/payments.md#refundable-and-cancellable). */
export const cancellable = z
  .object({
    allowed: z.boolean().openapi({ description: 'True when `POST /v1/payments/{id}/cancel` would be taken now' }),
    reason: nullableText(
      'Why not, for a person: the payment is no longer open, or its provider cannot withdraw a request (a mobile-money prompt lapses at `expires_at`); null when allowed',
    ),
  })
  .openapi('Cancellable', {
    description:
      "Whether the payment can be cancelled now, from its status and its provider's capabilities (the same in sandbox and live)",
  });

/** The generic payment (docs/payments.md#payment-record); `amount` in minor units. */
export const genericPayment = z
  .object({
    id: objectId('Payment', 'pay_'),
    object: objectName('payment'),
    amount: z.number().int().openapi({
      description:
        "In the currency's minor unit (RWF, UGX, XOF and XAF have none: 1500 is RWF 1,500; KES, GHS, USD, EUR, GBP, LRD and TZS have two: 1500 is 15.00)",
    }),
    amount_refunded: z.number().int().openapi({ description: 'Refunded so far, in minor units' }),
    amount_refund_pending: z.number().int().openapi({
      description:
        'Held by refunds whose provider answer is not final yet, in minor units: not refunded yet and not refundable again; it moves to `amount_refunded` when such a refund completes and is released when it fails',
    }),
    currency: currencyCode,
    status: z.enum(PAYMENT_STATUSES).openapi({
      description:
        '`pending` (the provider has the request; waiting for the customer), `processing`, then `completed`, `failed`, `cancelled`, or `refunded` once fully refunded',
    }),
    payment_method: z.string().openapi({
      description:
        'How the customer pays: `mobile_money`, `bank_transfer`, `card`, or a provider code of the merchant-scoped list',
    }),
    provider: z
      .string()
      .openapi({ description: 'The provider code that handles it (`momo`, `mobile_money_b`, `card_gateway`, …)' }),
    provider_receipt_number: providerReceiptNumber,
    description: nullableText('Your description of the payment, as you sent it; null when none'),
    phone_number: optionalText("The customer's phone number in E.164 form (mobile money only)"),
    customer_email: optionalText("The customer's e-mail (card and bank transfer, when given)"),
    wallet_id: optionalText("The customer's wallet id (wallet payments only)"),
    metadata: z.record(z.string(), z.string()).openapi({ description: 'Your key-value pairs, as you sent them' }),
    failure_code: nullableText(
      'Why the payment failed, one of the documented codes (`declined`, `expired`, …); null unless failed',
    ),
    failure_message: nullableText(
      "The provider's or the service's explanation of the failure, for a person; null unless failed",
    ),
    cancellation_reason: nullableText('The reason you gave when cancelling; null unless cancelled with one'),
    checkout_session: nullableText(
      'The checkout session (`cs_…`) this payment is an attempt of (docs/checkout.md#api); null for any other payment',
    ),
    next_action: nextAction.openapi({ description: 'What the customer must do next; null when nothing' }),
    client_secret: optionalText('Card payments: what your front end confirms the card with'),
    environment: z
      .enum(['sandbox', 'live'])
      .openapi({ description: '`sandbox` or `live`: the environment of the key that created it' }),
    expires_at: timestamp.openapi({ description: 'When a payment still open fails with `failure_code` `expired`' }),
    pending_reason: pendingReason,
    decision_expected_by: decisionExpectedBy,
    balance_transaction: nullableText(
      'The balance transaction (`txn_…`) that credited you once the provider collected the money; null before or without it',
    ),
    reconciled_at: timestamp.nullable().openapi({
      description:
        'Set when a provider success that arrived after the payment had failed (expired or provider error) completed it',
    }),
    refundable: refundable.openapi({ description: 'Whether it can be refunded now, and why not' }),
    cancellable: cancellable.openapi({ description: 'Whether it can be cancelled now, and why not' }),
    created_at: createdAt,
    updated_at: updatedAt,
  })
  .openapi('Payment', { description: 'A payment: money asked of a customer through one provider, and its state' });

/** The generic payment as answered; `amount` in minor units, times ISO 8601 UTC. */
export type GenericPaymentView = z.output<typeof genericPayment>;

/**
 * What `refundable` and `cancellable` are judged with: the payment's provider's capabilities as its adapter states them
 * (undefined, or no function: its descriptor's, `PROVIDER_CAPABILITIES`), the refund window in days (default 180,
 * REFUND_WINDOW_DAYS) and the moment (default: now).
 */
export interface PaymentViewContext {
  capabilities?: (payment: PaymentSnapshot) => ProviderCapabilities | undefined;
  refundWindowDays?: number;
  at?: string;
}

/**
 * The generic form of `payment`: `phone_number`, `wallet_id` and `customer_email` only when the payment has them,
 * `client_secret` for card payments awaiting confirmation (docs/payments.md#card-payments), and whether it can be
 * refunded or cancelled at `context.at` (docs/payments.md#refundable-and-cancellable).
 */
export function toGenericPaymentView(payment: PaymentSnapshot, context: PaymentViewContext = {}): GenericPaymentView {
  const capabilities = context.capabilities?.(payment) ?? PROVIDER_CAPABILITIES[payment.provider];
  const at = context.at ?? new Date().toISOString();
  const refundWindowMs = (context.refundWindowDays ?? DEFAULT_REFUND_WINDOW_DAYS) * 86_400_000;
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
    provider_receipt_number: payment.providerReceiptNumber ?? null,
    description: payment.description,
    ...customer,
    metadata: payment.metadata,
    failure_code: payment.failureCode,
    failure_message: payment.failureMessage,
    cancellation_reason: payment.cancellationReason ?? null,
    checkout_session: payment.checkoutSession ?? null,
    next_action: payment.nextAction,
    ...(payment.nextAction?.type === 'card_confirm' ? { client_secret: payment.nextAction.client_secret } : {}),
    environment: payment.environment,
    expires_at: payment.expiresAt,
    pending_reason: payment.pendingReason ?? null,
    decision_expected_by: payment.decisionExpectedBy ?? null,
    balance_transaction: paymentBalanceTransaction(payment),
    reconciled_at: payment.reconciledAt ?? null,
    refundable: refundAbility(payment, capabilities, at, refundWindowMs),
    cancellable: cancelAbility(payment, capabilities, at),
    created_at: payment.createdAt,
    updated_at: payment.updatedAt,
  };
}

/** The merchant-scoped payment (docs/limits.md#amounts, docs/payments.md#fees); decimal-string amounts. */
export const merchantPayment = z
  .object({
    id: objectId('Payment', 'pay_'),
    status: z
      .enum(PAYMENT_STATUSES)
      .openapi({ description: '`pending`, `processing`, `completed`, `failed`, `cancelled` or `refunded`' }),
    amount: z.string().openapi({ description: 'The amount as a decimal string in the currency\'s unit (`"1500.00"`)' }),
    currency: currencyCode,
    payment_method: z.string().openapi({ description: 'The provider code the customer pays with' }),
    provider_receipt_number: providerReceiptNumber,
    description: nullableText('Your description; null when none'),
    client_secret: optionalText('Card payments: the secret your page passes to the card form to confirm the payment'),
    failure_code: nullableText('Why the payment failed; null unless failed'),
    created_at: createdAt,
    metadata: z
      .record(z.string(), z.string())
      .openapi({ description: 'Your metadata, plus `fee_amount` and `fee_percentage` as decimal strings' }),
  })
  .openapi('MerchantScopedPayment', {
    description: 'A payment as the merchant-scoped endpoints show it, with decimal-string amounts',
  });

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
    provider_receipt_number: payment.providerReceiptNumber ?? null,
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
