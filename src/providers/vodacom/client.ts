/**
 * The M-Pesa OpenAPI's sessions and authorised calls (docs/providers.md#vodacom-m-pesa-tanzania-vodacom):
 * - `GET {baseUrl}/getSession/` with `Authorization: Bearer <the API key encrypted with the portal's public key>` →
 *   `{output_ResponseCode: "INS-0", output_ResponseDesc, output_SessionID}`;
 * - every other call with `Authorization: Bearer <the session id encrypted with the public key>` and the `Origin`
 *   header the application is registered with.
 * Encryption is RSA with PKCS#1 v1.5 padding, base64, as the portal's samples do it. The session is kept for
 * {@link SESSION_LIFETIME_SECONDS} (less a minute); a 401 that names no transaction's outcome opens a new one and
 * sends once more.
 */
import { constants, createPublicKey, publicEncrypt, type KeyObject } from 'node:crypto';
import {
  documentedAnswer,
  providerHttp,
  ProviderAuthenticationError,
  TokenCache,
  type FetchLike,
  type ProviderHttpResponse,
} from '../http';
import type { VodacomSettings } from './settings';
import { codeAnswer, sessionAnswer } from './statuses';

/** The OpenAPI refused our API key, or our session twice: nothing was done under it. */
export class VodacomAuthenticationError extends ProviderAuthenticationError {}

/**
 * The codes the OpenAPI answers with HTTP 401 that are a transaction's outcome, not a refused session: INS-5
 * (cancelled by the customer) and INS-6 (the transaction failed).
 */
export const OUTCOMES_AT_401: ReadonlySet<string> = new Set(['INS-5', 'INS-6']);

/** How long a session is used before a new one is opened, in seconds (the portal's default session lifetime). */
export const SESSION_LIFETIME_SECONDS = 3600;

/** `text` encrypted with `key` (RSA, PKCS#1 v1.5 padding), base64: how the OpenAPI takes API keys and sessions. */
export function openApiEncrypt(key: KeyObject, text: string): string {
  return publicEncrypt({ key, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(text, 'utf8')).toString('base64');
}

/** The code and description of an OpenAPI answer, when its body is one. */
export function openApiCodeOf(response: ProviderHttpResponse): { code?: string; description?: string } {
  const parsed = codeAnswer.safeParse(response.json);
  return parsed.success ? { code: parsed.data.output_ResponseCode, description: parsed.data.output_ResponseDesc } : {};
}

/** An OpenAPI client: its session and its authorised calls. */
export interface OpenApiClient {
  /**
   * A session id, from the cache or newly opened.
   * @throws VodacomAuthenticationError (API key refused), ProviderUnknownAnswer (no answer, undocumented body)
   */
  session(): Promise<string>;
  /**
   * One authorised call of `path` (after the base URL) with `body` (JSON) or `query`; a 401 opens a new session and
   * sends once more (the OpenAPI did nothing under a refused session); a 401 naming a transaction's outcome
   * ({@link OUTCOMES_AT_401}) is returned as it is.
   * @throws ProviderUnknownAnswer (time-out, network, 5xx other than 500 and 503), VodacomAuthenticationError
   */
  call(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    request: { body?: Record<string, unknown>; query?: Record<string, string> },
  ): Promise<ProviderHttpResponse>;
}

/**
 * The client of `settings` (base URL, API key, public key, origin, time-out in milliseconds of every call).
 * @param fetchImpl the HTTP client
 * @param now the session cache's clock
 */
export function createOpenApiClient(
  settings: Pick<VodacomSettings, 'baseUrl' | 'apiKey' | 'publicKey' | 'origin' | 'timeoutMs'>,
  fetchImpl: FetchLike,
  now: () => Date,
): OpenApiClient {
  const baseUrl = settings.baseUrl.replace(/\/+$/, '');
  const key = createPublicKey({ key: Buffer.from(settings.publicKey, 'base64'), format: 'der', type: 'spki' });
  const headers = (secret: string) => ({
    authorization: `Bearer ${openApiEncrypt(key, secret)}`,
    origin: settings.origin,
  });
  const sessions = new TokenCache(
    async () => {
      const response = await providerHttp(
        {
          method: 'GET',
          url: `${baseUrl}/getSession/`,
          headers: headers(settings.apiKey),
          timeoutMs: settings.timeoutMs,
        },
        fetchImpl,
      );
      if (response.status !== 200 && response.status !== 201)
        throw new VodacomAuthenticationError(
          `the M-Pesa OpenAPI refused the API key (HTTP ${response.status}${openApiCodeOf(response).code ? `, ${openApiCodeOf(response).code}` : ''})`,
        );
      const answer = documentedAnswer(sessionAnswer, response.json, 'GET /getSession/');
      return { value: answer.output_SessionID, expiresInSeconds: SESSION_LIFETIME_SECONDS };
    },
    () => now().getTime(),
  );
  return {
    session: () => sessions.get(),
    async call(method, path, request) {
      const url = new URL(`${baseUrl}${path}`);
      for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, value);
      for (let attempt = 1; ; attempt += 1) {
        const response = await providerHttp(
          {
            method,
            url: url.toString(),
            headers: headers(await sessions.get()),
            ...(request.body ? { body: request.body } : {}),
            timeoutMs: settings.timeoutMs,
            // The OpenAPI documents INS-1 (500) and INS-16 (503) with its own body.
            documented5xx: [500, 503],
          },
          fetchImpl,
        );
        // A 401 naming a transaction's outcome (the customer cancelled, the transaction failed) is an answer: sending
        // again would prompt the customer again.
        if (response.status !== 401 || OUTCOMES_AT_401.has(openApiCodeOf(response).code ?? '')) return response;
        sessions.invalidate();
        if (attempt === 2)
          throw new VodacomAuthenticationError(`${method} ${path}: the M-Pesa OpenAPI refused a new session (401)`);
      }
    },
  };
}
