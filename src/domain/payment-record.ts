/**
 * The payment as the workflow holds it and the read model stores it (docs/payments.md#payment-record), and its public generic
 * form (interface.md, Payment (generic form), plus the fields of docs/payments.md#payment-record). Pure: the workflow carries a
 * snapshot and activities write it.
 */
import type { MethodKind, PaymentMethod, ProviderCode } from './catalogue';
import type { Environment } from './environment';
import { formatDecimalAmount, type Currency } from './money';
import { formatFeePercentage } from './fees';
import type { FailureCode, PaymentStatus } from './payment';

/** The next step the customer or merchant front end takes (docs/payments.md#payment-record). */
export type NextAction =
  | { type: 'bank_transfer'; account_name: string; account_number: string; bank_name: string; reference: string }
  | { type: 'card_confirm'; client_secret: string }
  | { type: 'mobile_money_approval'; message: string };

/** A payment's full state; amounts in minor units, timestamps ISO 8601 UTC. */
export interface PaymentSnapshot {
  id: string;
  merchantId: string;
  environment: Environment;
  family: 'generic' | 'merchant';
  amount: number;
  amountRefunded: number;
  currency: Currency;
  status: PaymentStatus;
  paymentMethod: PaymentMethod;
  provider: ProviderCode;
  kind: MethodKind;
  description: string | null;
  customerPhone: string | null;
  customerEmail: string | null;
  /** The customer's service wallet id (merchant-scoped `wallet` payments). */
  walletId?: string | null;
  metadata: Record<string, string>;
  feeAmount: number;
  failureCode: FailureCode | null;
  failureMessage: string | null;
  /** Why the merchant cancelled (docs/payments.md#cancel-and-refund `reason`), once cancelled. */
  cancellationReason?: string | null;
  providerReference: string | null;
  nextAction: NextAction | null;
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
  /** When a late provider success moved a failed payment to `completed` (docs/payments.md#states); ISO 8601 UTC. */
  reconciledAt?: string | null;
  /** A provider answer that came after the reconciliation window (docs/payments.md#states): recorded, not acted on. */
  lateAnswer?: { status: string; receivedAt: string } | null;
  /**
   * Incremented by the workflow on every status change, so the read model applies a write only when
   * it is newer than what it holds (absent in payments started before it existed: read as 0).
   */
  version?: number;
}

/** The generic payment object of the interface, with the fields of docs/payments.md#payment-record; `amount` in minor units. */
export interface GenericPaymentView {
  id: string;
  object: 'payment';
  amount: number;
  amount_refunded: number;
  currency: string;
  status: PaymentStatus;
  payment_method: string;
  provider: string;
  description: string | null;
  phone_number?: string;
  customer_email?: string;
  wallet_id?: string;
  metadata: Record<string, string>;
  failure_code: string | null;
  failure_message: string | null;
  cancellation_reason: string | null;
  next_action: NextAction | null;
  /** For card payments: what the front end confirms the card with (docs/payments.md#card-payments). */
  client_secret?: string;
  environment: Environment;
  expires_at: string;
  /** Set when a late provider success completed the payment after it had failed (docs/payments.md#states). */
  reconciled_at: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * The generic form of a payment (interface.md): `phone_number` in place of `customer_email` for
 * mobile money and wallet payments; also the `data` of payment events (docs/payments.md#events).
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
    reconciled_at: payment.reconciledAt ?? null,
    created_at: payment.createdAt,
    updated_at: payment.updatedAt,
  };
}

/** The merchant-scoped payment object (interface.md, Payment (merchant-scoped form); docs/limits.md#amounts, docs/payments.md#fees). */
export interface MerchantPaymentView {
  id: string;
  status: PaymentStatus;
  amount: string;
  currency: string;
  payment_method: string;
  description: string | null;
  client_secret?: string;
  failure_code: string | null;
  created_at: string;
  metadata: Record<string, string> & { fee_amount: string; fee_percentage: string };
}

/**
 * The merchant-scoped form: decimal-string amounts with two decimals, `client_secret` for card
 * gateway payments, and the fee in `metadata` (docs/payments.md#fees).
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
