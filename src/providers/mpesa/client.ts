/**
 * Daraja's authorisation and authorised calls (docs/providers.md#m-pesa), shared by the collection adapter
 * (./adapter.ts) and the B2C payout rail (./b2c.ts): `GET /oauth/v1/generate?grant_type=client_credentials` with
 * `Authorization: Basic base64(consumerKey:consumerSecret)` → `{access_token, expires_in}` (`expires_in` in seconds, as
 * a string: "3599"), cached until shortly before it expires, and POSTs with `Authorization: Bearer`.
 */
import { createTokenClient, ProviderAuthenticationError } from '../http';
import type { FetchLike, ProviderHttpResponse, TokenClient } from '../http';
import type { MpesaSettings } from './settings';
import { errorAnswer } from './statuses';

/** Daraja refused our consumer key and secret, or our access token twice: nothing was done under it. */
export class MpesaAuthenticationError extends ProviderAuthenticationError {}

/** Daraja's error body's code and message (`{requestId, errorCode, errorMessage}`), when the body is one. */
export function darajaErrorOf(response: ProviderHttpResponse): { errorCode?: string; errorMessage?: string } {
  const parsed = errorAnswer.safeParse(response.json);
  return parsed.success ? parsed.data : {};
}

/** A Daraja client: its token and its authorised POSTs. */
export interface DarajaClient extends Pick<TokenClient, 'token'> {
  /**
   * One authorised POST of a JSON body to `path`; a 401 forgets the token and retries once (Daraja took nothing with
   * a 401). Daraja's 500 comes back with its body (its documented `500.001.1001`).
   * @throws ProviderUnknownAnswer (time-out, network, another 5xx), MpesaAuthenticationError (401 twice)
   */
  call(path: string, body: Record<string, unknown>): Promise<ProviderHttpResponse>;
}

/**
 * The client of `settings` (base URL, consumer key and secret, time-out in milliseconds of every call).
 * @param fetchImpl the HTTP client
 * @param now the token cache's clock
 */
export function createDarajaClient(
  settings: Pick<MpesaSettings, 'baseUrl' | 'consumerKey' | 'consumerSecret' | 'timeoutMs'>,
  fetchImpl: FetchLike,
  now: () => Date,
): DarajaClient {
  const basic = Buffer.from(`${settings.consumerKey}:${settings.consumerSecret}`).toString('base64');
  const client = createTokenClient(settings, fetchImpl, now, {
    tokenRequest: {
      method: 'GET',
      path: '/oauth/v1/generate?grant_type=client_credentials',
      headers: { authorization: `Basic ${basic}` },
    },
    granted: (status) => status === 200,
    refused: (status) => new MpesaAuthenticationError(`Daraja refused the consumer key and secret (HTTP ${status})`),
    refusedTwice: (what) => new MpesaAuthenticationError(`${what}: Daraja refused a new access token (401)`),
    documented5xx: [500],
  });
  return { token: () => client.token(), call: (path, body) => client.send('POST', path, {}, body) };
}
