/** The wallet, provider code `wallet` (docs/payments.md#methods): sandbox only, no live adapter. */
import type { ProviderDescriptor } from '../../domain/provider-descriptor';

/** The wallet's descriptor: every country, merchant-scoped endpoint only. */
export const descriptor = {
  code: 'wallet',
  operator: 'Wallet',
  kind: 'wallet',
  merchant: { countries: '*', currencies: ['USD', 'GHS', 'EUR'] },
  feeBasisPoints: 100,
  settlementDelayDays: 0,
  live: null,
  payouts: null,
} as const satisfies ProviderDescriptor;
