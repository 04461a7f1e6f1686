/**
 * One MTN MoMo product's authorised HTTP client (docs/providers.md#mtn-momo), shared by the Collection adapter
 * (./adapter.ts) and the Disbursement rail (./disbursement.ts): each product has its own API user, key,
 * subscription key and token endpoint (`POST /{product}/token/` with `Authorization: Basic base64(apiUser:apiKey)`
 * and `Ocp-Apim-Subscription-Key`, no body → `{access_token, token_type, expires_in (seconds)}`), and its calls
 * carry the Bearer token, the subscription key and `X-Target-Environment`.
 */
import { z } from '../../lib/zod';
import { createTokenClient, ProviderAuthenticationError } from '../http';
import type { FetchLike, ProviderHttpResponse, TokenClient } from '../http';

/** The MoMo products this service calls. */
export type MomoProduct = 'collection' | 'disbursement';

/** A product's credentials and where to call it. */
export interface MomoProductSettings {
  baseUrl: string;
  apiUser: string;
  apiKey: string;
  subscriptionKey: string;
  targetEnvironment: string;
  /** Time-out of every call, in milliseconds. */
  timeoutMs: number;
}

/**
 * MoMo refused our API user and key, or our access token twice: a configuration fault, retried like an unknown answer.
 */
export class MomoAuthenticationError extends ProviderAuthenticationError {}

/** A product's client: its token (cached) and its authorised calls. */
export interface MomoClient extends Pick<TokenClient, 'token'> {
  /**
   * One authorised call (Bearer token, subscription key, target environment, plus `headers`). A 401 forgets the
   * token and retries once with a new one (nothing was done under a refused token).
   * @throws ProviderUnknownAnswer (time-out, network, 5xx), MomoAuthenticationError (401 twice, or the token refused)
   */
  call(
    method: 'GET' | 'POST',
    path: string,
    headers?: Record<string, string>,
    body?: unknown,
  ): Promise<ProviderHttpResponse>;
}

/**
 * The client of MoMo's `product` with `settings`.
 * @param fetchImpl the HTTP client; `now` the token cache's clock
 */
export function createMomoClient(
  product: MomoProduct,
  settings: MomoProductSettings,
  fetchImpl: FetchLike,
  now: () => Date,
): MomoClient {
  const tokenPath = `/${product}/token/`;
  const client = createTokenClient(settings, fetchImpl, now, {
    tokenRequest: {
      method: 'POST',
      path: tokenPath,
      headers: {
        authorization: `Basic ${Buffer.from(`${settings.apiUser}:${settings.apiKey}`).toString('base64')}`,
        'ocp-apim-subscription-key': settings.subscriptionKey,
      },
    },
    granted: (status) => status === 200,
    refused: (status) => new MomoAuthenticationError(`MoMo refused the ${product} API user and key (HTTP ${status})`),
    refusedTwice: (what) => new MomoAuthenticationError(`${what}: MoMo refused a new access token (401)`),
  });
  return {
    token: () => client.token(),
    call: (method, path, headers = {}, body) =>
      client.send(
        method,
        path,
        {
          'ocp-apim-subscription-key': settings.subscriptionKey,
          'x-target-environment': settings.targetEnvironment,
          ...headers,
        },
        body,
      ),
  };
}

/** MoMo's error body `{code, message}` (both optional: APIM's own answers carry `statusCode` and `message`). */
const errorAnswer = z.object({ code: z.string().max(200).optional(), message: z.string().max(1000).optional() });

/** The error body's code and message, when the body is one (else empty). */
export function momoErrorOf(response: ProviderHttpResponse): { code?: string; message?: string } {
  const parsed = errorAnswer.safeParse(response.json);
  return parsed.success ? parsed.data : {};
}

/**
 * The Disbursement product's client (payouts, docs/payouts.md#rails, and refunds, docs/providers.md#mtn-momo) for
 * `settings`, or undefined when its API user, key and subscription key are not configured.
 * @param fetchImpl the HTTP client; `now` the token cache's clock
 */
export function createMomoDisbursementClient(
  settings: MomoProductSettings & {
    disbursementApiUser?: string;
    disbursementApiKey?: string;
    disbursementSubscriptionKey?: string;
  },
  fetchImpl: FetchLike,
  now: () => Date,
): MomoClient | undefined {
  const { disbursementApiUser, disbursementApiKey, disbursementSubscriptionKey } = settings;
  if (!disbursementApiUser || !disbursementApiKey || !disbursementSubscriptionKey) return undefined;
  return createMomoClient(
    'disbursement',
    {
      ...settings,
      apiUser: disbursementApiUser,
      apiKey: disbursementApiKey,
      subscriptionKey: disbursementSubscriptionKey,
    },
    fetchImpl,
    now,
  );
}
