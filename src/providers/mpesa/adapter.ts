/**
 * The live `mpesa` adapter: Safaricom's Daraja API, M-Pesa Express (STK push) to collect (docs/providers.md#m-pesa),
 * over HTTP with {@link providerHttp} (time-outs, unknown answers kept apart) and an access-token cache.
 *
 * Daraja's calls (Safaricom Daraja documentation, developer.safaricom.co.ke: "Authorization", "M-Pesa Express"):
 * - `GET /oauth/v1/generate?grant_type=client_credentials` with `Authorization: Basic base64(consumerKey:
 *   consumerSecret)` → `{access_token, expires_in}` (`expires_in` in seconds, as a string: "3599");
 * - `POST /mpesa/stkpush/v1/processrequest` with `Authorization: Bearer`, body `{BusinessShortCode, Password,
 *   Timestamp, TransactionType, Amount, PartyA, PartyB, PhoneNumber, CallBackURL, AccountReference (at most 12
 *   characters), TransactionDesc (at most 13)}`, where Timestamp is `YYYYMMDDHHmmss` in Kenya's time (UTC+3) and
 *   Password is base64(BusinessShortCode + passkey + Timestamp) → 200 `{MerchantRequestID, CheckoutRequestID,
 *   ResponseCode: "0", ResponseDescription, CustomerMessage}` once the prompt is sent; 400 `{requestId, errorCode,
 *   errorMessage}` for a request Daraja refuses; 500 `500.001.1001` when another request is in process for the
 *   customer (nothing sent);
 * - `POST /mpesa/stkpushquery/v1/query` `{BusinessShortCode, Password, Timestamp, CheckoutRequestID}` → 200 with the
 *   ResultCode, or 500 `500.001.1001` "The transaction is being processed" while the customer has not answered.
 *
 * Decisions:
 * - No second prompt, ever: the push takes no idempotency key, so each payment's push is claimed in the shared
 *   {@link ProviderRequestLog} before it is sent, and a payment whose push was claimed is never pushed again, by
 *   any retry in any process. Validation and the access token come first, so what fails before the claim is
 *   retried safely.
 * - The provider reference is the payment id: it is known before the push, so the per-payment callback URL, the
 *   lookup of a callback and the workflow's reference agree whether or not the push's answer came. The push's
 *   CheckoutRequestID, which the query needs, is recorded in the request log from the push's answer or, when that
 *   answer was lost, from the result callback.
 * - The receipt number (docs/payments.md#payment-record `provider_receipt_number`) is the success callback's
 *   `MpesaReceiptNumber`, the id the customer gets by SMS: the query does not return it (its answer is ResultCode and
 *   ResultDesc only), so the callback keeps it in the request log and the status answer that confirms the success
 *   carries it. A success the query alone confirmed (its callback lost) has none; Transaction Status cannot find an
 *   STK push without it (it asks by receipt number or OriginatorConversationID), so the payment shows null.
 * - An unknown answer to the push (time-out, connection error, an undocumented 5xx or body) is not retried: the
 *   payment stays `pending`, settled by the result callback and then the query, until its expiry; a result after
 *   the expiry is reconciled (docs/payments.md#states). A definite refusal (400, 500.001.1001) fails the payment.
 * - No cancel (a prompt cannot be withdrawn; it lapses). Refunds by Daraja's Reversal (./reversal.ts): the whole
 *   payment only, when the initiator is configured; without it `refund` is declared unsupported (409).
 * - A refused token request or a 401 twice is a fault of our credentials, retried like an unknown answer (a payment
 *   is never failed for our configuration); before the push's claim, so the retry may still push.
 */
import { CURRENCY_EXPONENTS } from '../../domain/money';
import type { ProviderAnswer } from '../../domain/payment';
import { documentedAnswer, ProviderUnknownAnswer, type FetchLike } from '../http';
import type { ProviderHttpResponse } from '../http';
import {
  initiateOnce,
  ProviderRefusal,
  ProviderUnsupported,
  refundsOrUnsupported,
  type InitiateRequest,
  type PaymentProvider,
  type ProviderRequestLog,
} from '../provider';
import { mpesaCallbackUrl, parseMpesaCallback } from './callback';
import { receiptKeyOf } from './receipt';
import { createDarajaClient, darajaErrorOf } from './client';
import { keepMpesaPayoutCallback, readMpesaPayoutCallback } from './payout-callback';
import { descriptor } from './descriptor';
import { darajaText } from './fields';
import { createMpesaReversals, parseMpesaReversalCallback } from './reversal';
import type { MpesaSettings } from './settings';
import { outcomeOf, pushAnswer, queryAnswer, STILL_PROCESSING } from './statuses';

export { MpesaAuthenticationError } from './client';

