/**
 * The payment (docs/payments.md#payment-record) as the workflow holds it and the read model stores it, its state
 * machine (docs/payments.md#states) and the poll schedule (docs/payments.md#workflow). Pure code, shared by the API,
 * activities and the payment workflow; the API's forms of a payment are in src/views/payment.ts.
 */
import type { MethodKind, PaymentMethod, ProviderCode } from './catalogue';
import type { Environment } from './environment';
import type { Currency } from './money';

/** Payment statuses (docs/payments.md#states). */
export const PAYMENT_STATUSES = ['pending', 'processing', 'completed', 'failed', 'cancelled', 'refunded'] as const;
/** One payment status. */
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Statuses in which the provider may still answer (docs/payments.md#states: cancel is allowed here). */
export const OPEN_STATUSES: readonly PaymentStatus[] = ['pending', 'processing'];

/**
 * Every reason a payment fails: the provider's decline reasons plus `expired` (docs/payments.md#states,
 * docs/payments.md#sandbox-scenarios).
 */
export const FAILURE_CODES = ['declined', 'card_declined', 'insufficient_funds', 'expired', 'provider_error'] as const;
/** Why a payment failed (docs/payments.md#payment-record). */
export type FailureCode = (typeof FAILURE_CODES)[number];

/** Payment event names written once each per payment (docs/payments.md#events). */
export type PaymentEventName = 'payment.created' | 'payment.completed' | 'payment.failed' | 'payment.cancelled';

/**
 * Why an open payment waits (docs/payments.md#decision-time): the customer has the request, the provider is
 * settling, the provider has not acknowledged the request yet, the bank's notice of a transfer is awaited, or the
 * provider's last answer about it was unknown.
 */
export const PENDING_REASONS = [
  'awaiting_customer',
  'awaiting_provider',
  'provider_unreachable',
  'awaiting_callback',
  'checking_with_provider',
] as const;
/** One reason an open payment waits (docs/payments.md#decision-time). */
export type PendingReason = (typeof PENDING_REASONS)[number];

/** The next step the customer or merchant front end takes (docs/payments.md#payment-record). */
export type NextAction =
  | { type: 'bank_transfer'; account_name: string; account_number: string; bank_name: string; reference: string }
  | { type: 'card_confirm'; client_secret: string }
  | { type: 'mobile_money_approval'; message: string }
  | { type: 'redirect'; url: string };

/** A payment's full state; amounts in minor units, timestamps ISO 8601 UTC. */
export interface PaymentSnapshot {
  id: string;
  merchantId: string;
  environment: Environment;
  family: 'generic' | 'merchant';
  amount: number;
  amountRefunded: number;
  /**
   * Minor units held by this payment's refunds whose provider answer is not final yet
   * (docs/payments.md#cancel-and-refund): not refunded, not refundable again. Absent: 0.
   */
  amountRefundPending?: number;
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
  /**
   * The provider's own customer-facing id of the collected money (docs/payments.md#payment-record
   * `provider_receipt_number`): M-Pesa's `MpesaReceiptNumber`, MTN MoMo's `financialTransactionId`, Airtel's
   * `airtel_money_id`, the card gateway's charge id; kept from the provider's success, null until then or when the
   * provider's success named none. What a reversal of the payment names at the provider. Absent: null.
   */
  providerReceiptNumber?: string | null;
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
  /** The checkout session this payment is an attempt of (docs/checkout.md); absent or null for any other payment. */
  checkoutSession?: string | null;
  /**
   * Why the open payment waits (docs/payments.md#decision-time), decided by the payment's table; null once final.
   * Absent (payments written before it existed): read as null.
   */
  pendingReason?: PendingReason | null;
  /**
   * The latest time the open payment will be final (docs/payments.md#decision-time), ISO 8601 UTC; null once final.
   * Absent: read as null.
   */
  decisionExpectedBy?: string | null;
}

/** True while the payment can still change by the provider's answer. */
export function isOpen(status: PaymentStatus): boolean {
  return OPEN_STATUSES.includes(status);
}

/** Failure codes after which a provider success may still come and is reconciled (docs/payments.md#states). */
export const RECONCILABLE_FAILURES: readonly FailureCode[] = ['expired', 'provider_error'];

/**
 * True when a provider callback claiming `claimed` may change `payment` (docs/payments.md#states,
 * docs/payments.md#provider-callbacks): any claim while
 * the payment is open; once closed, only a claimed success of a payment that failed or was cancelled: a late success,
 * always booked (docs/payments.md#late-successes).
 */
export function callbackMayChange(
  payment: Pick<PaymentSnapshot, 'status' | 'failureCode'>,
  claimed: ProviderOutcome['status'],
): boolean {
  if (isOpen(payment.status)) return true;
  if (claimed !== 'completed') return false;
  return payment.status === 'cancelled' || payment.status === 'failed';
}

/** The event (docs/payments.md#events) written when a payment enters `status`, if any. */
export function eventForStatus(status: PaymentStatus): PaymentEventName | undefined {
  switch (status) {
    case 'completed':
      return 'payment.completed';
    case 'failed':
      return 'payment.failed';
    case 'cancelled':
      return 'payment.cancelled';
    default:
      return undefined;
  }
}

/** First poll delay (docs/payments.md#workflow: 2 s). */
export const FIRST_POLL_DELAY_MS = 2_000;
/** Longest poll delay (docs/payments.md#workflow: 60 s). */
export const MAX_POLL_DELAY_MS = 60_000;

/** The poll delay after `previousMs` (docs/payments.md#workflow: 2 s doubling to 60 s), in milliseconds. */
export function nextPollDelayMs(previousMs: number | undefined): number {
  if (previousMs === undefined) return FIRST_POLL_DELAY_MS;
  return Math.min(previousMs * 2, MAX_POLL_DELAY_MS);
}

/** The poll delay `polls` steps of the schedule after `delayMs` (docs/payments.md#workflow), in milliseconds. */
export function pollDelayAfter(delayMs: number, polls: number): number {
  let next = delayMs;
  for (let i = 0; i < polls && next < MAX_POLL_DELAY_MS; i += 1) next = nextPollDelayMs(next);
  return next;
}

/** What a provider says about a payment, mapped onto our statuses (docs/providers.md#adapters). */
export type ProviderOutcome =
  | { status: 'pending' | 'processing' }
  /** `receiptNumber`: the provider's customer-facing id of the collected money, when its answer names one. */
  | { status: 'completed'; receiptNumber?: string }
  | { status: 'cancelled' }
  /**
   * `reason`: the provider's own reason as its API sends it (e.g. MoMo's `NOT_ENOUGH_FUNDS`), when it names one: whose
   * failure it is (src/providers/failure-sides.ts, docs/availability.md#classification).
   */
  | { status: 'failed'; failureCode: FailureCode; failureMessage: string; reason?: string };

/** Longest receipt number kept (the column's width), in characters. */
export const RECEIPT_NUMBER_MAX = 100;

/**
 * `outcome` with the provider's receipt number (docs/payments.md#payment-record `provider_receipt_number`) when it is a
 * success and `receipt` names one: a string or number of the provider's answer, trimmed; a blank one, or one over
 * {@link RECEIPT_NUMBER_MAX} characters or with control characters, is left out.
 */
export function withReceiptNumber(
  outcome: ProviderOutcome,
  receipt: string | number | null | undefined,
): ProviderOutcome {
  if (outcome.status !== 'completed' || receipt === null || receipt === undefined) return outcome;
  const text = String(receipt).trim();
  // eslint-disable-next-line no-control-regex
  if (text.length === 0 || text.length > RECEIPT_NUMBER_MAX || /[\u0000-\u001f\u007f]/.test(text)) return outcome;
  return { ...outcome, receiptNumber: text };
}

/** The provider's reference for the payment, what it says about it now, and the customer's next step. */
export interface ProviderAnswer {
  providerReference: string;
  outcome: ProviderOutcome;
  /**
   * What the customer or the merchant's front end does next, as the provider gives it (card gateway:
   * the client secret; bank: transfer instructions; mobile money: the prompt). Only initiation
   * answers carry it; null when the provider names no step.
   */
  nextAction?: NextAction | null;
}

/** What the provider is asked when a payment is initiated (docs/providers.md#adapters), in minor units. */
export interface InitiationRequest {
  paymentId: string;
  /** Derived from the payment id, so a retried initiation never charges twice (docs/providers.md#adapters). */
  idempotencyKey: string;
  amount: number;
  currency: PaymentSnapshot['currency'];
  /** Who pays: the phone number (MSISDN), else the wallet id, else the e-mail, else the payment id. */
  customer: string;
  /** What the customer sees (MoMo `payerMessage`); the payment's description, else its id. */
  description: string;
  /** When we stop waiting (ISO 8601): the provider may let its request lapse then. */
  expiresAt: string;
}

/** The initiation request of `payment` (shared by the workflow and its initiation activity). */
export function initiationRequest(payment: PaymentSnapshot): InitiationRequest {
  return {
    paymentId: payment.id,
    idempotencyKey: `payment:${payment.id}:initiate`,
    amount: payment.amount,
    currency: payment.currency,
    customer: payment.customerPhone ?? payment.walletId ?? payment.customerEmail ?? payment.id,
    description: payment.description ?? payment.id,
    expiresAt: payment.expiresAt,
  };
}
