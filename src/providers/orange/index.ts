/**
 * Orange Money, provider code `orange`: the runtime part of its descriptor, listed by `src/providers/registry.ts`
 * (docs/providers.md#new-provider).
 */
import type { LiveProvider } from '../provider';
import { createOrangeProvider } from './adapter';
import { descriptor } from './descriptor';
import { variables, type OrangeSettings } from './settings';

/** Orange Money's descriptor, settings and adapter factory (its adapter parses its notifications). */
export const provider: LiveProvider<OrangeSettings> = {
  descriptor,
  variables,
  createAdapter: (settings, { callbackSecret, requestLog }) =>
    createOrangeProvider(settings, { callbackSecret, requestLog }),
};
