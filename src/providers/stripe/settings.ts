/**
 * The `card_gateway` adapter's platform settings (docs/providers.md#adapters): Stripe's secret API key, the signing
 * secret
 * of the webhook endpoint registered at Stripe, an optional API base URL (stripe-mock or the test
 * fake in tests; Stripe's own when absent) and the time-out of one call. Secrets are never logged.
 */
import { z } from '../../lib/zod';
import { providerVariables } from '../provider-variables';
import { descriptor } from './descriptor';

/** Stripe settings as configuration parses them; `timeoutMs` in milliseconds (default 20000). */
export const stripeSettingsSchema = z.object({
  /** `sk_live_…` / `sk_test_…` (or a restricted `rk_…` key allowed PaymentIntents and Refunds). */
  secretKey: z.string().min(1),
  /** The endpoint's signing secret, `whsec_…` (Stripe Dashboard → Webhooks → the endpoint). */
  webhookSecret: z.string().min(1),
  /**
   * Where the API is, e.g. `http://127.0.0.1:12111` for stripe-mock; default `https://api.stripe.com`. Only the origin
   * is used.
   */
  apiBaseUrl: z.url().optional(),
  /** How long one call may stay silent before its answer is unknown, in milliseconds. */
  timeoutMs: z.number().int().positive().default(20000),
});

/** Parsed Stripe settings. */
export type StripeSettings = z.infer<typeof stripeSettingsSchema>;

/**
 * Stripe's variables (docs/providers.md#configuration): `STRIPE_…` in live, `STRIPE_SANDBOX_…` for Stripe's test mode.
 */
export const variables = providerVariables(descriptor.code, 'STRIPE', stripeSettingsSchema);
