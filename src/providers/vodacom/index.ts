/**
 * Vodacom M-Pesa Tanzania, provider code `vodacom`: the runtime part of its descriptor, listed by
 * `src/providers/registry.ts` (docs/providers.md#new-provider).
 */
import type { LiveProvider } from '../provider';
import { createVodacomProvider } from './adapter';
import { createVodacomPayoutRail } from './b2c';
import { descriptor } from './descriptor';
import { variables, type VodacomSettings } from './settings';

/**
 * Vodacom's descriptor, settings, adapter factory (it takes no callbacks: the OpenAPI answers in its responses) and
 * B2C payout rail.
 */
export const provider: LiveProvider<VodacomSettings> = {
  descriptor,
  variables,
  createAdapter: (settings, { requestLog }) => createVodacomProvider(settings, { requestLog }),
  createPayoutRail: (settings, { requestLog }) => createVodacomPayoutRail(settings, { requestLog }),
};
