/**
 * Stripe, provider code `card_gateway`: the runtime part of its descriptor, listed by `src/providers/registry.ts`
 * (docs/providers.md#new-provider).
 */
import type { LiveProvider } from '../provider';
import { createStripeClient, createStripeProvider } from './adapter';
import { stripeStatement } from './statement';
import { descriptor } from './descriptor';
import { variables, type StripeSettings } from './settings';

/** Stripe's descriptor, settings and adapter factory (its adapter parses its callbacks). */
export const provider: LiveProvider<StripeSettings> = {
  descriptor,
  variables,
  createAdapter: (settings) => createStripeProvider(settings),
  createStatement: (settings) => stripeStatement(createStripeClient(settings)),
};
