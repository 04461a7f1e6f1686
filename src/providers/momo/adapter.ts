/**
 * The live `momo` adapter: MTN MoMo's Collection API (docs/providers.md#adapters), over HTTP with {@link providerHttp}
 * (time-outs, unknown answers kept apart) and an access-token cache.
 *
 * MoMo's calls (MTN MoMo Open API documentation, momodeveloper.mtn.com / momoapi.mtn.com):
 * - `POST /collection/token/` with `Authorization: Basic base64(apiUser:apiKey)` and
 *   `Ocp-Apim-Subscription-Key`, no body → `{access_token, token_type, expires_in (seconds)}`;
 * - `POST /collection/v1_0/requesttopay` with `Authorization: Bearer`, `X-Reference-Id` (a UUID v4
 *   naming the new request), `X-Target-Environment`, `Ocp-Apim-Subscription-Key` and, optionally,
 *   `X-Callback-Url`; body `{amount (string, major units), currency, externalId, payer: {partyIdType:
 *   MSISDN, partyId}, payerMessage, payeeNote}` → 202 with no body; 409 RESOURCE_ALREADY_EXIST for a
 *   repeated X-Reference-Id; 400 for a request MoMo cannot take (headers, currency, a message over
 *   160 characters, special characters such as an apostrophe), 401, 403 (IP), 500/503 with a code;
 * - `GET /collection/v1_0/requesttopay/{referenceId}` → 200 with the result (also when it failed;
 *   see ./statuses.ts), 404 for an unknown reference.
 * MoMo has no call withdrawing a request-to-pay (it lapses, EXPIRED): cancel is declared unsupported. Refunds go
 * through the Disbursement product's `Refund` (./refund.ts), with its own credentials: without them the adapter
 * declares refunds unsupported.
 *
 * Decisions:
 * - `X-Reference-Id` is derived from the payment id (a UUID v4 from SHA-256 of `momo:` + payment
 *   id), so a retried initiation repeats the reference and MoMo answers 409 instead of asking the
 *   payer twice; the 409 is then answered with the request's status.
 * - Refunds: MoMo's Disbursement `Refund` names the collected request-to-pay (`referenceIdToRefund`) and takes an
 *   amount, so whole and partial refunds are offered when the Disbursement credentials are configured
 *   (`supports` is then the descriptor's live flows; without them `refund` and `partialRefund` are false and the
 *   API answers 409 before anything is written).
 * - MoMo gives no prompt text (MTN shows the payer its own PIN prompt; `payerMessage` and `payeeNote`
 *   only go to the transaction histories), so initiation answers `nextAction: null`.
 * - A 401 forgets the token and retries once; a refused token request, or a 401 twice, is a fault of
 *   our credentials and is thrown as {@link MomoAuthenticationError}, retried like an unknown answer
 *   (a payment is never failed, nor a reference called unknown, for our configuration).
 * - MoMo's 5xx answers (500 with a code such as PAYER_NOT_FOUND, 503 SERVICE_UNAVAILABLE) are unknown
 *   answers like any 5xx: the request may exist, and a retry (409 → status) tells.
 */
import { withReceiptNumber, type ProviderAnswer } from '../../domain/payment';
import { documentedAnswer, ProviderUnknownAnswer, type FetchLike } from '../http';
import { ProviderRefusal, ProviderUnsupported, refundsOrUnsupported, type PaymentProvider } from '../provider';
import { isUuid, momoCallbackUrl, parseMomoCallback } from './callback';
import { createMomoClient, createMomoDisbursementClient, momoErrorOf } from './client';
import { descriptor } from './descriptor';
import { momoAmount, momoMarketProblem, momoReferenceId, momoText } from './fields';
import { momoRefunds } from './refund';
import type { MomoSettings } from './settings';
import { failureCodeOf, outcomeOf, reasonCodeOf, requestToPayResult, type RequestToPayResult } from './statuses';

/** What the live adapters need besides their settings. */
export interface LiveProviderDeps {
  /** HMAC key of the per-payment callback tokens (PROVIDER_CALLBACK_SECRET), at least 32 characters. */
  callbackSecret: string;
  /** The HTTP client (default: global fetch). */
  fetch?: FetchLike;
  /** The clock of the token cache (default: now). */
  now?: () => Date;
}

export { MOMO_ENVIRONMENT_CURRENCIES, MOMO_TEXT_MAX_LENGTH, momoAmount, momoReferenceId, momoText } from './fields';
export { MomoAuthenticationError } from './client';

/**
 * The live MTN MoMo adapter (see the module's comment). Three-valued answers: values,
 * {@link ProviderRefusal} (a refused request with its failure code, an unknown reference, a bad
 * callback), and any other error for an unknown answer (time-out, 5xx, undocumented body,
 * {@link MomoAuthenticationError}).
 * @param settings base URL, credentials, target environment, time-out (ms) of every call
 * @param deps the callback secret (per-payment callback tokens), the HTTP client, the token cache's clock
 * @throws Error when `deps.callbackSecret` is shorter than 32 characters
 */
