/**
 * The live Orange Money adapter's settings (`orange`, docs/providers.md#orange-money-orange): platform credentials from
 * the environment, validated at start by the configuration; secrets are never logged.
 */
import { z } from '../../lib/zod';
import { providerVariables } from '../provider-variables';
import { descriptor } from './descriptor';

/**
 * Where the Web Payment API serves a merchant account, the path segment of its calls
 * (`/orange-money-webpay/{market}/v1/…`), and the currency each takes: `dev` is Orange's sandbox ("Orange Money WebPay
 * Dev"), whose test wallets hold Orange's test currency `OUV`.
 */
export const ORANGE_MARKETS = { dev: 'OUV', sn: 'XOF', ci: 'XOF', cm: 'XAF' } as const;

/** A market of {@link ORANGE_MARKETS}. */
export type OrangeMarket = keyof typeof ORANGE_MARKETS;

/**
 * - `baseUrl`: Orange's API host, `https://api.orange.com` (the sandbox is the same host, market `dev`);
 * - `clientId`, `clientSecret`: the Orange Developer application's credentials (HTTP Basic to the OAuth token call);
 * - `merchantKey`: the merchant key Orange gives with the Web Payment subscription (`merchant_key`);
 * - `market`: the merchant account's country (`sn`, `ci`, `cm`) or `dev` for Orange's sandbox; one account serves one
 *   country;
 * - `returnUrl`: where Orange's page sends the customer's browser once they paid or gave up (the payment id is added
 *   as the query parameter `payment`);
 * - `reference`: the name Orange's page shows the customer (default `paycollect`), at most 30 characters;
 * - `lang`: the page's language, `fr` (default) or `en`;
 * - `timeoutMs`: time-out of every call to Orange, in milliseconds (default 8000, at most 9000: within the workflow's
 *   10 s provider call).
 */
export const orangeSettingsSchema = z.object({
  baseUrl: z.url(),
  clientId: z.string().min(1),
  clientSecret: z.string().min(1),
  merchantKey: z.string().min(1).max(100),
  market: z.enum(Object.keys(ORANGE_MARKETS) as [OrangeMarket, ...OrangeMarket[]]),
  returnUrl: z.url(),
  reference: z.string().min(1).max(30).default('paycollect'),
  lang: z.enum(['fr', 'en']).default('fr'),
  timeoutMs: z.number().int().positive().max(9000).default(8000),
});

/** The adapter's settings, as {@link orangeSettingsSchema} gives them. */
export type OrangeSettings = z.infer<typeof orangeSettingsSchema>;

/**
 * Orange Money's variables (docs/providers.md#configuration): `ORANGE_…` in live, `ORANGE_SANDBOX_…` for Orange's
 * sandbox (market `dev`).
 */
export const variables = providerVariables(descriptor.code, 'ORANGE', orangeSettingsSchema);
