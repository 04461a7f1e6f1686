/**
 * `card_gateway` in live (docs/payments.md#card-payments, docs/providers.md#adapters): Stripe PaymentIntents through
 * the official `stripe` package.
 *
 * - initiate: `POST /v1/payment_intents` (amount in the currency's smallest unit, lower-case
 *   currency, `allowed_payment_method_types: [card]` (the pinned API version's name for
 *   `payment_method_types`), `metadata.payment_id`) with `Idempotency-Key` = the
 *   request's key (derived from the payment id), so a retried initiation returns the same
 *   PaymentIntent; the next action is Stripe's `client_secret`, which the merchant's front end
 *   confirms the card with (Stripe.js). The outcome comes by webhook (./callback.ts) and by
 *   retrieving the PaymentIntent.
 * - A declined attempt fails the payment; the adapter then cancels the PaymentIntent
 *   (`cancellation_reason: abandoned`) so the customer cannot retry on it (./statuses.ts). A
 *   success that wins that race stays a success.
 * - cancel: `POST /v1/payment_intents/{id}/cancel`; a PaymentIntent that can no longer be cancelled
 *   (`payment_intent_unexpected_state`: it succeeded, or is processing) answers its status.
 * - refund: `POST /v1/refunds` with `payment_intent`, `amount`, `metadata.refund_key` and
 *   `Idempotency-Key` = the refund's key; fetchRefund lists the PaymentIntent's refunds and finds
 *   that key.
 *
 * Answers (provider.ts): a card error (402) and an invalid request (400/404, e.g. `resource_missing`
 * for an unknown id, `idempotency_error`) are definite → {@link ProviderRefusal}; a connection
 * error, a time-out, a 5xx, a 409, a rate limit (429), an authentication or permission error
 * (401/403: our configuration, nothing was decided) and any answer that does not match Stripe's
 * documented object → {@link ProviderUnknownAnswer}. The client does not retry by itself
 * (`maxNetworkRetries: 0`): the activity's retries resend with the same idempotency key, so one
 * call never takes longer than `timeoutMs` of silence.
 */
import Stripe from 'stripe';
import type { ProviderOutcome } from '../../domain/payment';
import type { z } from '../../lib/zod';
import { ProviderUnknownAnswer } from '../http';
import { ProviderRefusal, type PaymentProvider } from '../provider';
import { parseStripeEvent } from './callback';
import { descriptor } from './descriptor';
import type { StripeSettings } from './settings';
import {
  DECLINE_CANCELLATION_REASON,
  failureCodeOfDecline,
  isDeclinedAttempt,
  MERCHANT_CANCELLATION_REASON,
  outcomeOfPaymentIntent,
  paymentIntentSchema,
  refundAnswerOf,
  refundListSchema,
  refundSchema,
  stripeAmountOf,
  type StripePaymentIntent,
} from './statuses';

/**
 * The API version every request names (the one `stripe@23` is typed for): answers keep this shape whatever the
 * account's default.
 */
export const STRIPE_API_VERSION = '2026-10-28.endive';

/** The client's own retries: none, the activity retries with the same idempotency key (see the header). */
export const STRIPE_MAX_NETWORK_RETRIES = 0;

/** Stripe's error code for a PaymentIntent whose status does not allow the call (e.g. cancel after success). */
const UNEXPECTED_STATE = 'payment_intent_unexpected_state';

/** Refunds read per page when looking for one by its key (Stripe's maximum). */
const REFUND_PAGE_SIZE = 100;

/** A definite refusal from Stripe, with Stripe's error code (e.g. `resource_missing`). */
export class StripeRefusal extends ProviderRefusal {
  constructor(
    message: string,
    failureCode: ProviderRefusal['failureCode'],
    /** Stripe's `error.code`, when it gave one. */
    readonly stripeCode: string | undefined,
  ) {
    super(message, failureCode);
    this.name = 'StripeRefusal';
  }
}

/**
 * A Stripe client for `settings`: its API version pinned, `timeoutMs` of silence per call, no
 * retries of its own, and the host, port and protocol of `apiBaseUrl` when set (stripe-mock).
 */
export function createStripeClient(settings: StripeSettings): Stripe {
  const config: Stripe.StripeConfig = {
    apiVersion: STRIPE_API_VERSION,
    timeout: settings.timeoutMs,
    maxNetworkRetries: STRIPE_MAX_NETWORK_RETRIES,
    telemetry: false,
  };
  if (settings.apiBaseUrl) {
    const url = new URL(settings.apiBaseUrl);
    const protocol = url.protocol === 'http:' ? 'http' : 'https';
    config.protocol = protocol;
    config.host = url.hostname;
    config.port = url.port || (protocol === 'http' ? 80 : 443);
  }
  return new Stripe(settings.secretKey, config);
}

