/**
 * The live `vodacom` adapter: Vodacom M-Pesa Tanzania through the M-Pesa OpenAPI (market `vodacomTZN`,
 * docs/providers.md#vodacom-m-pesa-tanzania-vodacom), over HTTP with {@link providerHttp} (time-outs, unknown answers
 * kept apart) and a session cache (./client.ts).
 *
 * The OpenAPI's calls (openapiportal.m-pesa.com; the paths follow the market's base URL):
 * - `POST /c2bPayment/singleStage/` `{input_Amount, input_Country: "TZN", input_Currency: "TZS", input_CustomerMSISDN,
 *   input_ServiceProviderCode, input_ThirdPartyConversationID, input_TransactionReference, input_PurchasedItemsDesc}`:
 *   M-Pesa sends the customer a USSD prompt for the PIN and answers when the customer has: 200 or 201
 *   `{output_ResponseCode: "INS-0", output_ResponseDesc, output_TransactionID, output_ConversationID,
 *   output_ThirdPartyConversationID}`, or an error status with the failure's `INS-…` code (statuses.ts);
 * - `GET /queryTransactionStatus/?input_QueryReference&input_ServiceProviderCode&input_ThirdPartyConversationID
 *   &input_Country` → `{output_ResponseCode: "INS-0", output_ResponseTransactionStatus, output_ConversationID,
 *   output_ThirdPartyConversationID}`; the query reference may be the payment's ThirdPartyConversationID;
 * - `PUT /reversal/` `{input_ReversalAmount, input_Country, input_ServiceProviderCode, input_ThirdPartyConversationID,
 *   input_TransactionID}` → 200 `INS-0` with the reversal's `output_TransactionID`.
 *
 * Decisions:
 * - No second prompt, ever: each payment's C2B request is claimed in the shared {@link ProviderRequestLog} before it
 *   is sent and is never sent again, by any retry in any process. Validation and the session come first, so what
 *   fails before the claim is retried safely.
 * - The C2B request answers only once the customer has acted, which may take longer than a provider call may wait:
 *   an answer that does not come in time (or any unknown answer) leaves the payment `pending`, and the status query
 *   settles it, by the payment's ThirdPartyConversationID, known before anything is sent. A definite answer is kept
 *   in the request log (`INS-0:<TransactionID>` or the failure's code), so asking again is answered from it.
 * - The provider reference is the payment id; the ThirdPartyConversationID is its 24 characters after `pay_`.
 * - The receipt number (docs/payments.md#payment-record `provider_receipt_number`) is the C2B answer's
 *   `output_TransactionID`, the id in the customer's SMS and what a reversal names; a success the query alone
 *   confirmed carries the query's `output_OriginalTransactionID` when it names one, else none (its refund then fails
 *   at once: the operator reverses it on Vodacom's M-Pesa portal).
 * - No cancel (a USSD prompt cannot be withdrawn; it lapses). Refunds by the reversal, of the whole payment only
 *   (docs/providers.md#vodacom-m-pesa-tanzania-vodacom), claimed like the C2B request and never sent twice.
 * - No callbacks: the OpenAPI answers C2B payments and reversals in their response, so every callback is refused.
 */
import { CURRENCY_EXPONENTS } from '../../domain/money';
import type { ProviderOutcome } from '../../domain/payment';
import { ProviderUnknownAnswer, providerFailureCause, type FetchLike } from '../http';
import type { ProviderHttpResponse } from '../http';
import {
  initiateOnce,
  ProviderRefusal,
  ProviderUnsupported,
  type InitiateRequest,
  type PaymentProvider,
  type ProviderRequestLog,
  type RefundAnswer,
  type RefundRequest,
} from '../provider';
import { plainText } from '../plain-text';
import { createOpenApiClient } from './client';
import { descriptor } from './descriptor';
import type { VodacomSettings } from './settings';
import { failureOf, outcomeOfTransactionStatus, SUCCESS } from './statuses';
import { COUNTRY, decisionOf, queryTransaction, transferFields } from './transactions';

export { VodacomAuthenticationError } from './client';
export { COUNTRY, QUERY_PATH } from './transactions';

/** What the adapter needs besides its settings. */
export interface VodacomDeps {
  /** Where C2B requests and reversals are claimed and their answers kept, shared by every process. */
  requestLog: ProviderRequestLog;
  /** The HTTP client (default: global fetch). */
  fetch?: FetchLike;
  /** The session cache's clock (default: now). */
  now?: () => Date;
}

