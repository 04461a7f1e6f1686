/**
 * The descriptor of a mobile money operator whose reach the markets table holds (docs/providers.md#markets): MTN MoMo
 * and Airtel Money, each in many countries. Pure, like every descriptor.
 */
import { reachOf, type MarketProvider } from './markets';
import type { ProviderCapabilities, ProviderDescriptor } from './provider-descriptor';

/**
 * The descriptor of `code`, a mobile money operator of the markets table: offered as the generic `mobile_money` and as
 * its own method in every country of its rows, in their currencies, reached by their prefixes; settled the next day
 * (docs/ledger.md#available-on); paid out to its wallets in the same currencies by its live rail
 * (docs/payouts.md#rails).
 * @param own what the table does not say: the operator's name, its default fee rate (basis points), its live adapter's
 *   flows, and whether its rail can say who holds a wallet
 */
export function marketOperatorDescriptor<const Code extends MarketProvider>(
  code: Code,
  own: { operator: string; feeBasisPoints: number; live: ProviderCapabilities; accountHolderLookup: boolean },
) {
  const { countries, currencies, prefixes } = reachOf(code);
  return {
    code,
    operator: own.operator,
    kind: 'mobile_money',
    generic: { method: 'mobile_money', countries, currencies },
    merchant: { countries, currencies },
    prefixes,
    feeBasisPoints: own.feeBasisPoints,
    settlementDelayDays: 1,
    live: own.live,
    payouts: { destination: 'mobile_money', currencies, live: true, accountHolderLookup: own.accountHolderLookup },
  } as const satisfies ProviderDescriptor<Code>;
}
