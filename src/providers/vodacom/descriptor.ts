/** Vodacom M-Pesa Tanzania, provider code `vodacom` (docs/providers.md#vodacom-m-pesa-tanzania-vodacom). */
import type { ProviderDescriptor } from '../../domain/provider-descriptor';

/**
 * Vodacom M-Pesa Tanzania's descriptor: Tanzania, TZS, the first choice for Vodacom Tanzania numbers (national
 * significant numbers 74, 75 and 76, as the Tanzania Communications Regulatory Authority allocates them to Vodacom);
 * whole shillings only; no cancel (a USSD prompt cannot be withdrawn); refunds by the M-Pesa OpenAPI's reversal, of
 * the whole payment only; payouts by the OpenAPI's B2C.
 */
export const descriptor = {
  code: 'vodacom',
  operator: 'Vodacom M-Pesa',
  kind: 'mobile_money',
  generic: { method: 'mobile_money', countries: ['TZ'], currencies: ['TZS'] },
  merchant: { countries: ['TZ'], currencies: ['TZS'] },
  prefixes: { TZ: ['74', '75', '76'] },
  feeBasisPoints: 150,
  // The OpenAPI's `input_Amount` is taken in whole shillings: Tanzanian cents do not circulate.
  wholeUnitsOnly: true,
  // Mobile money settles with us the next day (docs/ledger.md#available-on).
  settlementDelayDays: 1,
  live: { cancel: false, refund: true, partialRefund: false },
  // The OpenAPI's B2C payment to a Vodacom number, whole shillings; no holder lookup
  // (docs/payouts.md#vodacom-m-pesa-b2c).
  payouts: { destination: 'mobile_money', currencies: ['TZS'], live: true, accountHolderLookup: false },
} as const satisfies ProviderDescriptor;
