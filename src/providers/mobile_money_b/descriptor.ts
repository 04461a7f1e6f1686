/** Airtel Money, provider code `mobile_money_b` (docs/providers.md#airtel-money): what the domain knows of it. */
import type { ProviderDescriptor } from '../../domain/provider-descriptor';

/**
 * Airtel Money's descriptor: RW, UG, KE (every Kenyan number); whole refunds only in live
 * (docs/providers.md#airtel-money).
 */
export const descriptor = {
  code: 'mobile_money_b',
  operator: 'Airtel Money',
  kind: 'mobile_money',
  generic: { method: 'mobile_money', countries: ['RW', 'UG', 'KE'], currencies: ['RWF', 'UGX', 'KES'] },
  merchant: { countries: ['RW', 'UG', 'KE'], currencies: ['RWF', 'UGX', 'KES'] },
  prefixes: { RW: ['72', '73'], UG: ['70', '74', '75'], KE: [''] },
  feeBasisPoints: 150,
  settlementDelayDays: 1,
  live: { cancel: false, refund: true, partialRefund: false },
} as const satisfies ProviderDescriptor;