/** The C2B single-stage payment's and the reversal's paths, after the market's base URL. */
export const C2B_PATH = '/c2bPayment/singleStage/';
export const REVERSAL_PATH = '/reversal/';
/** Longest `input_PurchasedItemsDesc` sent, in characters. */
export const ITEMS_DESC_MAX = 50;

/** Minor units in one shilling. */
const SHILLING = 10 ** CURRENCY_EXPONENTS.TZS;

/** The ThirdPartyConversationID of a payment's C2B request: the payment id's characters after `pay_`. */
export function conversationIdOf(paymentId: string): string {
  return paymentId.replace(/[^A-Za-z0-9]/g, '').replace(/^pay/, '');
}

/** The ThirdPartyConversationID of a refund's reversal, from its idempotency key (`refund:ref_…` → `R…`). */
export function reversalConversationIdOf(idempotencyKey: string): string {
  return `R${idempotencyKey.replace(/[^A-Za-z0-9]/g, '').replace(/^refundref/, '')}`;
}

/** What the request log keeps of a definite answer: `INS-0:<TransactionID>`, or `<code>:` for a failure. */
function verdictText(code: string, transactionId = ''): string {
  return `${code}:${transactionId}`;
}

/** A kept verdict read back: its code and the transaction id (empty for a failure). */
function verdictOf(reference: string | null | undefined): { code: string; transactionId: string } | undefined {
  const match = reference ? /^(INS-[0-9]{1,5}):([A-Za-z0-9]*)$/.exec(reference) : null;
  return match ? { code: match[1] as string, transactionId: match[2] as string } : undefined;
}

/** The outcome of a kept verdict of a C2B request. */
function outcomeOfVerdict(verdict: { code: string; transactionId: string }): ProviderOutcome {
  if (verdict.code === SUCCESS) return { status: 'completed', receiptNumber: verdict.transactionId };
  return failureOf(verdict.code);
}

/**
 * The live Vodacom M-Pesa adapter (see the module's comment). Three-valued answers: values, {@link ProviderRefusal}
 * (a request it cannot send, an unknown reference, any callback), and any other error for an unknown answer before
 * the C2B request or of the query (time-out, 5xx, undocumented body, {@link VodacomAuthenticationError}).
 * @param settings base URL, API key, public key, service provider code, origin, time-out (ms) of every call
 * @param deps the request log, the HTTP client, the clock
 */
