/**
 * MTN MoMo callbacks (docs/payments.md#provider-callbacks). MoMo calls the `X-Callback-Url` given with each
 * request-to-pay once the
 * request is settled, with a body like the status answer (momodeveloper.mtn.com "Callback": "Allow
 * PUT & POST on your callback listener host"; the payload "will be similar to the response returned
 * by the status check API"). MoMo signs nothing, so each payment's callback URL carries its own
 * unguessable token: `?reference=<X-Reference-Id>&token=<hex HMAC-SHA256 of "momo:" + reference,
 * keyed with the callback secret>`. It is checked without any lookup, before the body is read; the
 * workflow then confirms the hint with the status call.
 */
import { createHmac } from 'node:crypto';
import { sameSecret } from '../../lib/constant-time';
import { callbackBodyOf, ProviderRefusal, type CallbackRequest, type ParsedCallback } from '../provider';
import { claimedStatusOf, requestToPayResult } from './statuses';
import { authenticatedSubject, callbackUrlWithQuery, type CallbackSubject } from '../callback-url';

/** A UUID as MoMo's `X-Reference-Id` takes it (lower or upper case hex). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `value` has the form of a UUID. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * The callback token of the request-to-pay `reference`: hex HMAC-SHA256 of `momo:` + reference (lower case), keyed with
 * `secret`.
 */
export function momoCallbackToken(reference: string, secret: string): string {
  return createHmac('sha256', secret).update(`momo:${reference.toLowerCase()}`).digest('hex');
}

/**
 * `callbackUrl` (the service's `…/v1/provider-callbacks/momo`) with the query parameters `reference`
 * and `token` of the request-to-pay `reference` added (other query parameters are kept).
 */
export function momoCallbackUrl(callbackUrl: string, reference: string, secret: string): string {
  return callbackUrlWithQuery(callbackUrl, { reference, token: momoCallbackToken(reference, secret) });
}

/** True when `token` is the callback token of `reference` under `secret`; compared in constant time. */
export function verifyMomoCallbackToken(reference: string, token: string | undefined, secret: string): boolean {
  if (!token || !isUuid(reference)) return false;
  return sameSecret(momoCallbackToken(reference, secret), token.toLowerCase());
}

/** How a request-to-pay's callback URL names it and proves it. */
const REFERENCE_SUBJECT: CallbackSubject = {
  param: 'reference',
  verify: verifyMomoCallbackToken,
  what: 'the MoMo callback',
};

/**
 * Authenticates a MoMo callback by its `reference` and `token` query parameters, then parses its
 * body (a request-to-pay result; a `referenceId` in it, when present, must be the same reference).
 * @returns `{providerReference: reference, claimed}` with `claimed` in our statuses
 * @throws ProviderRefusal when the reference or token is missing or wrong, or the body is not a documented result
 */
export function parseMomoCallback(request: CallbackRequest, secret: string): ParsedCallback {
  const reference = authenticatedSubject(request, REFERENCE_SUBJECT, secret);
  const body = callbackBodyOf(request, 'the MoMo callback', requestToPayResult, 'a request-to-pay result');
  if (body.referenceId !== undefined && body.referenceId.toLowerCase() !== reference.toLowerCase()) {
    throw new ProviderRefusal('the MoMo callback body names another reference than its URL');
  }
  return { providerReference: reference.toLowerCase(), claimed: claimedStatusOf(body.status) };
}
