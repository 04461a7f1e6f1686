/**
 * Where providers send their callbacks (docs/payments.md#provider-callbacks): the public base URL of the API plus the
 * provider's callback path.
 */
import type { ProviderCode } from '../domain/catalogue';
import { ProviderRefusal, type CallbackRequest } from './provider';

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

/**
 * How a provider's callback URL names what it is about and proves it: the query parameter holding the subject (a
 * payment id, a reference), the check of the URL's `token` parameter for that subject under the callback secret, and
 * the callback's name in refusals (e.g. `the MoMo callback`).
 */
export interface CallbackSubject {
  param: string;
  verify: (subject: string, token: string | undefined, secret: string) => boolean;
  what: string;
}

/**
 * The subject callback `request` is about, read from its URL as `subject` says, once its token proves it under
 * `secret`: checked before anything else of the callback is read.
 * @throws ProviderRefusal `{what} token is missing or not valid` when the token does not prove the subject
 */
export function authenticatedSubject(request: CallbackRequest, subject: CallbackSubject, secret: string): string {
  const value = request.query[subject.param] ?? '';
  if (!subject.verify(value, request.query.token, secret))
    throw new ProviderRefusal(`${subject.what} token is missing or not valid`);
  return value;
}
