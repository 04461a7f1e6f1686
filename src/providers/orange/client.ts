/**
 * Orange's authorisation and authorised calls (docs/providers.md#orange-money-orange): `POST /oauth/v3/token` with
 * `Authorization: Basic base64(clientId:clientSecret)` and the form body `grant_type=client_credentials` →
 * `{token_type: "Bearer", access_token, expires_in}` (`expires_in` in seconds, as a string: "7776000"), cached until
 * shortly before it expires, and JSON POSTs with `Authorization: Bearer`.
 */
import { createTokenClient, ProviderAuthenticationError } from '../http';
import type { FetchLike, ProviderHttpResponse, TokenClient } from '../http';
import type { OrangeSettings } from './settings';
import { errorAnswer } from './statuses';

/** Orange refused our client id and secret, or our access token twice: nothing was done under it. */
export class OrangeAuthenticationError extends ProviderAuthenticationError {}

/** The path of Orange's token call. */
export const ORANGE_TOKEN_PATH = '/oauth/v3/token';

/** Orange's error body's code and message, when the body is one (`{code, message, description}`). */
export function orangeErrorOf(response: ProviderHttpResponse): string | undefined {
  const parsed = errorAnswer.safeParse(response.json);
  if (!parsed.success) return undefined;
  return [String(parsed.data.code), parsed.data.message, parsed.data.description]
    .filter(Boolean)
    .join(': ')
    .slice(0, 200);
}

/** An Orange client: its token and its authorised POSTs. */
export interface OrangeClient extends Pick<TokenClient, 'token'> {
  /**
   * One authorised POST of a JSON body to `path`; a 401 forgets the token and retries once (Orange took nothing with
   * a 401).
   * @throws ProviderUnknownAnswer (time-out, network, 5xx), OrangeAuthenticationError (credentials refused, 401 twice)
   */
  call(path: string, body: Record<string, unknown>): Promise<ProviderHttpResponse>;
}

/**
 * The client of `settings` (base URL, client id and secret, time-out in milliseconds of every call).
 * @param fetchImpl the HTTP client
 * @param now the token cache's clock
 */
export function createOrangeClient(
  settings: Pick<OrangeSettings, 'baseUrl' | 'clientId' | 'clientSecret' | 'timeoutMs'>,
  fetchImpl: FetchLike,
  now: () => Date,
): OrangeClient {
  const basic = Buffer.from(`${settings.clientId}:${settings.clientSecret}`).toString('base64');
  const client = createTokenClient(settings, fetchImpl, now, {
    tokenRequest: {
      method: 'POST',
      path: ORANGE_TOKEN_PATH,
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    },
    granted: (status) => status === 200,
    refused: (status) => new OrangeAuthenticationError(`Orange refused the client id and secret (HTTP ${status})`),
    refusedTwice: (what) => new OrangeAuthenticationError(`${what}: Orange refused a new access token (401)`),
  });
  return { token: () => client.token(), call: (path, body) => client.send('POST', path, {}, body) };
}
