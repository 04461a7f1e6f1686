/** The fee schedule (docs/payments.md#fees): basis points per provider, rounded half-up to the minor unit. */
import { byProvider, type ProviderCode } from './catalogue';
import { marketTerms } from './markets';
import { percentageOfMinor } from './money';
import type { PaymentSnapshot, PaymentStatus } from './payment';

/**
 * Default fee rates (docs/payments.md#fees) in basis points (hundredths of a percent), from the descriptors: card 2.9
 * %, momo 1.5 % …
 */
export const DEFAULT_FEE_BASIS_POINTS: Readonly<Record<ProviderCode, number>> = byProvider((d) => d.feeBasisPoints);

/**
 * The default fee rate of a payment through `provider` from a customer in `country` (ISO alpha-2), in basis points:
 * the markets table's row of the provider there (docs/providers.md#market-terms), else the provider's own.
 */
export function feeBasisPointsFor(provider: ProviderCode, country?: string | null): number {
  return marketTerms(provider, country)?.feeBasisPoints ?? DEFAULT_FEE_BASIS_POINTS[provider];
}

/**
 * The fee of a payment of `amount` minor units through `provider` from a customer in `country` (ISO alpha-2, when
 * known), in minor units, at {@link feeBasisPointsFor}'s rate.
 */
export function feeFor(amount: number, provider: ProviderCode, country?: string | null): number {
  return percentageOfMinor(amount, feeBasisPointsFor(provider, country));
}

/** A fee rate in basis points as the decimal percentage string the merchant-scoped form shows ("2.90"). */
export function formatFeePercentage(basisPoints: number): string {
  return (basisPoints / 100).toFixed(2);
}

/**
 * Payment statuses in which the provider collected the payment's money, so its fee is charged and
 * its net is the merchant's (docs/limits.md#lists). In the others (pending, processing, failed, and
 * cancelled unless a late success was collected) no money moved.
 */
export const COLLECTED_STATUSES: readonly PaymentStatus[] = ['completed', 'refunded'];

/**
 * A payment's fee and net as the transaction list shows them (docs/limits.md#lists), in minor units:
 * once the provider collected the money, its fee and `amount − fee` (its refunds are rows of their
 * own); otherwise 0 and 0.
 * @param lateSuccessCollected true for a cancelled payment whose late success was collected (it
 *   carries the automatic refund of docs/payments.md#states), which counts as collected too
 */
export function feeAndNetOf(
  payment: Pick<PaymentSnapshot, 'status' | 'amount' | 'feeAmount'>,
  lateSuccessCollected: boolean,
): { fee: number; net: number } {
  const collected =
    COLLECTED_STATUSES.includes(payment.status) || (payment.status === 'cancelled' && lateSuccessCollected);
  return collected ? { fee: payment.feeAmount, net: payment.amount - payment.feeAmount } : { fee: 0, net: 0 };
}