/** What a failed Stripe call means for us (see the header): a refusal, or an unknown answer. */
function answerOfError(error: unknown, what: string): Error {
  if (error instanceof Stripe.errors.StripeCardError) {
    return new StripeRefusal(
      `${what}: ${error.message}`,
      failureCodeOfDecline({ code: error.code, decline_code: error.decline_code }),
      error.code,
    );
  }
  if (
    error instanceof Stripe.errors.StripeInvalidRequestError ||
    error instanceof Stripe.errors.StripeIdempotencyError
  ) {
    return new StripeRefusal(`${what}: ${error.message}`, 'provider_error', error.code);
  }
  if (error instanceof Stripe.errors.StripeError) {
    return new ProviderUnknownAnswer(
      `${what}: ${error.type}${error.statusCode ? ` (${error.statusCode})` : ''}: ${error.message}`,
      error.statusCode,
    );
  }
  if (error instanceof ProviderUnknownAnswer) return error;
  return new ProviderUnknownAnswer(`${what}: ${error instanceof Error ? error.message : String(error)}`);
}

/**
 * Runs one Stripe call and reads its answer with `schema`, Stripe's documented object.
 * @throws StripeRefusal (a ProviderRefusal) on a definite refusal
 * @throws ProviderUnknownAnswer on anything else, including a success status ≥ 300 or an undocumented body
 */
async function send<S extends z.ZodType>(what: string, schema: S, work: () => Promise<unknown>): Promise<z.infer<S>> {
  let answer: unknown;
  try {
    answer = await work();
  } catch (error) {
    throw answerOfError(error, what);
  }
  const statusCode = (answer as { lastResponse?: { statusCode?: number } } | null)?.lastResponse?.statusCode;
  if (statusCode !== undefined && (statusCode < 200 || statusCode >= 300))
    throw new ProviderUnknownAnswer(`${what}: Stripe answered ${statusCode} without an error`, statusCode);
  const parsed = schema.safeParse(answer);
  if (!parsed.success) throw new ProviderUnknownAnswer(`${what}: the answer does not match Stripe's documented object`);
  return parsed.data;
}

/**
 * The live `card_gateway` adapter over Stripe (see the header for each flow and answer).
 * @param settings validated Stripe settings (./settings.ts)
 */
