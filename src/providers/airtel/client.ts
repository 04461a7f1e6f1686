/**
 * Airtel Money's authorised HTTP client (docs/providers.md#airtel-money), shared by the collections adapter
 * (./adapter.ts) and the disbursement rail (./disbursement.ts): `POST /auth/oauth2/token` `{client_id,
 * client_secret, grant_type: client_credentials}` → `{access_token, expires_in (seconds, sent as a string),
 * token_type}`, cached; every call carries the Bearer token and `X-Country`/`X-Currency` of the country it is made in.
 */
import { reachOf } from '../../domain/markets';
import type { Currency } from '../../domain/money';
import { createTokenClient, ProviderAuthenticationError } from '../http';
import type { FetchLike, ProviderHttpResponse, TokenClient } from '../http';
import type { AirtelSettings } from './settings';

/**
 * The countries this service reaches through Airtel, with the currency of their wallets (Airtel's X-Country →
 * X-Currency), from the markets table (docs/providers.md#markets).
 */
export const AIRTEL_COUNTRY_CURRENCIES: Readonly<Record<AirtelCountry, Currency>> =
  reachOf('mobile_money_b').apiMarketCurrencies;
/** A country this service reaches through Airtel (ISO 3166-1 alpha-2, Airtel's `X-Country`). */
export type AirtelCountry = string;

/**
 * Airtel refused our client credentials, or our access token twice: a configuration fault, retried like an unknown
 * answer.
 */
export class AirtelAuthenticationError extends ProviderAuthenticationError {}

/** The client: its token (cached) and its authorised calls. */
export interface AirtelClient extends Pick<TokenClient, 'token'> {
  /**
   * One authorised call in `country` (headers X-Country and X-Currency from it). A 401 forgets the token and retries
   * once with a new one (nothing was done under a refused token).
   * @throws ProviderUnknownAnswer (time-out, network, 5xx), AirtelAuthenticationError (401 twice, or the token refused)
   */
  call(method: 'GET' | 'POST', path: string, country: AirtelCountry, body?: unknown): Promise<ProviderHttpResponse>;
}

/** The client of Airtel with `settings`; `fetchImpl` the HTTP client, `now` the token cache's clock. */
export function createAirtelClient(settings: AirtelSettings, fetchImpl: FetchLike, now: () => Date): AirtelClient {
  const client = createTokenClient(settings, fetchImpl, now, {
    tokenRequest: {
      method: 'POST',
      path: '/auth/oauth2/token',
      body: { client_id: settings.clientId, client_secret: settings.clientSecret, grant_type: 'client_credentials' },
    },
    granted: (status) => status >= 200 && status < 300,
    refused: (status) => new AirtelAuthenticationError(`Airtel refused the client credentials (HTTP ${status})`),
    refusedTwice: (what) => new AirtelAuthenticationError(`${what}: Airtel refused a new access token (401)`),
  });
  return {
    token: () => client.token(),
    call: (method, path, country, body) =>
      client.send(
        method,
        path,
        { 'x-country': country, 'x-currency': AIRTEL_COUNTRY_CURRENCIES[country] as Currency },
        body,
      ),
  };
}
