/**
 * M-Pesa result callbacks (docs/payments.md#provider-callbacks, docs/providers.md#m-pesa). Daraja posts the result of
 * an STK push to the push's `CallBackURL` (`{Body: {stkCallback: {MerchantRequestID, CheckoutRequestID, ResultCode,
 * ResultDesc, CallbackMetadata?}}}`) and signs nothing, so each payment's callback URL carries the payment id and an
 * unguessable token: `?payment=<pay_…>&token=<hex HMAC-SHA256 of "mpesa:" + payment id, keyed with the callback
 * secret>`. The token is checked before anything else; the body's CheckoutRequestID is then recorded for the
 * payment when its push's answer was lost (so the query can ask about it), a success's MpesaReceiptNumber is kept for
 * a later reversal (./receipt.ts), and the workflow confirms the hint with the query before acting.
 */
import { callbackBodyOf, ProviderRefusal, type LoggedCallbackParser } from '../provider';
import { descriptor } from './descriptor';
import { keepMpesaReceipt } from './receipt';
import { callbackBody, outcomeOf } from './statuses';
import { authenticatedSubject, paymentCallbackUrls } from '../callback-url';

export { callbackTokenMatches, callbackTokenOf } from '../callback-url';

/** M-Pesa's per-payment callback URLs (`mpesa:` + payment id). */
const urls = paymentCallbackUrls('mpesa', 'the M-Pesa callback');

/** The callback token of the payment `paymentId`: hex HMAC-SHA256 of `mpesa:` + paymentId, keyed with `secret`. */
export function mpesaCallbackToken(paymentId: string, secret: string): string {
  return urls.tokenOf(paymentId, secret);
}

/**
 * `callbackUrl` (the service's `…/v1/provider-callbacks/mpesa`) with the query parameters `payment` and `token` of the
 * payment `paymentId` added (other query parameters are kept).
 */
export function mpesaCallbackUrl(callbackUrl: string, paymentId: string, secret: string): string {
  return urls.urlOf(callbackUrl, paymentId, secret);
}

/** True when `token` is the callback token of `paymentId` under `secret`; compared in constant time. */
export function verifyMpesaCallbackToken(paymentId: string, token: string | undefined, secret: string): boolean {
  return urls.verify(paymentId, token, secret);
}

/**
 * Authenticates an M-Pesa callback by its `payment` and `token` query parameters, parses its body and records its
 * CheckoutRequestID for the payment (kept when one is known already: a callback naming another is refused), and the
 * `MpesaReceiptNumber` of a success (the first one kept stays).
 * @returns `{providerReference: payment id, claimed}` with `claimed` in our statuses
 * @throws ProviderRefusal when the token is missing or wrong, the body is not Daraja's result callback, no push was
 *   sent for the payment, or the callback names another CheckoutRequestID than the push's
 */
export const parseMpesaCallback: LoggedCallbackParser = async (request, secret, requestLog) => {
  const paymentId = authenticatedSubject(request, urls.subject, secret);
  const result = callbackBodyOf(request, 'the M-Pesa callback', callbackBody, 'an STK push result').Body.stkCallback;
  const recorded = await requestLog.recordReference(descriptor.code, paymentId, result.CheckoutRequestID);
  if (recorded === undefined) throw new ProviderRefusal('no M-Pesa push was sent for this payment');
  if (recorded !== result.CheckoutRequestID)
    throw new ProviderRefusal('the M-Pesa callback names another CheckoutRequestID than the push of this payment');
  const claimed = outcomeOf(result.ResultCode, result.ResultDesc).status;
  // Kept before the workflow is told, so the query that confirms the success finds it, and a reversal can name it
  // (docs/providers.md#m-pesa).
  await keepMpesaReceipt(requestLog, paymentId, result);
  return { providerReference: paymentId, claimed };
};
