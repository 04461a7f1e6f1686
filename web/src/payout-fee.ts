/**
 * The fee of a payout as the API will charge it (docs/payouts.md#fees), to show before the merchant confirms:
 * 1 % of the amount rounded half up to a wallet, a flat fee per currency to a bank account. The API's own rule
 * (src/domain/payout.ts) is the one that charges; test/dashboard/payout-fee.test.ts keeps the two equal.
 */

/** Basis points of a mobile-money payout's fee (1 %). */
const MOBILE_MONEY_BASIS_POINTS = 100n;

/** The bank rail's flat fee in minor units per currency. */
const BANK_FLAT_FEE: Readonly<Record<string, number>> = { RWF: 500, UGX: 1_300, KES: 4_500 };

/**
 * The fee in minor units of a payout of `amount` minor units of `currency` to a destination of `type`.
 * @param amount a positive integer of minor units
 */
export function payoutFeeQuote(type: 'mobile_money' | 'bank_account', amount: number, currency: string): number {
  if (type === 'mobile_money') return Number((BigInt(amount) * MOBILE_MONEY_BASIS_POINTS + 5000n) / 10000n);
  return BANK_FLAT_FEE[currency] ?? 0;
}
