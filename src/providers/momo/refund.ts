/**
 * MTN MoMo refunds (docs/providers.md#mtn-momo): the Disbursement product's "Refund", which sends money from our
 * Disbursement account back to the payer of a collected request-to-pay, with the Disbursement product's own
 * credentials and token (./client.ts).
 *
 * MoMo's calls (MTN MoMo Open API documentation, "Disbursement": `Refund` V1 and V2, `GetRefundStatus`; read also as
 * MTN's Postman collection "MoMo Open APIs" and public client libraries transcribe them, listed in
 * docs/providers.md#mtn-momo):
 * - `POST /disbursement/v1_0/refund` (V2: `/disbursement/v2_0/refund`, the same request) with `Authorization: Bearer`,
 *   `X-Reference-Id` (a UUID v4 naming the refund), `X-Target-Environment`, `Ocp-Apim-Subscription-Key` (the
 *   Disbursement key) and, optionally, `X-Callback-Url`; body `{amount (string, major units), currency, externalId,
 *   payerMessage, payeeNote, referenceIdToRefund (the X-Reference-Id of the request-to-pay refunded)}` → 202 with no
 *   body; 409 RESOURCE_ALREADY_EXIST for a repeated X-Reference-Id; 400 for a request MoMo cannot take; 500/503 with
 *   a code;
 * - `GET /disbursement/v1_0/refund/{referenceId}` → 200 `{amount, currency, financialTransactionId, externalId, payee,
 *   payerMessage, payeeNote, status: PENDING | SUCCESSFUL | FAILED, reason?}` (also for a failed refund), 404 for a
 *   reference MoMo does not know.
 * The refund takes an amount, so part of a payment may be refunded, and several refunds of one payment, up to what
 * was collected.
 *
 * Decisions:
 * - `X-Reference-Id` is derived from the refund's idempotency key (`refund:ref_…`) as a payment's is from its id
 *   (`momoReferenceId`): a refund sent again repeats its reference, MoMo answers 409 and its status is the answer,
 *   so nothing is ever refunded twice; `externalId` is the refund id;
 * - no `X-Callback-Url`: the payment's workflow asks the status until the refund is final
 *   (docs/payments.md#cancel-and-refund), so a lost or forged callback changes nothing;
 * - 202 is `pending`; a documented refusal (400, 403) is a definite `failed` (nothing was sent); a time-out, a 5xx
 *   or an undocumented answer is unknown (thrown), and the status call, or a repeated send answered 409, tells.
 */
import type { Currency } from '../../domain/money';
import { documentedAnswer, ProviderUnknownAnswer } from '../http';
import type { RefundAnswer, RefundRequest } from '../provider';
import { momoAmount, momoReferenceId, momoText, MOMO_ENVIRONMENT_CURRENCIES } from './fields';
import { isUuid } from './callback';
import { momoErrorOf, type MomoClient } from './client';
import { transferResult, type TransferResult } from './payout-statuses';
import { reasonCodeOf } from './statuses';

/** MoMo's refund call (V1; V2 takes the same request at `/disbursement/v2_0/refund`). */
export const MOMO_REFUND_PATH = '/disbursement/v1_0/refund';

/** Readable texts of the reasons a refund documented by MoMo fails with; any other is named as MoMo gives it. */
const REFUND_REASONS: Readonly<Record<string, string>> = {
  NOT_ENOUGH_FUNDS: 'the Disbursement account does not hold enough to refund',
  PAYEE_NOT_FOUND: "the customer's MoMo wallet was not found",
  PAYEE_NOT_ALLOWED_TO_RECEIVE: "the customer's MoMo wallet cannot receive funds",
  RESOURCE_NOT_FOUND: 'MoMo did not find the payment to refund',
  TRANSACTION_NOT_FOUND: 'MoMo did not find the payment to refund',
  NOT_ALLOWED: 'the Disbursement API user is not allowed to refund',
  INVALID_CURRENCY: 'the currency is not served by the Disbursement account',
};

/** The refund `X-Reference-Id` of `request`: a UUID v4 from its idempotency key (see the module's comment). */
export function momoRefundReference(request: Pick<RefundRequest, 'idempotencyKey'>): string {
  return momoReferenceId(request.idempotencyKey);
}

/** A refund's message for a FAILED result or a refusal with MoMo's reason `code`. */
function refusedMessage(code: string | undefined, fallback: string): string {
  const text = code !== undefined ? REFUND_REASONS[code] : undefined;
  return `MTN MoMo refused the refund (${[code, text].filter(Boolean).join(': ').slice(0, 200) || fallback})`;
}

