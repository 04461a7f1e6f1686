/**
 * Choosing one currency among those of the balance (`GET /v1/balance`, docs/ledger.md#balance), so that a screen shows
 * one currency's figures and never adds amounts of two currencies up (docs/limits.md#lists). The choice lives in the
 * URL (`?currency=`), so a chosen view can be bookmarked.
 */
import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { api, type Environment } from './api';
import { balanceCurrencies } from './money-reports';
import type { Balance } from './types';

/**
 * The balance's currencies (sorted by code; `loading` until the balance is read) and the chosen one: the URL's
 * `currency` when it is one of them, else the first; '' when the balance holds none. `choose(code)` keeps the URL's
 * other parameters.
 */
export function useCurrencyChoice(env: Environment) {
  const [params, setParams] = useSearchParams();
  const balance = useQuery({ queryKey: ['balance', env], queryFn: () => api<Balance>('/v1/balance', { env }) });
  const currencies = balanceCurrencies(balance.data);
  const asked = params.get('currency') ?? '';
  const currency = currencies.includes(asked) ? asked : (currencies[0] ?? '');
  const choose = (code: string) => {
    const next = new URLSearchParams(params);
    next.set('currency', code);
    setParams(next);
  };
  return { currencies, currency, choose, loading: balance.isPending, error: balance.error };
}

/** The picker of {@link useCurrencyChoice}: a labelled select of the balance's currencies; nothing for none. */
export function CurrencyChoice(props: {
  currencies: readonly string[];
  currency: string;
  choose: (code: string) => void;
}) {
  if (props.currencies.length === 0) return null;
  return (
    <div className="filters" data-testid="currency-choice">
      <div>
        <label htmlFor="currency-choice">Currency</label>
        <select id="currency-choice" value={props.currency} onChange={(e) => props.choose(e.target.value)}>
          {props.currencies.map((code) => (
            <option key={code} value={code}>
              {code}
            </option>
          ))}
        </select>
      </div>
    </div>
  );
}
