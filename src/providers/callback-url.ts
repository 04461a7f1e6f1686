/**
 * Where providers send their callbacks (docs/payments.md#provider-callbacks): the public base URL of the API plus the
 * provider's callback path.
 */
import type { ProviderCode } from '../domain/catalogue';

/**
 * The callback URL of provider `code` under `baseUrl` (e.g. `https://api.example.com` →
 * `https://api.example.com/v1/provider-callbacks/momo`), or null when no base URL is configured
 * (then providers send none and polling alone finds their answers).
 */
export function callbackUrlFor(baseUrl: string | undefined, code: ProviderCode): string | null {
  if (!baseUrl) return null;
  return `${baseUrl.replace(/\/+$/, '')}/v1/provider-callbacks/${code}`;
}

/**
 * `callbackUrl` with the query parameters `params` set, in their order (the URL's other parameters are kept): how a
 * provider's callback names what it is about and carries its token.
 */
export function callbackUrlWithQuery(callbackUrl: string, params: Readonly<Record<string, string>>): string {
  const url = new URL(callbackUrl);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.toString();
}
