/**
 * MTN MoMo, provider code `momo`: the runtime part of its descriptor, listed by `src/providers/registry.ts`
 * (docs/providers.md#new-provider).
 */
import type { LiveProvider } from '../provider';
import { createMomoProvider } from './adapter';
import { createMomoPayoutRail } from './disbursement';
import { descriptor } from './descriptor';
import { variables, type MomoSettings } from './settings';

/** MTN MoMo's descriptor, settings, adapter factory (its adapter parses its callbacks) and Disbursement rail. */
export const provider: LiveProvider<MomoSettings> = {
  descriptor,
  variables,
  createAdapter: (settings, { callbackSecret }) => createMomoProvider(settings, { callbackSecret }),
  createPayoutRail: (settings, { callbackSecret }) => createMomoPayoutRail(settings, { callbackSecret }),
};
