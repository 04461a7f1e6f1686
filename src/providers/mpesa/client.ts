/**
 * Daraja's authorisation and authorised calls (docs/providers.md#m-pesa), shared by the collection adapter
 * (./adapter.ts) and the B2C payout rail (./b2c.ts): `GET /oauth/v1/generate?grant_type=client_credentials` with
 * `Authorization: Basic base64(consumerKey:consumerSecret)` → `{access_token, expires_in}` (`expires_in` in seconds, as
 * a string: "3599"), cached until shortly before it expires, and POSTs with `Authorization: Bearer`.
 */
import { z } from '../../lib/zod';
import { documentedAnswer, providerHttp, TokenCache, type FetchLike, type ProviderHttpResponse } from '../http';
import type { MpesaSettings } from './settings';
import { errorAnswer } from './statuses';

/** Daraja refused our consumer key and secret, or our access token twice: nothing was done under it. */
export class MpesaAuthenticationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MpesaAuthenticationError';
  }
}

/** `GET /oauth/v1/generate` → 200. */
const tokenAnswer = z.object({
  access_token: z.string().min(1),
  expires_in: z
    .union([z.number(), z.string().regex(/^[0-9]+$/)])
    .transform(Number)
    .pipe(z.number().int().positive()),
});

/** Daraja's error body's code and message (`{requestId, errorCode, errorMessage}`), when the body is one. */
export function darajaErrorOf(response: ProviderHttpResponse): { errorCode?: string; errorMessage?: string } {
  const parsed = errorAnswer.safeParse(response.json);
  return parsed.success ? parsed.data : {};
}

/** A Daraja client: its token and its authorised POSTs. */
export interface DarajaClient {
  /** A valid access token (cached). @throws MpesaAuthenticationError, ProviderUnknownAnswer */
  token(): Promise<string>;
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
  const baseUrl = settings.baseUrl.replace(/\/+$/, '');
  const basic = Buffer.from(`${settings.consumerKey}:${settings.consumerSecret}`).toString('base64');
  const tokens = new TokenCache(
    async () => {
      const path = '/oauth/v1/generate';
      const response = await providerHttp(
        {
          method: 'GET',
          url: `${baseUrl}${path}?grant_type=client_credentials`,
          headers: { authorization: `Basic ${basic}` },
          timeoutMs: settings.timeoutMs,
        },
        fetchImpl,
      );
      if (response.status !== 200)
        throw new MpesaAuthenticationError(`Daraja refused the consumer key and secret (HTTP ${response.status})`);
      const answer = documentedAnswer(tokenAnswer, response.json, `GET ${path}`);
      return { value: answer.access_token, expiresInSeconds: answer.expires_in };
    },
    () => now().getTime(),
  );

  return {
    token: () => tokens.get(),
    async call(path, body) {
      for (let attempt = 1; ; attempt += 1) {
        const token = await tokens.get();
        const response = await providerHttp(
          {
            method: 'POST',
            url: `${baseUrl}${path}`,
            headers: { authorization: `Bearer ${token}` },
            body,
            timeoutMs: settings.timeoutMs,
            documented5xx: [500],
          },
          fetchImpl,
        );
        if (response.status !== 401) return response;
        tokens.invalidate();
        if (attempt === 2) throw new MpesaAuthenticationError(`POST ${path}: Daraja refused a new access token (401)`);
      }
    },
  };
}
