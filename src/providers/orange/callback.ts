/**
 * Orange Money's payment notifications (docs/payments.md#provider-callbacks, docs/providers.md#orange-money-orange).
 * Orange POSTs `{status, notif_token, txnid}` to the web payment's `notif_url` and signs nothing; the `notif_token` is
 * the one its web payment's answer gave, which only Orange and we know. So each payment's `notif_url` carries the
 * payment id and an unguessable token (`?payment=<pay_…>&token=<hex HMAC-SHA256 of "orange:" + payment id, keyed with
 * the callback secret>`), checked before anything else, and the body's `notif_token` must then be the one kept for
 * the payment's page. The workflow confirms the hint with the transaction status before acting.
 */
import { sameSecret } from '../../lib/constant-time';
import { authenticatedSubject, paymentCallbackUrls } from '../callback-url';
import { callbackBodyOf, ProviderRefusal, type LoggedCallbackParser } from '../provider';
import { orangePageOf } from './page';
import { notification, outcomeOf } from './statuses';

/** Orange Money's per-payment notification URLs (`orange:` + payment id). */
const urls = paymentCallbackUrls('orange', 'the Orange Money notification');

/** The callback token of the payment `paymentId`: hex HMAC-SHA256 of `orange:` + paymentId, keyed with `secret`. */
export const orangeCallbackToken = urls.tokenOf;

/**
 * `callbackUrl` (the service's `…/v1/provider-callbacks/orange`) with the query parameters `payment` and `token` of
 * the payment `paymentId` added: the payment's `notif_url`.
 */
export const orangeCallbackUrl = urls.urlOf;

/**
 * Authenticates an Orange Money notification by its `payment` and `token` query parameters, parses its body and checks
 * its `notif_token` against the one Orange gave with the payment's page.
 * @returns `{providerReference: payment id, claimed}` with `claimed` in our statuses
 * @throws ProviderRefusal when the token is missing or wrong, the body is not Orange's notification, no page was made
 *   for the payment, or the `notif_token` is not the page's
 */
export const parseOrangeCallback: LoggedCallbackParser = async (request, secret, requestLog) => {
  const paymentId = authenticatedSubject(request, urls.subject, secret);
  const body = callbackBodyOf(request, 'the Orange Money notification', notification, 'a payment notification');
  const page = await orangePageOf(requestLog, paymentId);
  if (!page) throw new ProviderRefusal('no Orange Money payment page was made for this payment');
  if (!sameSecret(page.notifToken, body.notif_token))
    throw new ProviderRefusal("the Orange Money notification's notif_token is not the one of this payment's page");
  return { providerReference: paymentId, claimed: outcomeOf(body.status).status };
};
