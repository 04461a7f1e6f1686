/**
 * MTN MoMo, provider code `momo`: the runtime part of its descriptor, listed by `src/providers/registry.ts`
 * (docs/providers.md#new-provider).
 */
import type { LiveProvider } from '../provider';
import { createMomoProvider } from './adapter';
import { descriptor } from './descriptor';
import { variables, type MomoSettings } from './settings';

/** MTN MoMo's descriptor, settings and adapter factory (its adapter parses its callbacks). */
export const provider: LiveProvider<MomoSettings> = {
  descriptor,
  variables,
  createAdapter: (settings, { callbackSecret }) => createMomoProvider(settings, { callbackSecret }),
};
