/**
 * Airtel Money's books of our account, for reconciliation (docs/reconciliation.md#sources): Airtel lists no
 * transactions to us, only a balance per country, so the run compares what the account holds in each country whose
 * currency our books hold for Airtel with our clearing account in that currency.
 *
 * Airtel's call (Airtel Africa developer portal, "Account" APIs, balance enquiry):
 * `GET /standard/v1/users/balance` with the Bearer token, `X-Country` and `X-Currency` of the country → 200
 * `{data: {balance: "<major units>", currency, account_status}, status: {code, message, result_code, response_code,
 * success}}`.
 */
import { isCurrency, minorFromDecimalText } from '../../domain/money';
import type { StatementSource } from '../../domain/reconciliation';
import { z } from '../../lib/zod';
import { documentedAnswer, ProviderUnknownAnswer, type FetchLike } from '../http';
import { statusBlock } from './adapter';
import { AIRTEL_COUNTRY_CURRENCIES, createAirtelClient, type AirtelClient, type AirtelCountry } from './client';
import type { AirtelSettings } from './settings';

/** The balance enquiry's path. */
export const AIRTEL_BALANCE_PATH = '/standard/v1/users/balance';

/** `GET /standard/v1/users/balance` → 200. */
const balanceAnswer = z.object({
  data: z.object({
    balance: z.union([z.string(), z.number()]),
    currency: z.string(),
    account_status: z.string().optional(),
  }),
  status: statusBlock,
});

/**
 * What Airtel says our account holds in `country`, in minor units of the country's currency.
 * @throws ProviderUnknownAnswer for a time-out, a 5xx, any status but 200, an answer Airtel does not call a success,
 *   an undocumented body, or a balance in another currency than the country's or with more decimals than it has;
 *   AirtelAuthenticationError when Airtel refuses our credentials
 */
export async function readAirtelBalance(
  call: AirtelClient['call'],
  country: AirtelCountry,
): Promise<{ currency: string; amount: number }> {
  const what = `GET ${AIRTEL_BALANCE_PATH} (${country})`;
  const response = await call('GET', AIRTEL_BALANCE_PATH, country);
  if (response.status !== 200)
    throw new ProviderUnknownAnswer(`${what}: undocumented answer (HTTP ${response.status})`, response.status);
  const answer = documentedAnswer(balanceAnswer, response.json, what);
  if (answer.status.success === false)
    throw new ProviderUnknownAnswer(`${what}: Airtel did not answer a balance (${answer.status.response_code ?? ''})`);
  const currency = AIRTEL_COUNTRY_CURRENCIES[country];
  const amount =
    answer.data.currency === currency ? minorFromDecimalText(String(answer.data.balance), currency) : undefined;
  if (amount === undefined)
    throw new ProviderUnknownAnswer(
      `${what}: a balance of ${answer.data.balance} ${answer.data.currency} this service cannot read as ${currency}`,
    );
  return { currency, amount };
}

/**
 * The Airtel countries whose wallets hold `currency` (docs/providers.md#markets): one for most, several for the CFA
 * francs (XAF: Congo-Brazzaville, Chad, Gabon), each an account of its own at Airtel.
 */
function countriesOfCurrency(currency: string): AirtelCountry[] {
  return Object.keys(AIRTEL_COUNTRY_CURRENCIES).filter((country) => AIRTEL_COUNTRY_CURRENCIES[country] === currency);
}

/**
 * Airtel's balances for `settings`: one enquiry per country whose currency our books hold for Airtel (a country we
 * never moved money in is not asked, so an account Airtel did not open there fails nothing), summed per currency.
 * @param deps the HTTP client (default: global fetch) and the token cache's clock
 */
export function airtelStatement(
  settings: AirtelSettings,
  deps: { fetch?: FetchLike; now?: () => Date } = {},
): StatementSource {
  const { call } = createAirtelClient(settings, deps.fetch ?? fetch, deps.now ?? (() => new Date()));
  return {
    method: 'balance',
    async balances(currencies) {
      const countries = currencies.filter(isCurrency).flatMap(countriesOfCurrency);
      // A currency held in several countries is the sum of its accounts there, as our books hold it.
      const byCurrency = new Map<string, number>();
      for (const country of countries) {
        const { currency, amount } = await readAirtelBalance(call, country);
        byCurrency.set(currency, (byCurrency.get(currency) ?? 0) + amount);
      }
      return [...byCurrency].map(([currency, amount]) => ({ currency, amount }));
    },
  };
}
