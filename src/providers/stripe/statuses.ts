/**
 * Stripe's own statuses and decline reasons mapped onto ours (docs/providers.md#adapters), and the documented shapes of
 * the Stripe objects the adapter reads (validated with zod: an undocumented answer is unknown).
 *
 * PaymentIntent `status` (Stripe API reference, "The PaymentIntent object", and "How
 * PaymentIntents work"):
 * | Stripe                                            | ours                                   |
 * |---------------------------------------------------|----------------------------------------|
 * | requires_payment_method, no last_payment_error    | pending (waiting for the card)         |
 * | requires_payment_method WITH last_payment_error   | failed (a declined attempt), code below |
 * | requires_confirmation, requires_action (3DS)      | pending                                |
 * | processing, requires_capture                      | processing                             |
 * | succeeded                                         | completed                              |
 * | canceled, cancellation_reason `abandoned`         | failed (the adapter ended a decline)   |
 * | canceled, any other reason                        | cancelled                              |
 *
 * A declined attempt leaves the PaymentIntent open at Stripe (the customer could try another card
 * with the same client secret). Our payment fails on a decline (docs/payments.md#card-payments, as in the sandbox), so
 * the
 * adapter cancels such a PaymentIntent with `cancellation_reason: abandoned` when it reports the
 * decline: no later attempt can take money for a payment recorded as failed, and `abandoned`
 * (which the adapter uses for nothing else) keeps reading as that failure afterwards.
 *
 * Decline reasons (`last_payment_error.decline_code`, else `.code`; Stripe docs "Decline codes"
 * and "Error codes"):
 * - `insufficient_funds` → `insufficient_funds`;
 * - `processing_error`, `issuer_not_available`, `try_again_later`, `reenter_transaction` (the
 *   issuer or network failed, not the card) → `provider_error`;
 * - everything else → `card_declined`: `card_declined`, `generic_decline`, `do_not_honor`,
 *   `expired_card`, `incorrect_cvc`, `invalid_cvc`, `incorrect_number`, `invalid_number`,
 *   `invalid_expiry_month`, `invalid_expiry_year`, `lost_card`, `stolen_card`, `pickup_card`,
 *   `fraudulent`, `card_not_supported`, `currency_not_supported`, `card_velocity_exceeded`,
 *   `withdrawal_count_limit_exceeded`, `transaction_not_allowed`, `authentication_required`,
 *   `payment_intent_authentication_failure` (3DS failed), `testmode_decline`, and unknown ones.
 *
 * Refund `status` (API reference, "The Refund object"): `succeeded` → succeeded; `pending`,
 * `requires_action` (and a null status) → pending; `failed`, `canceled` → failed with
 * `failure_reason` (`lost_or_stolen_card`, `expired_or_canceled_card`,
 * `charge_for_pending_refund_disputed`, `insufficient_funds`, `declined`, `merchant_request`, `unknown`).
 */
import { withReceiptNumber, type FailureCode, type ProviderOutcome } from '../../domain/payment';
import { CURRENCY_EXPONENTS, type Currency } from '../../domain/money';
import { z } from '../../lib/zod';
import type { RefundAnswer } from '../provider';

/** Every PaymentIntent status Stripe documents. */
export const PAYMENT_INTENT_STATUSES = [
  'requires_payment_method',
  'requires_confirmation',
  'requires_action',
  'processing',
  'requires_capture',
  'succeeded',
  'canceled',
] as const;

/** The cancellation reason the adapter gives a PaymentIntent it ends after a decline (and nothing else). */
export const DECLINE_CANCELLATION_REASON = 'abandoned';

/** The cancellation reason of a merchant's cancel (and of the cancel at expiry). */
export const MERCHANT_CANCELLATION_REASON = 'requested_by_customer';

/** The error of a PaymentIntent's last failed attempt (`last_payment_error`), the fields we read. */
export const lastPaymentErrorSchema = z.object({
  type: z.string().optional(),
  code: z.string().nullish(),
  decline_code: z.string().nullish(),
  message: z.string().nullish(),
});

/**
 * The PaymentIntent fields the adapter reads (API reference, "The PaymentIntent object"); amounts in the currency's
 * smallest unit.
 */
export const paymentIntentSchema = z.object({
  id: z.string().startsWith('pi_'),
  object: z.literal('payment_intent'),
  status: z.enum(PAYMENT_INTENT_STATUSES),
  amount: z.number().int(),
  currency: z.string(),
  client_secret: z.string().nullish(),
  last_payment_error: lastPaymentErrorSchema.nullish(),
  cancellation_reason: z.string().nullish(),
  /** The charge (`ch_…`) of the last attempt: its id, or the charge itself when expanded; the receipt id once paid. */
  latest_charge: z.union([z.string(), z.object({ id: z.string() }).passthrough()]).nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
});

/** A PaymentIntent as {@link paymentIntentSchema} reads it. */
export type StripePaymentIntent = z.infer<typeof paymentIntentSchema>;

/** The Refund fields the adapter reads (API reference, "The Refund object"); `amount` in the smallest unit. */
export const refundSchema = z.object({
  id: z.string().min(1),
  object: z.literal('refund'),
  amount: z.number().int(),
  status: z.string().nullable(),
  failure_reason: z.string().nullish(),
  payment_intent: z.union([z.string(), z.object({ id: z.string() })]).nullish(),
  metadata: z.record(z.string(), z.string()).nullish(),
});

/** A Refund as {@link refundSchema} reads it. */
export type StripeRefund = z.infer<typeof refundSchema>;

