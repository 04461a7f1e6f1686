/**
 * The API forms of a checkout session (docs/checkout.md): the merchant's, and the page's (`/public`: only what
 * the page shows, no metadata, no phone number, no id of the merchant's other resources). Amounts in minor units,
 * times ISO 8601 UTC.
 */
import { z } from '../lib/zod';
import { CHECKOUT_STATUSES, attemptInFlight, type CheckoutSessionSnapshot } from '../domain/checkout-table';
import { nextAction } from './payment';
import { amountRangeView, collectView } from './payment-link';
import { timestamp } from './timestamp';
import { nullableText, objectName } from './fields';

/** A checkout session as the merchant reads it. */
export const checkoutSession = z
  .object({
    id: z.string().openapi({ description: 'Session id, `cs_` and 24 characters (at least 128 random bits)' }),
    object: objectName('checkout.session'),
    url: z.string().openapi({ description: "The payment page's address, `{PUBLIC_BASE_URL}/pay/{id}`" }),
    status: z
      .enum(CHECKOUT_STATUSES)
      .openapi({ description: '`open`, `complete` or `expired` (docs/checkout.md#states)' }),
    amount: z.number().int().nullable().openapi({
      description:
        "Amount in minor units; null on a payment link's session whose customer chooses the amount, until an attempt carries it",
    }),
    currency: z.string().openapi({ description: 'ISO 4217 currency code' }),
    description: z.string().openapi({ description: 'What the customer pays for, as the page shows it' }),
    customer_phone: nullableText('The number the page suggests, E.164; null if none'),
    payment: nullableText('The payment that completed the session; null before'),
    payment_link: nullableText('The payment link the session was opened from (`plink_…`); null if you created it'),
    attempts_count: z.number().int().openapi({ description: "How many attempts (the session's payments) were made" }),
    locale: z.enum(['en', 'fr', 'sw', 'rw']).openapi({ description: "The page's language" }),
    expires_at: timestamp.openapi({ description: 'When an open session without an attempt in flight expires' }),
    success_url: nullableText(
      "Where the page sends the customer after a success; null on a payment link's session that shows a message instead",
    ),
    cancel_url: nullableText('Where the page sends a customer who gives up'),
    created_at: timestamp.openapi({ description: 'When it was created' }),
    metadata: z.record(z.string(), z.string()).openapi({ description: 'Your key-value pairs, as you sent them' }),
  })
  .openapi('CheckoutSession');

/** A session as answered. */
export type CheckoutSessionView = z.output<typeof checkoutSession>;

/** The merchant's form of `session`; `baseUrl` is PUBLIC_BASE_URL. */
export function toCheckoutSessionView(session: CheckoutSessionSnapshot, baseUrl: string): CheckoutSessionView {
  return {
    id: session.id,
    object: 'checkout.session',
    url: `${baseUrl}/pay/${session.id}`,
    status: session.status,
    amount: session.amount,
    currency: session.currency,
    description: session.description,
    customer_phone: session.customerPhone,
    payment: session.payment,
    payment_link: session.paymentLink,
    attempts_count: session.attempts.length,
    locale: session.locale,
    expires_at: session.expiresAt,
    success_url: session.successUrl,
    cancel_url: session.cancelUrl,
    created_at: session.createdAt,
    metadata: session.metadata,
  };
}

/** A checkout session as its page reads it, without a key. */
export const checkoutSessionPublic = z
  .object({
    id: z.string().openapi({ description: 'Session id' }),
    object: objectName('checkout.session.public'),
    status: z.enum(CHECKOUT_STATUSES).openapi({ description: '`open`, `complete` or `expired`' }),
    amount: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Amount in minor units; null while the customer chooses it within `amount_range`' }),
    amount_range: amountRangeView.openapi({
      description: "The range an attempt's `amount` must fall in (both inclusive); null: fixed amount",
    }),
    collect: collectView.openapi({ description: 'The fields each attempt must carry (docs/payment-links.md#collect)' }),
    currency: z.string().openapi({ description: 'ISO 4217 currency code' }),
    description: z.string().openapi({ description: 'What the customer pays for' }),
    merchant_name: z.string().openapi({ description: "The merchant's business name" }),
    payment_methods: z.array(z.literal('mobile_money')).openapi({ description: 'The methods the page offers' }),
    attempt_in_progress: z.boolean().openapi({ description: "True while an attempt's payment has no final outcome" }),
    attempts_left: z.number().int().openapi({ description: 'How many more attempts the session takes' }),
    expires_at: timestamp.openapi({ description: 'When the session expires' }),
    success_url: nullableText('Where the page sends the customer after a success; null: show `completion_message`'),
    completion_message: nullableText(
      "What the page says after a success, from the payment link; null: the page's own thanks",
    ),
    cancel_url: nullableText('Where the page sends a customer who gives up'),
  })
  .openapi('CheckoutSessionPublic');

/** A session's page form as answered. */
export type CheckoutSessionPublicView = z.output<typeof checkoutSessionPublic>;

/** The page's form of `session` of the merchant named `merchantName`. */
export function toCheckoutSessionPublicView(
  session: CheckoutSessionSnapshot,
  merchantName: string,
  maxAttempts: number,
): CheckoutSessionPublicView {
  return {
    id: session.id,
    object: 'checkout.session.public',
    status: session.status,
    amount: session.amount,
    amount_range: session.amountRange,
    collect: session.collect,
    currency: session.currency,
    description: session.description,
    merchant_name: merchantName,
    payment_methods: ['mobile_money'],
    attempt_in_progress: attemptInFlight(session) !== undefined,
    attempts_left: Math.max(0, maxAttempts - session.attempts.length),
    expires_at: session.expiresAt,
    success_url: session.successUrl,
    completion_message: session.completionMessage,
    cancel_url: session.cancelUrl,
  };
}

/** The answer of an attempt: its payment, the payment's status and next action, and the operator asked. */
export const checkoutAttempt = z
  .object({
    payment: z.string().openapi({ description: "The attempt's payment id" }),
    status: z.string().openapi({ description: "The payment's status (`pending` while the payer approves)" }),
    next_action: nextAction
      .nullable()
      .openapi({ description: 'What the payer does next (approve the prompt on the phone)' }),
    operator: nullableText('The mobile-money operator asked; null for a card'),
  })
  .openapi('CheckoutAttempt');
