/**
 * Vodacom M-Pesa Tanzania, provider code `vodacom`: the runtime part of its descriptor, listed by
 * `src/providers/registry.ts` (docs/providers.md#new-provider).
 */
import type { LiveProvider } from '../provider';
import { createVodacomProvider } from './adapter';
import { descriptor } from './descriptor';
import { variables, type VodacomSettings } from './settings';

/** Vodacom's descriptor, settings and adapter factory (it takes no callbacks: the OpenAPI answers in its responses). */
export const provider: LiveProvider<VodacomSettings> = {
  descriptor,
  variables,
  createAdapter: (settings, { requestLog }) => createVodacomProvider(settings, { requestLog }),
};