/** One page of `GET /v1/refunds`. */
export const refundListSchema = z.object({
  object: z.literal('list'),
  data: z.array(refundSchema),
  has_more: z.boolean(),
});

/** Decline reasons that say the issuer or the network failed rather than the card (→ `provider_error`). */
export const ISSUER_FAULT_REASONS: readonly string[] = [
  'processing_error',
  'issuer_not_available',
  'try_again_later',
  'reenter_transaction',
];

/**
 * Our failure code for a Stripe decline: by `decline_code`, else `code` (see the table above).
 * @param error `last_payment_error`, or a card error's raw fields; null/undefined → `card_declined`
 */
export function failureCodeOfDecline(
  error: { code?: string | null; decline_code?: string | null } | null | undefined,
): FailureCode {
  const reason = error?.decline_code || error?.code || '';
  if (reason === 'insufficient_funds') return 'insufficient_funds';
  if (ISSUER_FAULT_REASONS.includes(reason)) return 'provider_error';
  return 'card_declined';
}

/** The message kept with a decline: Stripe's own (shown to customers), else one naming the reason. */
function declineMessage(error: z.infer<typeof lastPaymentErrorSchema> | null | undefined): string {
  if (error?.message) return error.message;
  const reason = error?.decline_code || error?.code;
  return reason ? `The card was declined (${reason})` : 'The card was declined';
}

/**
 * True when the PaymentIntent's last attempt was declined and it waits for another card (it is still open at Stripe).
 */
export function isDeclinedAttempt(intent: Pick<StripePaymentIntent, 'status' | 'last_payment_error'>): boolean {
  return intent.status === 'requires_payment_method' && Boolean(intent.last_payment_error);
}

/** A PaymentIntent's state as our {@link ProviderOutcome} (the table above). */
export function outcomeOfPaymentIntent(
  intent: Pick<StripePaymentIntent, 'status' | 'last_payment_error' | 'cancellation_reason'> &
    Partial<Pick<StripePaymentIntent, 'latest_charge'>>,
): ProviderOutcome {
  switch (intent.status) {
    case 'succeeded': {
      // The charge's id is the receipt id (docs/payments.md#payment-record): what Stripe's dashboard, the card
      // statement's search and a dispute name; `receipt_number` exists only once Stripe e-mailed a receipt.
      const charge = typeof intent.latest_charge === 'string' ? intent.latest_charge : intent.latest_charge?.id;
      return withReceiptNumber({ status: 'completed' }, charge);
    }
    case 'processing':
    case 'requires_capture':
      return { status: 'processing' };
    case 'canceled':
      if (intent.cancellation_reason === DECLINE_CANCELLATION_REASON) {
        return {
          status: 'failed',
          failureCode: failureCodeOfDecline(intent.last_payment_error),
          failureMessage: declineMessage(intent.last_payment_error),
        };
      }
      return { status: 'cancelled' };
    case 'requires_payment_method':
      if (intent.last_payment_error) {
        return {
          status: 'failed',
          failureCode: failureCodeOfDecline(intent.last_payment_error),
          failureMessage: declineMessage(intent.last_payment_error),
        };
      }
      return { status: 'pending' };
    default:
      // requires_confirmation, requires_action: the customer's side has a step left.
      return { status: 'pending' };
  }
}

/** A Stripe Refund as our {@link RefundAnswer} (the table above). */
export function refundAnswerOf(refund: Pick<StripeRefund, 'id' | 'status' | 'failure_reason'>): RefundAnswer {
  switch (refund.status) {
    case 'succeeded':
      return { status: 'succeeded', refundReference: refund.id };
    case 'failed':
    case 'canceled':
      return {
        status: 'failed',
        failureMessage: `Stripe refund ${refund.id} ${refund.status}: ${refund.failure_reason ?? 'unknown'}`,
      };
    default:
      // pending, requires_action, or not yet set
      return { status: 'pending' };
  }
}

/** Our currencies in Stripe's zero-decimal list (docs "Supported currencies"). */
const STRIPE_ZERO_DECIMAL: ReadonlySet<string> = new Set(['RWF', 'UGX', 'XOF', 'XAF', 'GNF', 'MGA']);

/**
 * Decimal places of each of our currencies at Stripe (docs "Supported currencies": RWF, UGX, XOF, XAF, GNF and MGA
 * are in Stripe's zero-decimal list; the others have two). Stripe takes amounts in the currency's smallest unit, which
 * is then the same as our minor units (docs/limits.md#amounts), except for MGA: ISO 4217 gives it two decimals, Stripe
 * none, so an amount of MGA reaches Stripe in whole ariary.
 */
export const STRIPE_CURRENCY_EXPONENTS: Readonly<Record<Currency, number>> = Object.fromEntries(
  Object.keys(CURRENCY_EXPONENTS).map((currency) => [currency, STRIPE_ZERO_DECIMAL.has(currency) ? 0 : 2]),
) as Record<Currency, number>;

/**
 * `amount` minor units of `currency` as Stripe's `amount` (its smallest unit): unchanged when the
 * exponents agree, scaled otherwise.
 * @throws RangeError when Stripe's unit is coarser than ours and the amount does not divide (never for the currencies
 *   above)
 */
export function stripeAmountOf(amount: number, currency: Currency): number {
  const shift = STRIPE_CURRENCY_EXPONENTS[currency] - CURRENCY_EXPONENTS[currency];
  if (shift >= 0) return amount * 10 ** shift;
  const divisor = 10 ** -shift;
  if (amount % divisor !== 0)
    throw new RangeError(`${amount} minor units of ${currency} cannot be expressed in Stripe's unit`);
  return amount / divisor;
}
