/** Wave, provider code `wave` (docs/providers.md#wave-wave): what the domain knows of it. */
import type { ProviderDescriptor } from '../../domain/provider-descriptor';

/**
 * Wave's descriptor: Senegal and Côte d'Ivoire, XOF (no minor unit), through Wave's Checkout API. Wave is a wallet
 * any mobile number of those countries may hold, not a network: it claims no leading digits (empty prefix lists), so
 * a generic payment reaches it only by naming `operator: wave`, and the merchant-scoped method `wave` names it
 * outright. The checkout session can be expired while open (cancel); a refund returns the whole payment (Wave's refund
 * of a checkout session takes no amount: docs/providers.md#wave-wave). Payouts by Wave's Payout API to Wave wallets in
 * XOF (docs/payouts.md#wave-payouts).
 */
export const descriptor = {
  code: 'wave',
  operator: 'Wave',
  kind: 'mobile_money',
  generic: { method: 'mobile_money', countries: ['SN', 'CI'], currencies: ['XOF'] },
  merchant: { countries: ['SN', 'CI'], currencies: ['XOF'] },
  prefixes: { SN: [], CI: [] },
  feeBasisPoints: 100,
  // XOF has no minor unit: every amount of minor units is a whole number of francs.
  // Mobile money settles with us the next day (docs/ledger.md#available-on).
  settlementDelayDays: 1,
  live: { cancel: true, refund: true, partialRefund: false },
  // Wave's Payout API to a mobile number's Wave wallet; no holder lookup.
  payouts: { destination: 'mobile_money', currencies: ['XOF'], live: true, accountHolderLookup: false },
} as const satisfies ProviderDescriptor;