/** A refund result as the adapter's answer. */
function answerOf(reference: string, result: TransferResult): RefundAnswer {
  if (result.status === 'SUCCESSFUL')
    return { status: 'succeeded', refundReference: String(result.financialTransactionId ?? reference) };
  if (result.status === 'PENDING') return { status: 'pending' };
  return { status: 'failed', failureMessage: refusedMessage(reasonCodeOf(result.reason), 'no reason given') };
}

/**
 * MoMo's refund calls with the Disbursement product's `client` in `targetEnvironment` (see the module's comment): the
 * adapter's `refund` and `fetchRefund`.
 */
export function momoRefunds(
  client: MomoClient,
  targetEnvironment: string,
): {
  refund(request: RefundRequest): Promise<RefundAnswer>;
  fetchRefund(request: RefundRequest): Promise<RefundAnswer | { status: 'not_received' }>;
} {
  /**
   * The refund `reference` as MoMo's status call gives it; `not_received` for a reference MoMo does not know.
   * @throws ProviderUnknownAnswer (time-out, 5xx, undocumented answer), MomoAuthenticationError
   */
  async function statusOf(reference: string): Promise<RefundAnswer | { status: 'not_received' }> {
    const path = `${MOMO_REFUND_PATH}/${encodeURIComponent(reference)}`;
    const response = await client.call('GET', path);
    if (response.status === 404) return { status: 'not_received' };
    if (response.status !== 200)
      throw new ProviderUnknownAnswer(`GET ${path}: undocumented answer (HTTP ${response.status})`, response.status);
    return answerOf(reference, documentedAnswer(transferResult, response.json, `GET ${path}`));
  }

  return {
    /**
     * Sends the refund (see the module's comment): `pending` once MoMo took it, `failed` when MoMo refused it or it
     * cannot be sent, the refund's answer when it was sent before.
     * @throws Error when the answer is unknown (ask with `fetchRefund`, or send again: the same reference)
     */
    async refund(request: RefundRequest): Promise<RefundAnswer> {
      const expected: Currency | undefined = MOMO_ENVIRONMENT_CURRENCIES[targetEnvironment];
      if (expected !== undefined && request.currency !== expected)
        return {
          status: 'failed',
          failureMessage: `MTN MoMo (${targetEnvironment}) refunds ${expected}, not ${request.currency}`,
        };
      if (!isUuid(request.providerReference))
        return {
          status: 'failed',
          failureMessage: `${request.providerReference} is not a MoMo request-to-pay reference`,
        };
      const reference = momoRefundReference(request);
      const refundId = request.idempotencyKey.replace(/^refund:/, '');
      const response = await client.call(
        'POST',
        MOMO_REFUND_PATH,
        { 'x-reference-id': reference },
        {
          amount: momoAmount(request.amount, request.currency),
          currency: request.currency,
          externalId: refundId,
          payerMessage: momoText(`Refund ${refundId}`, refundId),
          payeeNote: momoText(`Refund ${refundId}`, refundId),
          referenceIdToRefund: request.providerReference,
        },
      );
      if (response.status === 202) return { status: 'pending' };
      if (response.status === 409) {
        // Our earlier send with this reference exists (a retry): its status is the answer.
        const known = await statusOf(reference);
        if (known.status === 'not_received')
          throw new ProviderUnknownAnswer(
            `POST ${MOMO_REFUND_PATH}: MoMo says ${reference} exists, then does not find it`,
          );
        return known;
      }
      if (response.status === 400 || response.status === 403) {
        const error = momoErrorOf(response);
        return {
          status: 'failed',
          failureMessage: refusedMessage(reasonCodeOf(error.code), error.message ?? `HTTP ${response.status}`),
        };
      }
      // 2xx other than 202, 408, 429, 5xx and other undocumented answers: MoMo may have it; the status call tells.
      throw new ProviderUnknownAnswer(
        `POST ${MOMO_REFUND_PATH}: undocumented answer (HTTP ${response.status})`,
        response.status,
      );
    },

    /**
     * What became of the refund `request` names: its answer, or `not_received` when MoMo never got it.
     * @throws Error when MoMo does not answer (still unknown)
     */
    fetchRefund: (request) => statusOf(momoRefundReference(request)),
  };
}