/** What the adapter needs besides its settings. */
export interface MpesaDeps {
  /** HMAC key of the per-payment callback tokens (PROVIDER_CALLBACK_SECRET), at least 32 characters. */
  callbackSecret: string;
  /** Where pushes are claimed and their CheckoutRequestIDs kept, shared by every process. */
  requestLog: ProviderRequestLog;
  /** The HTTP client (default: global fetch). */
  fetch?: FetchLike;
  /** The clock of the token cache and the timestamps (default: now). */
  now?: () => Date;
}

/** Longest `AccountReference` and `TransactionDesc` Daraja takes, in characters. */
export const ACCOUNT_REFERENCE_MAX = 12;
export const TRANSACTION_DESC_MAX = 13;

/** Kenya's offset from UTC, in milliseconds (East Africa Time, UTC+3, no daylight saving). */
const KENYA_OFFSET_MS = 3 * 3_600_000;

/** Daraja's `Timestamp` of `at`: `YYYYMMDDHHmmss` in Kenya's time. */
export function darajaTimestamp(at: Date): string {
  return new Date(at.getTime() + KENYA_OFFSET_MS).toISOString().replace(/[-T:]/g, '').slice(0, 14);
}

/** Daraja's `Password` for `timestamp`: base64 of short code + passkey + timestamp. */
export function darajaPassword(shortcode: string, passkey: string, timestamp: string): string {
  return Buffer.from(`${shortcode}${passkey}${timestamp}`).toString('base64');
}

export { darajaText } from './fields';

/**
 * The live M-Pesa adapter (see the module's comment). Three-valued answers: values, {@link ProviderRefusal} (a refused
 * push, an unknown reference, a bad callback), and any other error for an unknown answer before the push or of the
 * query (time-out, 5xx, undocumented body, {@link MpesaAuthenticationError}).
 * @param settings base URL, credentials, short code, passkey, transaction type, time-out (ms) of every call
 * @param deps the callback secret, the request log, the HTTP client, the clock
 * @throws Error when `deps.callbackSecret` is shorter than 32 characters
 */
