/**
 * The live Airtel Money adapter's settings (`mobile_money_b`, docs/providers.md#adapters): platform credentials from
 * the
 * environment, validated at start by the configuration; secrets are never logged.
 */
import { z } from '../../lib/zod';
import { allOrNone, providerVariables } from '../provider-variables';
import { descriptor } from './descriptor';

/**
 * - `baseUrl`: Airtel's API host, e.g. `https://openapi.airtel.africa` (UAT: `https://openapiuat.airtel.africa`);
 * - `clientId`, `clientSecret`: the application's credentials from the Airtel developer portal;
 * - `callbackPrivateKey`: the private key of "callback authentication" in the application's
 *   settings; when set, every callback must carry its valid `hash` (see ./callback.ts);
 * - `timeoutMs`: time-out of every call to Airtel, in milliseconds (default 15000);
 * - `disbursementPin`, `pinPublicKey`: the disbursement wallet's 4-digit PIN and Airtel's RSA public key (base64 DER,
 *   or PEM) it is encrypted with, both or neither; with them Airtel is a payout rail (docs/payouts.md#rails).
 */
export const airtelSettingsSchema = z
  .object({
    baseUrl: z.url(),
    clientId: z.string().min(1),
    clientSecret: z.string().min(1),
    callbackPrivateKey: z.string().min(1).optional(),
    timeoutMs: z.number().int().positive().default(15000),
    disbursementPin: z
      .string()
      .regex(/^[0-9]{4}$/, 'a PIN of 4 digits')
      .optional(),
    pinPublicKey: z.string().min(1).optional(),
  })
  .superRefine(allOrNone(['disbursementPin', 'pinPublicKey'], 'required when the other disbursement setting is given'));

/** The adapter's settings, as {@link airtelSettingsSchema} gives them. */
export type AirtelSettings = z.infer<typeof airtelSettingsSchema>;

/** Airtel's variables (docs/providers.md#configuration): `AIRTEL_…` in live, `AIRTEL_SANDBOX_…` for Airtel's UAT. */
export const variables = providerVariables(descriptor.code, 'AIRTEL', airtelSettingsSchema);
