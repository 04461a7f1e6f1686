/**
 * Mobile money operator C, provider code `mobile_money_c` (docs/payments.md#methods): sandbox only, no live adapter.
 */
import type { ProviderDescriptor } from '../../domain/provider-descriptor';

/** Operator C's descriptor: Liberia, merchant-scoped endpoint only. */
export const descriptor = {
  code: 'mobile_money_c',
  operator: 'Mobile money operator C',
  kind: 'mobile_money',
  merchant: { countries: ['LR'], currencies: ['USD', 'LRD'] },
  prefixes: { LR: ['88', '77'] },
  feeBasisPoints: 200,
  settlementDelayDays: 1,
  live: null,
  payouts: null,
} as const satisfies ProviderDescriptor;