export function createMomoProvider(settings: MomoSettings, deps: LiveProviderDeps): PaymentProvider {
  if (deps.callbackSecret.length < 32)
    throw new Error('the MoMo adapter needs a callback secret of at least 32 characters');
  const fetchImpl = deps.fetch ?? fetch;
  const now = deps.now ?? (() => new Date());
  const secret = deps.callbackSecret;

  const { call } = createMomoClient('collection', settings, fetchImpl, now);
  const disbursement = createMomoDisbursementClient(settings, fetchImpl, now);
  const refunds = disbursement ? momoRefunds(disbursement, settings.targetEnvironment) : undefined;

  /**
   * The request-to-pay `reference` as MoMo's status call gives it.
   * @throws ProviderRefusal when MoMo does not know the reference; any other error when the answer is unknown
   */
  async function fetchResult(reference: string): Promise<RequestToPayResult> {
    if (!isUuid(reference)) throw new ProviderRefusal(`${reference} is not a MoMo reference`);
    const path = `/collection/v1_0/requesttopay/${encodeURIComponent(reference)}`;
    const response = await call('GET', path);
    if (response.status === 404) throw new ProviderRefusal(`MoMo has no request-to-pay ${reference}`);
    if (response.status !== 200)
      throw new ProviderUnknownAnswer(`GET ${path}: undocumented answer (HTTP ${response.status})`, response.status);
    return documentedAnswer(requestToPayResult, response.json, `GET ${path}`);
  }

  /** The answer for `reference` from its result. */
  function answerOf(reference: string, result: RequestToPayResult): ProviderAnswer {
    // A success's financialTransactionId is the customer's receipt id (docs/payments.md#payment-record).
    const outcome = withReceiptNumber(outcomeOf(result.status, result.reason), result.financialTransactionId);
    return { providerReference: reference, outcome };
  }

  return {
    code: descriptor.code,
    supports: refunds ? descriptor.live : { ...descriptor.live, refund: false, partialRefund: false },

    async initiate(request) {
      const marketProblem = momoMarketProblem(
        settings.targetEnvironment,
        request.currency,
        request.customer,
        'collects',
      );
      if (marketProblem !== undefined) throw new ProviderRefusal(marketProblem, 'provider_error');
      if (!/^\+?[1-9][0-9]{5,14}$/.test(request.customer))
        throw new ProviderRefusal('MTN MoMo collects from a phone number (MSISDN) only', 'declined');
      const reference = momoReferenceId(request.paymentId);
      const path = '/collection/v1_0/requesttopay';
      const headers: Record<string, string> = { 'x-reference-id': reference };
      if (request.callbackUrl !== null)
        headers['x-callback-url'] = momoCallbackUrl(request.callbackUrl, reference, secret);
      const response = await call('POST', path, headers, {
        amount: momoAmount(request.amount, request.currency),
        currency: request.currency,
        externalId: request.paymentId,
        payer: { partyIdType: 'MSISDN', partyId: request.customer.replace(/^\+/, '') },
        payerMessage: momoText(request.description, request.paymentId),
        payeeNote: momoText(`Payment ${request.paymentId}`, request.paymentId),
      });
      // Accepted: the payer gets MTN's own PIN prompt; MoMo gives no text for it, so none is invented.
      if (response.status === 202)
        return { providerReference: reference, outcome: { status: 'pending' }, nextAction: null };
      if (response.status === 409) {
        // Our earlier request with this reference exists (a retry): its status is the answer.
        let result: RequestToPayResult;
        try {
          result = await fetchResult(reference);
        } catch (error) {
          if (error instanceof ProviderRefusal)
            throw new ProviderUnknownAnswer(`POST ${path}: MoMo says ${reference} exists, then does not find it`);
          throw error;
        }
        if (
          result.externalId !== undefined &&
          result.externalId !== null &&
          String(result.externalId) !== request.paymentId
        ) {
          throw new ProviderRefusal(
            `MoMo reference ${reference} belongs to another request (externalId ${String(result.externalId)})`,
            'provider_error',
          );
        }
        return { ...answerOf(reference, result), nextAction: null };
      }
      if (response.status === 400 || response.status === 403) {
        const error = momoErrorOf(response);
        const code = reasonCodeOf(error.code);
        const why = [code, error.message].filter(Boolean).join(': ') || `HTTP ${response.status}`;
        throw new ProviderRefusal(`MTN MoMo refused the request to pay (${why})`, failureCodeOf(code), code);
      }
      // 2xx other than 202, 408, 429 and other undocumented answers: MoMo may have taken it; a retry (409) tells.
      throw new ProviderUnknownAnswer(`POST ${path}: undocumented answer (HTTP ${response.status})`, response.status);
    },

    async fetchStatus(providerReference) {
      return answerOf(providerReference, await fetchResult(providerReference));
    },

    async cancel() {
      // MoMo cannot withdraw a request-to-pay: it stays with the payer until answered or EXPIRED.
      throw new ProviderUnsupported('momo', 'cancel');
    },

    // Without the Disbursement product's credentials nothing can refund (see the module's comment).
    ...refundsOrUnsupported('momo', refunds),

    parseCallback(request) {
      return parseMomoCallback(request, secret);
    },
  };
}
