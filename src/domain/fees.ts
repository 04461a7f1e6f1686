/** The fee schedule (docs/payments.md#fees): basis points per provider, rounded half-up to the minor unit. */
import type { ProviderCode } from './catalogue';
import { percentageOfMinor } from './money';

/** Default fee rates (docs/payments.md#fees) in basis points (hundredths of a percent): card 2.9 %, momo 1.5 % … */
export const DEFAULT_FEE_BASIS_POINTS: Readonly<Record<ProviderCode, number>> = {
  card_gateway: 290,
  momo: 150,
  mobile_money_b: 150,
  mobile_money_c: 200,
  wallet: 100,
  bank_transfer: 50,
};

/** The fee of a payment of `amount` minor units through `provider`, in minor units. */
export function feeFor(amount: number, provider: ProviderCode, schedule = DEFAULT_FEE_BASIS_POINTS): number {
  return percentageOfMinor(amount, schedule[provider]);
}

/** A fee rate in basis points as the decimal percentage string the merchant-scoped form shows ("2.90"). */
export function formatFeePercentage(basisPoints: number): string {
  return (basisPoints / 100).toFixed(2);
}
