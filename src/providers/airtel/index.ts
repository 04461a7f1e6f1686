/**
 * Airtel Money, provider code `mobile_money_b`: the runtime part of its descriptor, listed by
 * `src/providers/registry.ts` (docs/providers.md#new-provider).
 */
import type { LiveProvider } from '../provider';
import { createAirtelProvider } from './adapter';
import { createAirtelPayoutRail } from './disbursement';
import { descriptor } from './descriptor';
import { airtelStatement } from './statement';
import { variables, type AirtelSettings } from './settings';

/**
 * Airtel Money's descriptor, settings, adapter factory (its adapter parses its callbacks), disbursement rail and its
 * balance for reconciliation.
 */
export const provider: LiveProvider<AirtelSettings> = {
  descriptor,
  variables,
  createAdapter: (settings) => createAirtelProvider(settings),
  createPayoutRail: (settings) => createAirtelPayoutRail(settings),
  createStatement: (settings) => airtelStatement(settings),
};
