/**
 * Safaricom M-Pesa, provider code `mpesa`: the runtime part of its descriptor, listed by `src/providers/registry.ts`
 * (docs/providers.md#new-provider).
 */
import type { LiveProvider } from '../provider';
import { createMpesaProvider } from './adapter';
import { createMpesaPayoutRail } from './b2c';
import { descriptor } from './descriptor';
import { variables, type MpesaSettings } from './settings';

/** M-Pesa's descriptor, settings, adapter factory (its adapter parses its callbacks, payouts' too) and B2C rail. */
export const provider: LiveProvider<MpesaSettings> = {
  descriptor,
  variables,
  createAdapter: (settings, { callbackSecret, requestLog }) =>
    createMpesaProvider(settings, { callbackSecret, requestLog }),
  createPayoutRail: (settings, deps) => createMpesaPayoutRail(settings, deps),
};
