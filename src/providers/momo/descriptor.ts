/** MTN MoMo, provider code `momo` (docs/providers.md#mtn-momo): what the domain knows of it. */
import type { ProviderDescriptor } from '../../domain/provider-descriptor';

/**
 * MTN MoMo's descriptor: RW, UG, GH in their own currency; no cancel (a request-to-pay lapses), whole and partial
 * refunds by the Disbursement product's `Refund`, which takes an amount (docs/providers.md#mtn-momo); payouts by the
 * Disbursement product too, with its account-holder lookup.
 */
export const descriptor = {
  code: 'momo',
  operator: 'MTN MoMo',
  kind: 'mobile_money',
  generic: { method: 'mobile_money', countries: ['RW', 'UG', 'GH'], currencies: ['RWF', 'UGX', 'GHS'] },
  merchant: { countries: ['RW', 'UG', 'GH'], currencies: ['RWF', 'UGX', 'GHS'] },
  prefixes: { RW: ['78', '79'], UG: ['77', '78', '76', '39'], GH: ['24', '25', '53', '54', '55', '59'] },
  feeBasisPoints: 150,
  settlementDelayDays: 1,
  live: { cancel: false, refund: true, partialRefund: true },
  // MoMo Disbursement `transfer` to a wallet in the target environment's currency (docs/payouts.md#rails).
  payouts: { destination: 'mobile_money', currencies: ['RWF', 'UGX', 'GHS'], live: true, accountHolderLookup: true },
} as const satisfies ProviderDescriptor;
