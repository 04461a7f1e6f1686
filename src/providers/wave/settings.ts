/**
 * The live Wave adapter's settings (`wave`, docs/providers.md#wave-wave): platform credentials from the environment,
 * validated at start by the configuration; secrets are never logged.
 */
import { z } from '../../lib/zod';
import { providerVariables } from '../provider-variables';
import { descriptor } from './descriptor';

/**
 * - `baseUrl`: Wave's API host, `https://api.wave.com` (Wave has no separate sandbox host: a test wallet's key);
 * - `apiKey`: the business wallet's API key (`wave_sn_prod_…`), made in the Wave Business Portal's developer section
 *   with the Checkout API allowed; sent as `Authorization: Bearer`;
 * - `webhookSecret`: the signing secret of the webhook registered in the portal (`wave_sn_WHS_…`) with the "signing
 *   secret" strategy; it keys the HMAC-SHA256 of each event's `Wave-Signature`;
 * - `successUrl`, `errorUrl`: the https pages Wave sends the customer to after paying or after an error (Wave requires
 *   both on every checkout session);
 * - `timeoutMs`: time-out of every call to Wave, in milliseconds (default 8000, at most 9000: an initiation must
 *   answer, or be given up as unknown, within the workflow's 10 s provider call).
 */
export const waveSettingsSchema = z.object({
  baseUrl: z.url(),
  apiKey: z.string().min(1),
  webhookSecret: z.string().min(1),
  successUrl: z.url(),
  errorUrl: z.url(),
  timeoutMs: z.number().int().positive().max(9000).default(8000),
});

/** The adapter's settings, as {@link waveSettingsSchema} gives them. */
export type WaveSettings = z.infer<typeof waveSettingsSchema>;

/** Wave's variables (docs/providers.md#configuration): `WAVE_…` in live, `WAVE_SANDBOX_…` for a test wallet. */
export const variables = providerVariables(descriptor.code, 'WAVE', waveSettingsSchema);
