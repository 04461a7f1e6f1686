/**
 * Wave's checkout sessions mapped onto our states (docs/providers.md#wave-wave), and the documented shapes of Wave's
 * answers and events.
 *
 * Sources (Wave's API documentation, docs.wave.com/checkout and docs.wave.com/webhook):
 * - a checkout session `{id ("cos-…"), amount (a decimal string), currency, checkout_status: open | complete |
 *   expired, payment_status: processing | cancelled | succeeded, client_reference, last_payment_error: {code,
 *   message} | null, transaction_id (the id the customer sees in the app, once paid), wave_launch_url,
 *   success_url, error_url, business_name, when_created, when_expires, when_completed}`;
 * - an error `{code, message, details?}`, e.g. 401 `no-matching-api-key`, 404 `checkout-session-not-found`,
 *   400 `request-validation-error`;
 * - an event `{id, type, data}`: `checkout.session.completed` and `checkout.session.payment_failed` carry the session.
 *
 * | Wave's session                                   | ours                                               |
 * |--------------------------------------------------|----------------------------------------------------|
 * | payment_status `succeeded`                       | completed, receipt number `transaction_id`        |
 * | checkout_status `open` (processing, or a failed attempt: the customer may try again) | pending           |
 * | checkout_status `expired`, after our expire call | cancelled                                          |
 * | checkout_status `expired`, `last_payment_error` `insufficient-funds` | failed, insufficient_funds     |
 * | checkout_status `expired`, another `last_payment_error` | failed, declined                            |
 * | checkout_status `expired`, no attempt            | failed, expired                                    |
 * | checkout_status `complete` without a success     | failed, provider_error                             |
 */
import type { FailureCode, ProviderOutcome } from '../../domain/payment';
import { withReceiptNumber } from '../../domain/payment';
import { z } from '../../lib/zod';

/** A checkout session's id, as Wave writes them (`cos-18qq25rgr100a`). */
export const CHECKOUT_SESSION_ID = /^cos-[0-9a-z]{1,40}$/;

/** `last_payment_error` of a session: why the last attempt failed. */
const lastPaymentError = z.object({ code: z.string().max(100), message: z.string().max(1000).optional() });

/** A checkout session as Wave answers it (creation, retrieval, search, the events' `data`). */
export const checkoutSession = z.object({
  id: z.string().regex(CHECKOUT_SESSION_ID),
  amount: z.string().regex(/^[0-9]+(\.[0-9]+)?$/),
  currency: z.string().length(3),
  checkout_status: z.enum(['open', 'complete', 'expired']),
  payment_status: z.enum(['processing', 'cancelled', 'succeeded']),
  client_reference: z.string().max(255).nullish(),
  last_payment_error: lastPaymentError.nullish(),
  transaction_id: z.string().max(100).nullish(),
  wave_launch_url: z.url(),
  when_created: z.string().optional(),
  when_expires: z.string().optional(),
  when_completed: z.string().nullish(),
});

/** A checkout session, as {@link checkoutSession} reads it. */
export type CheckoutSession = z.infer<typeof checkoutSession>;

/** `GET /v1/checkout/sessions/search?client_reference=…` → `{result: [sessions]}`. */
export const searchAnswer = z.object({ result: z.array(checkoutSession).max(100) });

/** Wave's error body. */
export const errorAnswer = z.object({ code: z.string().max(100), message: z.string().max(1000).optional() });

/** A webhook event's body. */
export const webhookEvent = z.object({
  id: z.string().min(1).max(100),
  type: z.string().min(1).max(100),
  data: z.unknown(),
});

/** The event types about a checkout session, whose `data` is the session. */
export const CHECKOUT_EVENTS: ReadonlySet<string> = new Set([
  'checkout.session.completed',
  'checkout.session.payment_failed',
]);

/**
 * The `last_payment_error` codes we read, with our failure code: the payer's balance, the payer's blocked account, a
 * payer other than the number the session is restricted to. Any other code is read as the payer's refusal too
 * (`declined`).
 */
export const WAVE_PAYMENT_ERRORS: Readonly<Record<string, FailureCode>> = {
  'insufficient-funds': 'insufficient_funds',
  'blocked-account': 'declined',
  'payer-mobile-mismatch': 'declined',
};

/** A `last_payment_error` code as our failure code ({@link WAVE_PAYMENT_ERRORS}; any other: `declined`). */
export function failureCodeOf(code: string): FailureCode {
  return WAVE_PAYMENT_ERRORS[code] ?? 'declined';
}

/**
 * A session as our {@link ProviderOutcome} (see the module's table).
 * @param expiredByUs true when the session expired because we asked (a cancel)
 */
export function outcomeOf(session: CheckoutSession, expiredByUs = false): ProviderOutcome {
  if (session.payment_status === 'succeeded')
    return withReceiptNumber({ status: 'completed' }, session.transaction_id ?? undefined);
  if (session.checkout_status === 'open') return { status: 'pending' };
  if (session.checkout_status === 'expired') {
    if (expiredByUs) return { status: 'cancelled' };
    const error = session.last_payment_error;
    if (error)
      return {
        status: 'failed',
        failureCode: failureCodeOf(error.code),
        failureMessage: `Wave: ${(error.message ?? error.code).slice(0, 200)} (${error.code.slice(0, 40)})`,
        reason: error.code.slice(0, 40),
      };
    return { status: 'failed', failureCode: 'expired', failureMessage: 'Wave: the checkout session expired unpaid' };
  }
  return {
    status: 'failed',
    failureCode: 'provider_error',
    failureMessage: `Wave: the checkout session is complete but its payment is ${session.payment_status}`,
  };
}
