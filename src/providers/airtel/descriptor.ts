/** Airtel Money, provider code `mobile_money_b` (docs/providers.md#airtel-money): what the domain knows of it. */
import { marketOperatorDescriptor } from '../../domain/market-operator';

/**
 * Airtel Money's descriptor: every market of the markets table with an Airtel row (in Kenya Airtel's numbers: 730–739,
 * 750–756, 762, 780–789, 100–102; Safaricom's go to `mpesa`); whole refunds only in live
 * (docs/providers.md#airtel-money); payouts by its B2C disbursement. Airtel's user enquiry is not used, so holders are
 * not looked up (docs/payouts.md#rails).
 */
export const descriptor = marketOperatorDescriptor('mobile_money_b', {
  operator: 'Airtel Money',
  feeBasisPoints: 150,
  live: { cancel: false, refund: true, partialRefund: false },
  accountHolderLookup: false,
});
