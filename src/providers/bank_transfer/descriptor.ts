/** Bank transfer, provider code `bank_transfer` (docs/payments.md#methods): sandbox only, no live adapter. */
import type { ProviderDescriptor } from '../../domain/provider-descriptor';

/** The bank transfer's descriptor: Rwanda in RWF, generic endpoint only; bank payouts in the sandbox only. */
export const descriptor = {
  code: 'bank_transfer',
  operator: 'Bank transfer',
  kind: 'bank_transfer',
  generic: { method: 'bank_transfer', countries: ['RW'], currencies: ['RWF'] },
  feeBasisPoints: 50,
  settlementDelayDays: 0,
  live: null,
  // The sandbox simulator pays bank accounts; live has no bank partner yet (docs/payouts.md#rails).
  payouts: { destination: 'bank_account', currencies: ['RWF', 'UGX', 'KES'], live: false, accountHolderLookup: false },
} as const satisfies ProviderDescriptor;
