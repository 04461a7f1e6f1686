/**
 * Where providers send their callbacks (docs/payments.md#provider-callbacks): the public base URL of the API plus the
 * provider's callback path.
 */
import { createHmac } from 'node:crypto';
import type { ProviderCode } from '../domain/catalogue';
import { sameSecret } from '../lib/constant-time';
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

/** The token a callback URL carries for `subject` (a payment's or a payout's): hex HMAC-SHA256 keyed with `secret`. */
export function callbackTokenOf(subject: string, secret: string): string {
  return createHmac('sha256', secret).update(subject).digest('hex');
}

/** True when `token` is {@link callbackTokenOf} `subject` under `secret`; compared in constant time. */
export function callbackTokenMatches(subject: string, token: string, secret: string): boolean {
  return sameSecret(callbackTokenOf(subject, secret), token.toLowerCase());
}

/** A payment id as a callback URL carries it. */
const PAYMENT_ID = /^pay_[A-Za-z0-9]{24}$/;

/**
 * The per-payment callback URLs of a provider that signs nothing (M-Pesa, Orange Money): each payment's URL carries
 * `?payment=<pay_…>&token=<hex HMAC-SHA256 of "{code}:" + payment id, keyed with the callback secret>`.
 */
export interface PaymentCallbackUrls {
  /** The token of the payment `paymentId` under `secret`. */
  tokenOf(paymentId: string, secret: string): string;
  /** `callbackUrl` (`…/v1/provider-callbacks/{code}`) with the payment's `payment` and `token` added. */
  urlOf(callbackUrl: string, paymentId: string, secret: string): string;
  /** True when `token` is the payment's token under `secret` (a payment id of another shape: false). */
  verify(paymentId: string, token: string | undefined, secret: string): boolean;
  /** How {@link authenticatedSubject} reads and proves the payment of a callback. */
  subject: CallbackSubject;
}

/**
 * The {@link PaymentCallbackUrls} of provider `code`; `what` names its callback in refusals (e.g. `the M-Pesa
 * callback`).
 */
export function paymentCallbackUrls(code: ProviderCode, what: string): PaymentCallbackUrls {
  const verify = (paymentId: string, token: string | undefined, secret: string) =>
    Boolean(token) &&
    PAYMENT_ID.test(paymentId) &&
    callbackTokenMatches(`${code}:${paymentId}`, token as string, secret);
  return {
    tokenOf: (paymentId, secret) => callbackTokenOf(`${code}:${paymentId}`, secret),
    urlOf: (callbackUrl, paymentId, secret) =>
      callbackUrlWithQuery(callbackUrl, { payment: paymentId, token: callbackTokenOf(`${code}:${paymentId}`, secret) }),
    verify,
    subject: { param: 'payment', verify, what },
  };
}
