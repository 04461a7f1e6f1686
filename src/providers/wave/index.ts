/**
 * Wave, provider code `wave`: the runtime part of its descriptor, listed by `src/providers/registry.ts`
 * (docs/providers.md#new-provider).
 */
import type { LiveProvider } from '../provider';
import { createWaveProvider } from './adapter';
import { descriptor } from './descriptor';
import { createWavePayoutRail } from './payout';
import { variables, type WaveSettings } from './settings';

/** Wave's descriptor, settings, adapter factory (its adapter parses its webhook events) and payout rail. */
export const provider: LiveProvider<WaveSettings> = {
  descriptor,
  variables,
  createAdapter: (settings, { requestLog }) => createWaveProvider(settings, { requestLog }),
  createPayoutRail: (settings) => createWavePayoutRail(settings),
};
