/** MTN MoMo, provider code `momo` (docs/providers.md#mtn-momo): what the domain knows of it. */
import { reachOf } from '../../domain/markets';
import type { ProviderDescriptor } from '../../domain/provider-descriptor';

/** MoMo's markets (docs/providers.md#markets): countries, currencies and prefixes from the markets table. */
const markets = reachOf('momo');

/**
 * MTN MoMo's descriptor: every market of the markets table with an MTN row, each in its own currency; no cancel (a
 * request-to-pay lapses), whole and partial refunds by the Disbursement product's `Refund`, which takes an amount
 * (docs/providers.md#mtn-momo); payouts by the Disbursement product too, with its account-holder lookup.
 */
export const descriptor = {
  code: 'momo',
  operator: 'MTN MoMo',
  kind: 'mobile_money',
  generic: { method: 'mobile_money', countries: markets.countries, currencies: markets.currencies },
  merchant: { countries: markets.countries, currencies: markets.currencies },
  prefixes: markets.prefixes,
  feeBasisPoints: 150,
  settlementDelayDays: 1,
  live: { cancel: false, refund: true, partialRefund: true },
  // MoMo Disbursement `transfer` to a wallet in the target environment's currency (docs/payouts.md#rails).
  payouts: { destination: 'mobile_money', currencies: markets.currencies, live: true, accountHolderLookup: true },
} as const satisfies ProviderDescriptor;