export function createVodacomProvider(settings: VodacomSettings, deps: VodacomDeps): PaymentProvider {
  const now = deps.now ?? (() => new Date());
  const { requestLog } = deps;
  const client = createOpenApiClient(settings, deps.fetch ?? fetch, now);

  /** Sends a claimed payment's one C2B request; its definite answer is kept, an unknown one leaves it pending. */
  async function c2b(request: InitiateRequest, msisdn: string): Promise<ProviderOutcome> {
    let response: ProviderHttpResponse;
    try {
      response = await client.call('POST', C2B_PATH, {
        body: {
          ...transferFields(request.amount, msisdn, settings.serviceProviderCode, conversationIdOf(request.paymentId)),
          input_PurchasedItemsDesc: plainText(request.description, ITEMS_DESC_MAX, 'Payment'),
        },
      });
    } catch {
      // Sent or not, we cannot tell (most often: the customer has not answered yet): the query settles it.
      return { status: 'pending' };
    }
    const decision = decisionOf(response);
    if (!decision) return { status: 'pending' };
    // Kept so a later question is answered from it; should this write fail, the query answers.
    await requestLog
      .recordReference(descriptor.code, request.paymentId, verdictText(decision.code, decision.transactionId))
      .catch(() => {});
    return outcomeOfVerdict({ code: decision.code, transactionId: decision.transactionId ?? '' });
  }

  /** The reversal's answer for a kept verdict. */
  function refundAnswerOf(verdict: { code: string; transactionId: string }): RefundAnswer {
    if (verdict.code === SUCCESS) return { status: 'succeeded', refundReference: verdict.transactionId };
    return { status: 'failed', failureMessage: `Vodacom M-Pesa refused the reversal (${verdict.code})` };
  }

  return {
    code: descriptor.code,
    supports: descriptor.live,

    async initiate(request) {
      if (request.currency !== 'TZS')
        throw new ProviderRefusal(`Vodacom M-Pesa collects TZS, not ${request.currency}`, 'provider_error');
      if (request.amount % SHILLING !== 0)
        throw new ProviderRefusal(
          'Vodacom M-Pesa collects whole shillings: the amount must be a multiple of 100',
          'declined',
        );
      const msisdn = request.customer.replace(/^\+/, '');
      if (!/^255[0-9]{9}$/.test(msisdn))
        throw new ProviderRefusal('Vodacom M-Pesa collects from a Tanzanian phone number (255…) only', 'declined');
      await client.session(); // before the claim: a refused or lost session request is retried and may still send
      // A payment's C2B request is never sent again (see the module's comment).
      return initiateOnce(requestLog, descriptor.code, request.paymentId, () => c2b(request, msisdn));
    },

    async fetchStatus(providerReference) {
      const entry = await requestLog.find(descriptor.code, providerReference);
      if (!entry) throw new ProviderRefusal(`no Vodacom M-Pesa request was sent for ${providerReference}`);
      const kept = verdictOf(entry.reference);
      if (kept) return { providerReference, outcome: outcomeOfVerdict(kept) };
      const found = await queryTransaction(client, settings.serviceProviderCode, conversationIdOf(providerReference));
      if (!found) return { providerReference, outcome: { status: 'pending' } };
      const outcome = outcomeOfTransactionStatus(found.status);
      if (outcome.status === 'completed' && found.transactionId)
        return { providerReference, outcome: { ...outcome, receiptNumber: found.transactionId } };
      return { providerReference, outcome };
    },

    async cancel() {
      // A USSD prompt cannot be withdrawn: it lapses when the customer does not answer.
      throw new ProviderUnsupported(descriptor.code, 'cancel');
    },

    async refund(request: RefundRequest): Promise<RefundAnswer> {
      if (request.currency !== 'TZS')
        return { status: 'failed', failureMessage: `Vodacom M-Pesa refunds TZS, not ${request.currency}` };
      if (request.amount !== request.paymentAmount)
        throw new ProviderRefusal('Vodacom M-Pesa reverses the whole payment only: refund the full amount or nothing');
      const kept = verdictOf((await requestLog.find(descriptor.code, request.idempotencyKey))?.reference);
      if (kept) return refundAnswerOf(kept);
      const receipt =
        request.receiptNumber ??
        verdictOf((await requestLog.find(descriptor.code, request.providerReference))?.reference)?.transactionId;
      if (!receipt)
        return {
          status: 'failed',
          failureMessage:
            "the payment's M-Pesa transaction id is not known, so it cannot be reversed through the API: reverse it on Vodacom's M-Pesa portal",
        };
      await client.session(); // before the claim, as for a payment
      if (!(await requestLog.claim(descriptor.code, request.idempotencyKey))) return { status: 'pending' };
      let response: ProviderHttpResponse;
      try {
        response = await client.call('PUT', REVERSAL_PATH, {
          body: {
            input_ReversalAmount: String(request.amount / SHILLING),
            input_Country: COUNTRY,
            input_ServiceProviderCode: settings.serviceProviderCode,
            input_ThirdPartyConversationID: reversalConversationIdOf(request.idempotencyKey),
            input_TransactionID: receipt,
          },
        });
      } catch (error) {
        // Sent or not, we cannot tell: the status query settles it; never sent again.
        throw new ProviderUnknownAnswer(`PUT ${REVERSAL_PATH}: ${providerFailureCause(error)}`);
      }
      const decision = decisionOf(response);
      if (!decision)
        throw new ProviderUnknownAnswer(
          `PUT ${REVERSAL_PATH}: undocumented or undecided answer (HTTP ${response.status})`,
          response.status,
        );
      const verdict = { code: decision.code, transactionId: decision.transactionId ?? '' };
      await requestLog
        .recordReference(descriptor.code, request.idempotencyKey, verdictText(verdict.code, verdict.transactionId))
        .catch(() => {});
      return refundAnswerOf(verdict);
    },

    async fetchRefund(request: RefundRequest): Promise<RefundAnswer | { status: 'not_received' }> {
      const entry = await requestLog.find(descriptor.code, request.idempotencyKey);
      if (!entry) return { status: 'not_received' };
      const kept = verdictOf(entry.reference);
      if (kept) return refundAnswerOf(kept);
      const found = await queryTransaction(
        client,
        settings.serviceProviderCode,
        reversalConversationIdOf(request.idempotencyKey),
      );
      if (!found) return { status: 'pending' };
      const outcome = outcomeOfTransactionStatus(found.status);
      if (outcome.status === 'completed')
        return {
          status: 'succeeded',
          refundReference: found.transactionId ?? reversalConversationIdOf(request.idempotencyKey),
        };
      if (outcome.status === 'failed') return { status: 'failed', failureMessage: outcome.failureMessage };
      return { status: 'pending' };
    },

    parseCallback() {
      throw new ProviderRefusal('Vodacom M-Pesa sends no callbacks: its answers come in its responses');
    },
  };
}
