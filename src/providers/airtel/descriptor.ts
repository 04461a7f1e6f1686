/** Airtel Money, provider code `mobile_money_b` (docs/providers.md#airtel-money): what the domain knows of it. */
import type { ProviderDescriptor } from '../../domain/provider-descriptor';

/**
 * Airtel Money's descriptor: RW, UG, KE (Airtel Kenya's numbers: 730–739, 750–756, 762, 780–789, 100–102; Safaricom's
 * go to `mpesa`); whole refunds only in live (docs/providers.md#airtel-money);
 * payouts by its B2C disbursement.
 */
export const descriptor = {
  code: 'mobile_money_b',
  operator: 'Airtel Money',
  kind: 'mobile_money',
  generic: { method: 'mobile_money', countries: ['RW', 'UG', 'KE'], currencies: ['RWF', 'UGX', 'KES'] },
  merchant: { countries: ['RW', 'UG', 'KE'], currencies: ['RWF', 'UGX', 'KES'] },
  prefixes: {
    RW: ['72', '73'],
    UG: ['70', '74', '75'],
    KE: ['73', '750', '751', '752', '753', '754', '755', '756', '762', '78', '100', '101', '102'],
  },
  feeBasisPoints: 150,
  settlementDelayDays: 1,
  live: { cancel: false, refund: true, partialRefund: false },
  // Airtel's B2C disbursement; Airtel's user enquiry is not used, so holders are not looked up (docs/payouts.md#rails).
  payouts: { destination: 'mobile_money', currencies: ['RWF', 'UGX', 'KES'], live: true, accountHolderLookup: false },
} as const satisfies ProviderDescriptor;
