/** Airtel Money, provider code `mobile_money_b` (docs/providers.md#airtel-money): what the domain knows of it. */
import { reachOf } from '../../domain/markets';
import type { ProviderDescriptor } from '../../domain/provider-descriptor';

/** Airtel's markets (docs/providers.md#markets): countries, currencies and prefixes from the markets table. */
const markets = reachOf('mobile_money_b');

/**
 * Airtel Money's descriptor: every market of the markets table with an Airtel row (in Kenya Airtel's numbers: 730–739,
 * 750–756, 762, 780–789, 100–102; Safaricom's go to `mpesa`); whole refunds only in live
 * (docs/providers.md#airtel-money); payouts by its B2C disbursement.
 */
export const descriptor = {
  code: 'mobile_money_b',
  operator: 'Airtel Money',
  kind: 'mobile_money',
  generic: { method: 'mobile_money', countries: markets.countries, currencies: markets.currencies },
  merchant: { countries: markets.countries, currencies: markets.currencies },
  prefixes: markets.prefixes,
  feeBasisPoints: 150,
  settlementDelayDays: 1,
  live: { cancel: false, refund: true, partialRefund: false },
  // Airtel's B2C disbursement; Airtel's user enquiry is not used, so holders are not looked up (docs/payouts.md#rails).
  payouts: { destination: 'mobile_money', currencies: markets.currencies, live: true, accountHolderLookup: false },
} as const satisfies ProviderDescriptor;
