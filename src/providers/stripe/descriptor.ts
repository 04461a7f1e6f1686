/** Cards through Stripe, provider code `card_gateway` (docs/providers.md#stripe): what the domain knows of it. */
import type { ProviderDescriptor } from '../../domain/provider-descriptor';

/**
 * The card gateway's descriptor: every country; GHS on the merchant-scoped endpoint only; cancel and partial refunds in
 * live.
 */
export const descriptor = {
  code: 'card_gateway',
  operator: 'Stripe',
  kind: 'card',
  generic: { method: 'card', countries: '*', currencies: ['USD', 'EUR', 'GBP'] },
  merchant: { countries: '*', currencies: ['USD', 'EUR', 'GBP', 'GHS'] },
  feeBasisPoints: 290,
  settlementDelayDays: 2,
  live: { cancel: true, refund: true, partialRefund: true },
  payouts: null,
} as const satisfies ProviderDescriptor;
