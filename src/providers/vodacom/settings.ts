/**
 * The live Vodacom M-Pesa Tanzania adapter's settings (`vodacom`, docs/providers.md#vodacom-m-pesa-tanzania-vodacom):
 * platform credentials from the environment, validated at start by the configuration; secrets are never logged.
 */
import { createPublicKey } from 'node:crypto';
import { z } from '../../lib/zod';
import { providerVariables } from '../provider-variables';
import { descriptor } from './descriptor';

/** True when `value` is an RSA public key as the M-Pesa OpenAPI portal gives it: base64 of its DER (SPKI). */
export function isOpenApiPublicKey(value: string): boolean {
  try {
    return (
      createPublicKey({ key: Buffer.from(value, 'base64'), format: 'der', type: 'spki' }).asymmetricKeyType === 'rsa'
    );
  } catch {
    return false;
  }
}

/**
 * - `baseUrl`: the OpenAPI's market address, `https://openapi.m-pesa.com/openapi/ipg/v2/vodacomTZN` (sandbox:
 *   `https://openapi.m-pesa.com/sandbox/ipg/v2/vodacomTZN`); every call's path follows it (`/getSession/` …);
 * - `apiKey`: the application's API key from the OpenAPI portal (encrypted with `publicKey` to open a session);
 * - `publicKey`: the portal's public key, base64 (its DER), which encrypts the API key and each session id;
 * - `serviceProviderCode`: the business short code M-Pesa credits (`input_ServiceProviderCode`, 5 to 8 digits);
 * - `origin`: the `Origin` header the application is registered with on the portal (default `*`);
 * - `b2cServiceProviderCode`: the B2C short code payouts are paid from; with it, Vodacom also pays out
 *   (docs/payouts.md#vodacom-m-pesa-b2c);
 * - `timeoutMs`: time-out of every call, in milliseconds (default 8000, at most 9000: a C2B payment must answer, or
 *   be given up as unknown, within the workflow's 10 s provider call).
 */
export const vodacomSettingsSchema = z.object({
  baseUrl: z.url(),
  apiKey: z.string().min(1).max(200),
  publicKey: z.string().refine(isOpenApiPublicKey, 'an RSA public key, base64 of its DER, as the portal gives it'),
  serviceProviderCode: z.string().regex(/^[0-9]{5,8}$/, 'a service provider code is 5 to 8 digits'),
  origin: z.string().min(1).max(200).default('*'),
  b2cServiceProviderCode: z
    .string()
    .regex(/^[0-9]{5,8}$/, 'a service provider code is 5 to 8 digits')
    .optional(),
  timeoutMs: z.number().int().positive().max(9000).default(8000),
});

/** The adapter's settings, as {@link vodacomSettingsSchema} gives them. */
export type VodacomSettings = z.infer<typeof vodacomSettingsSchema>;

/** Vodacom's variables (docs/providers.md#configuration): `VODACOM_…` live, `VODACOM_SANDBOX_…` the OpenAPI sandbox. */
export const variables = providerVariables(descriptor.code, 'VODACOM', vodacomSettingsSchema);
