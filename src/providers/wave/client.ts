/**
 * Wave's authorised calls (docs/providers.md#wave-wave), shared by the collection adapter (./adapter.ts) and the payout
 * rail (./payout.ts): every call carries `Authorization: Bearer <API key>`; a 401 (`no-matching-api-key`,
 * `api-key-revoked` …) refuses our key and is thrown as {@link WaveAuthenticationError}.
 */
import { ProviderAuthenticationError, providerHttp, type FetchLike, type ProviderHttpResponse } from '../http';
import type { WaveSettings } from './settings';
import { errorAnswer } from './statuses';

/** Wave refused our API key: nothing was done under it. */
export class WaveAuthenticationError extends ProviderAuthenticationError {}

/** Wave's error code of `response` (at most 60 characters), when its body is Wave's error `{code, message}`. */
export function waveErrorCodeOf(response: ProviderHttpResponse): string | undefined {
  const parsed = errorAnswer.safeParse(response.json);
  return parsed.success ? parsed.data.code.slice(0, 60) : undefined;
}

/** True for a 4xx Wave answered with its error body: a definite refusal (not a time-out, a rate limit, a gateway). */
export function isWaveRefusal(response: ProviderHttpResponse): boolean {
  return (
    response.status >= 400 &&
    response.status < 500 &&
    response.status !== 408 &&
    response.status !== 429 &&
    waveErrorCodeOf(response) !== undefined
  );
}

/**
 * One authorised call to Wave, of `settings` (base URL, API key, time-out in milliseconds).
 * @returns a function sending `method` `path` (with the query) and an optional JSON body and extra headers
 * @throws WaveAuthenticationError on a 401; ProviderUnknownAnswer on a time-out, a network error or a 5xx
 */
export function createWaveClient(
  settings: Pick<WaveSettings, 'baseUrl' | 'apiKey' | 'timeoutMs'>,
  fetchImpl: FetchLike,
): (
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<ProviderHttpResponse> {
  const origin = new URL(settings.baseUrl).origin;
  return async (method, path, body, headers = {}) => {
    const response = await providerHttp(
      {
        method,
        url: `${origin}${path}`,
        headers: { ...headers, authorization: `Bearer ${settings.apiKey}` },
        body,
        timeoutMs: settings.timeoutMs,
      },
      fetchImpl,
    );
    if (response.status === 401)
      throw new WaveAuthenticationError(
        `${method} ${path.split('?')[0]}: Wave refused the API key (${waveErrorCodeOf(response) ?? 'HTTP 401'})`,
      );
    return response;
  };
}