export function createMpesaProvider(settings: MpesaSettings, deps: MpesaDeps): PaymentProvider {
  if (deps.callbackSecret.length < 32)
    throw new Error('the M-Pesa adapter needs a callback secret of at least 32 characters');
  const now = deps.now ?? (() => new Date());
  const { requestLog, callbackSecret: secret } = deps;
  const client = createDarajaClient(settings, deps.fetch ?? fetch, now);
  const call = client.call;
  const reversals = createMpesaReversals(settings, { callbackSecret: secret, requestLog, fetch: deps.fetch, now });

  /** Short code, password and timestamp, as every M-Pesa Express call carries them. */
  function credentials(): { BusinessShortCode: string; Password: string; Timestamp: string } {
    const timestamp = darajaTimestamp(now());
    return {
      BusinessShortCode: settings.shortcode,
      Password: darajaPassword(settings.shortcode, settings.passkey, timestamp),
      Timestamp: timestamp,
    };
  }

  /** A 500 that is not Daraja's documented error body is an unknown answer. */
  function undocumented500(path: string, response: ProviderHttpResponse): ProviderUnknownAnswer {
    const { errorCode } = darajaErrorOf(response);
    return new ProviderUnknownAnswer(
      `POST ${path} answered ${response.status}${errorCode ? ` (${errorCode.slice(0, 40)})` : ''}`,
      response.status,
    );
  }

  /**
   * Sends the one push of a claimed payment. Resolves when the prompt was sent (its CheckoutRequestID recorded) or
   * its answer is unknown.
   * @throws ProviderRefusal when Daraja refused it (nothing was sent)
   */
  async function push(request: InitiateRequest, callbackUrl: string, msisdn: string): Promise<void> {
    const path = '/mpesa/stkpush/v1/processrequest';
    let response: ProviderHttpResponse;
    try {
      response = await call(path, {
        ...credentials(),
        TransactionType: settings.transactionType,
        Amount: request.amount / 10 ** CURRENCY_EXPONENTS.KES,
        PartyA: msisdn,
        PartyB: settings.partyB ?? settings.shortcode,
        PhoneNumber: msisdn,
        CallBackURL: mpesaCallbackUrl(callbackUrl, request.paymentId, secret),
        AccountReference: darajaText(request.paymentId.slice(-ACCOUNT_REFERENCE_MAX), ACCOUNT_REFERENCE_MAX, 'Payment'),
        TransactionDesc: darajaText(request.description, TRANSACTION_DESC_MAX, 'Payment'),
      });
    } catch {
      // Sent or not, we cannot tell: the callback (and then the query) settles it; never pushed again.
      return;
    }
    if (response.status === 200) {
      const answer = pushAnswer.safeParse(response.json);
      if (!answer.success) return; // an undocumented body: unknown, as above
      if (answer.data.ResponseCode !== '0') {
        const why = answer.data.ResponseDescription ?? `ResponseCode ${answer.data.ResponseCode}`;
        throw new ProviderRefusal(`M-Pesa did not send the prompt (${why.slice(0, 200)})`, 'provider_error');
      }
      // Kept for the query; should this write fail, the result callback records it.
      await requestLog
        .recordReference(descriptor.code, request.paymentId, answer.data.CheckoutRequestID)
        .catch(() => {});
      return;
    }
    const error = darajaErrorOf(response);
    const why = [error.errorCode, error.errorMessage].filter(Boolean).join(': ').slice(0, 200);
    if (response.status === 400 && error.errorCode !== undefined)
      throw new ProviderRefusal(`M-Pesa refused the prompt (${why})`, 'provider_error');
    if (response.status === 500 && error.errorCode === STILL_PROCESSING)
      throw new ProviderRefusal(`M-Pesa refused the prompt (${why})`, 'provider_error');
    // Any other answer (another 4xx or 5xx, no documented body): Daraja may have sent it; unknown, never pushed again.
  }

  /** The payment's answer from its query: completed, failed with its ResultCode, or pending while processing. */
  async function query(checkoutRequestId: string): Promise<ProviderAnswer['outcome']> {
    const path = '/mpesa/stkpushquery/v1/query';
    const response = await call(path, { ...credentials(), CheckoutRequestID: checkoutRequestId });
    if (response.status === 200) {
      const answer = documentedAnswer(queryAnswer, response.json, `POST ${path}`);
      return outcomeOf(answer.ResultCode, answer.ResultDesc);
    }
    if (response.status === 500 && darajaErrorOf(response).errorCode === STILL_PROCESSING) return { status: 'pending' };
    if (response.status === 500) throw undocumented500(path, response);
    throw new ProviderUnknownAnswer(`POST ${path}: undocumented answer (HTTP ${response.status})`, response.status);
  }

  return {
    code: descriptor.code,
    supports: reversals ? descriptor.live : { ...descriptor.live, refund: false, partialRefund: false },

    async initiate(request) {
      if (request.currency !== 'KES')
        throw new ProviderRefusal(`M-Pesa collects KES, not ${request.currency}`, 'provider_error');
      if (request.amount % 10 ** CURRENCY_EXPONENTS.KES !== 0)
        throw new ProviderRefusal('M-Pesa collects whole shillings: the amount must be a multiple of 100', 'declined');
      const msisdn = request.customer.replace(/^\+/, '');
      if (!/^254[0-9]{9}$/.test(msisdn))
        throw new ProviderRefusal('M-Pesa collects from a Kenyan phone number (254…) only', 'declined');
      if (request.callbackUrl === null)
        throw new ProviderRefusal(
          'M-Pesa needs a callback URL: PROVIDER_CALLBACK_BASE_URL is not set',
          'provider_error',
        );
      await client.token(); // before the claim: a refused or lost token request is retried and may still push
      const callbackUrl = request.callbackUrl;
      // A payment whose push was claimed is never pushed again (see above); the callback or the query tells the rest.
      return initiateOnce(requestLog, descriptor.code, request.paymentId, async () => {
        await push(request, callbackUrl, msisdn);
        return { status: 'pending' };
      });
    },

    async fetchStatus(providerReference) {
      const entry = await requestLog.find(descriptor.code, providerReference);
      if (!entry) throw new ProviderRefusal(`no M-Pesa push was sent for ${providerReference}`);
      // The push's answer was lost and no callback has named its CheckoutRequestID yet: nothing to ask about.
      if (entry.reference === null) return { providerReference, outcome: { status: 'pending' } };
      const outcome = await query(entry.reference);
      if (outcome.status !== 'completed') return { providerReference, outcome };
      // The query names no receipt: the success callback's MpesaReceiptNumber, when one came (the module's comment).
      const receipt = (await requestLog.find(descriptor.code, receiptKeyOf(providerReference)))?.reference;
      return { providerReference, outcome: receipt ? { ...outcome, receiptNumber: receipt } : outcome };
    },

    async cancel() {
      // An STK prompt cannot be withdrawn: it lapses when the customer does not answer.
      throw new ProviderUnsupported('mpesa', 'cancel');
    },

    // Without an initiator nothing can be reversed (see the module's comment).
    ...refundsOrUnsupported('mpesa', reversals),

    async parseCallback(request) {
      // A payout's B2C or Transaction Status result comes to the same route, on the payout's own URL; a refund's
      // reversal or Transaction Status result on the refund's.
      if (request.query.payout !== undefined)
        return keepMpesaPayoutCallback(requestLog, await readMpesaPayoutCallback(request, secret, requestLog));
      if (request.query.refund !== undefined) return parseMpesaReversalCallback(request, secret, requestLog);
      return parseMpesaCallback(request, secret, requestLog);
    },
  };
}
