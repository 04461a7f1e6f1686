/**
 * The live MTN MoMo adapter's settings (`momo`, docs/providers.md#adapters): platform credentials from the environment,
 * validated at start by the configuration; secrets are never logged.
 */
import { z } from '../../lib/zod';
import { allOrNone, providerVariables } from '../provider-variables';
import { descriptor } from './descriptor';

/**
 * - `baseUrl`: MoMo's API host: `https://sandbox.momodeveloper.mtn.com` for MTN's sandbox, the
 *   country's proxy in production (e.g. `https://proxy.momoapi.mtn.co.rw`);
 * - `apiUser`, `apiKey`: the API user (a UUID) and its key, from the Partner Portal in production
 *   (in MTN's sandbox: made with the provisioning API); sent as HTTP Basic to `/collection/token/`;
 * - `subscriptionKey`: the Collection product's primary (or secondary) key, `Ocp-Apim-Subscription-Key`;
 * - `targetEnvironment`: `X-Target-Environment`, `sandbox` or `mtn<country>` (`mtnrwanda`,
 *   `mtnuganda`, `mtnghana`);
 * - `timeoutMs`: time-out of every call to MoMo, in milliseconds (default 15000);
 * - `disbursementApiUser`, `disbursementApiKey`, `disbursementSubscriptionKey`: the Disbursement product's own API
 *   user, key and subscription key (MTN issues them per product), all three or none; with them MoMo is a payout
 *   rail (docs/payouts.md#rails), without them it only collects.
 */
export const momoSettingsSchema = z
  .object({
    baseUrl: z.url(),
    apiUser: z.string().min(1),
    apiKey: z.string().min(1),
    subscriptionKey: z.string().min(1),
    targetEnvironment: z.string().min(1),
    timeoutMs: z.number().int().positive().default(15000),
    disbursementApiUser: z.string().min(1).optional(),
    disbursementApiKey: z.string().min(1).optional(),
    disbursementSubscriptionKey: z.string().min(1).optional(),
  })
  .superRefine(
    allOrNone(
      ['disbursementApiUser', 'disbursementApiKey', 'disbursementSubscriptionKey'],
      'required when the other Disbursement settings are given',
    ),
  );

/** The adapter's settings, as {@link momoSettingsSchema} gives them. */
export type MomoSettings = z.infer<typeof momoSettingsSchema>;

/** MoMo's variables (docs/providers.md#configuration): `MOMO_…` in live, `MOMO_SANDBOX_…` for MTN's sandbox. */
export const variables = providerVariables(descriptor.code, 'MOMO', momoSettingsSchema);
