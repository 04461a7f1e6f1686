/** MTN MoMo, provider code `momo` (docs/providers.md#mtn-momo): what the domain knows of it. */
import { marketOperatorDescriptor } from '../../domain/market-operator';

/**
 * MTN MoMo's descriptor: every market of the markets table with an MTN row, each in its own currency; no cancel (a
 * request-to-pay lapses), whole and partial refunds by the Disbursement product's `Refund`, which takes an amount
 * (docs/providers.md#mtn-momo); payouts by the Disbursement product too (a `transfer` to a wallet in the target
 * environment's currency, docs/payouts.md#rails), with its account-holder lookup.
 */
export const descriptor = marketOperatorDescriptor('momo', {
  operator: 'MTN MoMo',
  feeBasisPoints: 150,
  live: { cancel: false, refund: true, partialRefund: true },
  accountHolderLookup: true,
});
