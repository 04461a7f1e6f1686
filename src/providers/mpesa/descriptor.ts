/** Safaricom M-Pesa, provider code `mpesa` (docs/providers.md#m-pesa): what the domain knows of it. */
import type { ProviderDescriptor } from '../../domain/provider-descriptor';

/**
 * M-Pesa's descriptor: Kenya, KES, the first choice for Safaricom numbers (national significant numbers 70–72, 740–743,
 * 745, 746, 748, 757–759, 768, 769, 79, 110–115, as the Communications Authority of Kenya allocates them); whole
 * shillings only; no cancel (a prompt cannot be withdrawn); refunds by Daraja's Reversal, of the whole payment only
 * (a reversal returns a transaction, never part of it: docs/providers.md#m-pesa); payouts by B2C.
 */
export const descriptor = {
  code: 'mpesa',
  operator: 'M-Pesa',
  kind: 'mobile_money',
  generic: { method: 'mobile_money', countries: ['KE'], currencies: ['KES'] },
  merchant: { countries: ['KE'], currencies: ['KES'] },
  prefixes: {
    KE: [
      '70',
      '71',
      '72',
      '740',
      '741',
      '742',
      '743',
      '745',
      '746',
      '748',
      '757',
      '758',
      '759',
      '768',
      '769',
      '79',
      '110',
      '111',
      '112',
      '113',
      '114',
      '115',
    ],
  },
  feeBasisPoints: 150,
  // Daraja's STK push takes `Amount` as a whole number of shillings.
  wholeUnitsOnly: true,
  // Mobile money settles with us the next day (docs/ledger.md#available-on).
  settlementDelayDays: 1,
  live: { cancel: false, refund: true, partialRefund: false },
  // Daraja's B2C payment to a Safaricom number, whole shillings; no holder lookup (docs/payouts.md#m-pesa-b2c).
  payouts: { destination: 'mobile_money', currencies: ['KES'], live: true, accountHolderLookup: false },
} as const satisfies ProviderDescriptor;