export function createStripeProvider(settings: StripeSettings): PaymentProvider {
  const stripe = createStripeClient(settings);

  const retrieve = (reference: string) =>
    send(`retrieve PaymentIntent ${reference}`, paymentIntentSchema, () => stripe.paymentIntents.retrieve(reference));

  /**
   * The outcome of `intent`, ending a declined attempt first: the PaymentIntent is cancelled as
   * `abandoned` and the decline is the answer, unless Stripe says it can no longer be cancelled
   * (a retry on it succeeded or is processing): then its status now is.
   */
  async function settle(intent: StripePaymentIntent): Promise<ProviderOutcome> {
    if (!isDeclinedAttempt(intent)) return outcomeOfPaymentIntent(intent);
    const declined = outcomeOfPaymentIntent(intent);
    try {
      const ended = await send(`cancel declined PaymentIntent ${intent.id}`, paymentIntentSchema, () =>
        stripe.paymentIntents.cancel(intent.id, { cancellation_reason: DECLINE_CANCELLATION_REASON }),
      );
      return ended.status === 'canceled' ? declined : outcomeOfPaymentIntent(ended);
    } catch (error) {
      if (!(error instanceof StripeRefusal && error.stripeCode === UNEXPECTED_STATE)) throw error;
      const now = await retrieve(intent.id);
      // Still declined and open cannot be (that state is cancellable); read it as the decline.
      return isDeclinedAttempt(now) ? declined : outcomeOfPaymentIntent(now);
    }
  }

  /** Every refund of the PaymentIntent, page by page, until `found` picks one. */
  async function findRefund(reference: string, idempotencyKey: string) {
    let startingAfter: string | undefined;
    for (;;) {
      const page = await send(`list the refunds of ${reference}`, refundListSchema, () =>
        stripe.refunds.list({
          payment_intent: reference,
          limit: REFUND_PAGE_SIZE,
          ...(startingAfter ? { starting_after: startingAfter } : {}),
        }),
      );
      const found = page.data.find((refund) => refund.metadata?.refund_key === idempotencyKey);
      if (found) return found;
      const last = page.data.at(-1);
      if (!page.has_more || !last) return undefined;
      startingAfter = last.id;
    }
  }

  return {
    code: descriptor.code,
    supports: descriptor.live,

    /**
     * Creates (or, with the same idempotency key, finds again) the PaymentIntent.
     * @returns its id, its status (`pending` at first) and `{type: card_confirm, client_secret}`
     * @throws ProviderRefusal when Stripe refuses the request (e.g. an amount below its minimum)
     * @throws ProviderUnknownAnswer when the answer is unknown (retry with the same key)
     */
    async initiate(request) {
      const intent = await send(`create the PaymentIntent of ${request.paymentId}`, paymentIntentSchema, () =>
        stripe.paymentIntents.create(
          {
            amount: stripeAmountOf(request.amount, request.currency),
            currency: request.currency.toLowerCase(),
            description: request.description,
            metadata: { payment_id: request.paymentId },
            allowed_payment_method_types: ['card'],
          },
          { idempotencyKey: request.idempotencyKey },
        ),
      );
      if (!intent.client_secret)
        throw new ProviderUnknownAnswer(`the PaymentIntent of ${request.paymentId} came without a client_secret`);
      return {
        providerReference: intent.id,
        outcome: await settle(intent),
        nextAction: { type: 'card_confirm', client_secret: intent.client_secret },
      };
    },

    /**
     * The PaymentIntent's status now (a decline is ended first, see {@link settle}).
     * @throws ProviderRefusal for an id Stripe does not know (`resource_missing`)
     * @throws ProviderUnknownAnswer when the answer is unknown
     */
    async fetchStatus(reference) {
      const intent = await retrieve(reference);
      return { providerReference: intent.id, outcome: await settle(intent) };
    },

    /**
     * Cancels the PaymentIntent (`requested_by_customer`) → `cancelled`; when it can no longer be
     * cancelled, its status now (a success that came first wins, docs/payments.md#states).
     * @throws ProviderRefusal for an id Stripe does not know
     * @throws ProviderUnknownAnswer when the answer is unknown
     */
    async cancel(reference) {
      try {
        const intent = await send(`cancel PaymentIntent ${reference}`, paymentIntentSchema, () =>
          stripe.paymentIntents.cancel(reference, { cancellation_reason: MERCHANT_CANCELLATION_REASON }),
        );
        return { providerReference: intent.id, outcome: outcomeOfPaymentIntent(intent) };
      } catch (error) {
        if (!(error instanceof StripeRefusal && error.stripeCode === UNEXPECTED_STATE)) throw error;
        const intent = await retrieve(reference);
        return { providerReference: intent.id, outcome: await settle(intent) };
      }
    },

    /**
     * Refunds `amount` of the PaymentIntent: `succeeded` with the `re_…` id, `pending`, or `failed`
     * (a refund Stripe refused, e.g. more than is left, or one it reports failed).
     * @throws ProviderUnknownAnswer when the answer is unknown (ask with fetchRefund)
     */
    async refund(request) {
      try {
        const refund = await send(`refund ${request.amount} of ${request.providerReference}`, refundSchema, () =>
          stripe.refunds.create(
            {
              payment_intent: request.providerReference,
              amount: stripeAmountOf(request.amount, request.currency),
              metadata: { refund_key: request.idempotencyKey },
            },
            { idempotencyKey: request.idempotencyKey },
          ),
        );
        return refundAnswerOf(refund);
      } catch (error) {
        if (error instanceof ProviderRefusal) return { status: 'failed', failureMessage: error.message };
        throw error;
      }
    },

    /**
     * The refund whose `metadata.refund_key` is the request's key, or `not_received` when the
     * PaymentIntent has none (or Stripe does not know the PaymentIntent).
     * @throws ProviderUnknownAnswer when the answer is unknown
     */
    async fetchRefund(request) {
      try {
        const refund = await findRefund(request.providerReference, request.idempotencyKey);
        return refund ? refundAnswerOf(refund) : { status: 'not_received' };
      } catch (error) {
        if (error instanceof ProviderRefusal) return { status: 'not_received' };
        throw error;
      }
    },

    /**
     * A Stripe webhook event as a hint (./callback.ts).
     * @throws ProviderRefusal when its signature is missing, wrong or stale, or it names no PaymentIntent
     */
    parseCallback(request) {
      return parseStripeEvent(stripe.webhooks, request, settings.webhookSecret);
    },
  };
}
