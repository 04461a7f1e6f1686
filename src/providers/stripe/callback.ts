/**
 * Stripe webhook events as callbacks (docs/payments.md#provider-callbacks). Each is authenticated by its
 * `Stripe-Signature` header
 * (`t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.rawBody">` keyed with the endpoint's signing
 * secret) through `stripe.webhooks.constructEvent`, which also refuses a timestamp older than five
 * minutes (Stripe's default tolerance, against replays); then it becomes a hint that the payment's
 * workflow confirms by retrieving the PaymentIntent.
 *
 * | event                          | providerReference           | claimed                          |
 * |--------------------------------|-----------------------------|----------------------------------|
 * | payment_intent.succeeded       | the PaymentIntent's id      | completed                        |
 * | payment_intent.payment_failed  | the PaymentIntent's id      | failed                           |
 * | payment_intent.canceled        | the PaymentIntent's id      | cancelled                        |
 * | payment_intent.processing      | the PaymentIntent's id      | processing                       |
 * | other payment_intent.*         | the PaymentIntent's id      | its status mapped (./statuses.ts)|
 * | charge.refunded                | the charge's payment_intent | completed (the workflow confirms) |
 * | other events with a `payment_intent` (charge.*, refund.*) | that id | processing (only "look")  |
 * | events naming no PaymentIntent | —                           | ProviderRefusal                  |
 *
 * Register the endpoint for the first five events only; anything else it receives names no
 * payment of ours or changes nothing once confirmed.
 */
import type Stripe from 'stripe';
import type { ProviderOutcome } from '../../domain/payment';
import { z } from '../../lib/zod';
import { ProviderRefusal, type CallbackRequest, type ParsedCallback } from '../provider';
import { outcomeOfPaymentIntent, paymentIntentSchema } from './statuses';

/** The header Stripe signs its events with (lower-case, as Node gives header names). */
export const STRIPE_SIGNATURE_HEADER = 'stripe-signature';

/** What the events the endpoint is registered for claim (the table above). */
const CLAIMS: Readonly<Record<string, ProviderOutcome['status']>> = {
  'payment_intent.succeeded': 'completed',
  'payment_intent.payment_failed': 'failed',
  'payment_intent.canceled': 'cancelled',
  'payment_intent.processing': 'processing',
  'charge.refunded': 'completed',
};

/** The event envelope (API reference, "The Event object"): its type and the object it is about. */
const eventSchema = z.object({
  id: z.string(),
  object: z.literal('event'),
  type: z.string().min(1),
  data: z.object({ object: z.record(z.string(), z.unknown()) }),
});

/** An object that names its PaymentIntent (a Charge, a Refund): the id, or the expanded object. */
const namesPaymentIntent = z.object({
  payment_intent: z.union([z.string().startsWith('pi_'), z.object({ id: z.string().startsWith('pi_') })]),
});

/**
 * Authenticates a Stripe webhook event and turns it into a hint (the table above).
 * @param webhooks the client's `stripe.webhooks`
 * @param secret the endpoint's signing secret (`whsec_…`)
 * @throws ProviderRefusal when the signature is missing, wrong or too old, the body is not an
 *   event, or the event names no PaymentIntent
 */
export function parseStripeEvent(
  webhooks: Stripe['webhooks'],
  request: CallbackRequest,
  secret: string,
): ParsedCallback {
  const signature = request.headers[STRIPE_SIGNATURE_HEADER];
  if (!signature) throw new ProviderRefusal('the Stripe-Signature header is missing');
  let verified: unknown;
  try {
    verified = webhooks.constructEvent(request.rawBody, signature, secret);
  } catch (error) {
    throw new ProviderRefusal(
      `the Stripe event is not authentic: ${error instanceof Error ? error.message : 'bad signature'}`,
    );
  }
  const event = eventSchema.safeParse(verified);
  if (!event.success) throw new ProviderRefusal('the Stripe event is not a valid event');
  const { type, data } = event.data;

  if (type.startsWith('payment_intent.')) {
    const intent = paymentIntentSchema.safeParse(data.object);
    if (!intent.success) throw new ProviderRefusal(`the ${type} event does not carry a valid PaymentIntent`);
    return { providerReference: intent.data.id, claimed: CLAIMS[type] ?? outcomeOfPaymentIntent(intent.data).status };
  }
  const named = namesPaymentIntent.safeParse(data.object);
  if (!named.success) throw new ProviderRefusal(`the ${type} event names no PaymentIntent`);
  const reference =
    typeof named.data.payment_intent === 'string' ? named.data.payment_intent : named.data.payment_intent.id;
  return { providerReference: reference, claimed: CLAIMS[type] ?? 'processing' };
}
