/**
 * MTN MoMo's books of our account, for reconciliation (docs/reconciliation.md#sources): MoMo lists no
 * transactions, only balances, so the run compares what the Collection account holds plus what the
 * Disbursement account holds (when its credentials are configured) with our clearing account.
 */
import type { StatementSource } from '../../domain/reconciliation';
import type { LiveProviderDeps } from './adapter';
import { createMomoClient, createMomoDisbursementClient } from './client';
import { readMomoBalance } from './disbursement';
import type { MomoSettings } from './settings';

/**
 * MoMo's balances for `settings`, summed per currency.
 * @param deps the HTTP client and the token cache's clock (the callback secret is not used)
 */
export function momoStatement(
  settings: MomoSettings,
  deps: Omit<LiveProviderDeps, 'callbackSecret'> = {},
): StatementSource {
  const fetchImpl = deps.fetch ?? fetch;
  const now = deps.now ?? (() => new Date());
  const collection = createMomoClient('collection', settings, fetchImpl, now);
  const disbursement = createMomoDisbursementClient(settings, fetchImpl, now);
  return {
    method: 'balance',
    async balances() {
      const read = [await readMomoBalance(collection.call, 'collection')];
      if (disbursement) read.push(await readMomoBalance(disbursement.call, 'disbursement'));
      const byCurrency = new Map<string, number>();
      for (const { currency, amount } of read) byCurrency.set(currency, (byCurrency.get(currency) ?? 0) + amount);
      return [...byCurrency].map(([currency, amount]) => ({ currency, amount }));
    },
  };
}
