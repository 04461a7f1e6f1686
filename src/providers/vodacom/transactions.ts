/**
 * What the C2B payments, reversals and B2C payouts of the M-Pesa OpenAPI share
 * (docs/providers.md#vodacom-m-pesa-tanzania-vodacom): reading a transaction's answer, and the status query
 * (`GET …/queryTransactionStatus/`).
 */
import { randomBytes } from 'node:crypto';
import { CURRENCY_EXPONENTS } from '../../domain/money';
import { documentedAnswer, ProviderUnknownAnswer, type ProviderHttpResponse } from '../http';
import { openApiCodeOf, type OpenApiClient } from './client';
import { queryAnswer, SUCCESS, transactionAnswer, UNDECIDED_CODES } from './statuses';

/** The OpenAPI's country code of Tanzania (`input_Country`). */
export const COUNTRY = 'TZN';
/** The status query's path, after the market's base URL. */
export const QUERY_PATH = '/queryTransactionStatus/';
/** Longest `input_TransactionReference` sent, in characters. */
export const TRANSACTION_REFERENCE_MAX = 12;

/**
 * The fields a C2B payment and a B2C payment send alike, in the OpenAPI's order: `amount` (minor units of TZS, a
 * whole number of shillings) in whole shillings, Tanzania, TZS, the customer's number `msisdn` (255…), our short code
 * `serviceProviderCode`, and the request's `conversationId`, whose last {@link TRANSACTION_REFERENCE_MAX} characters
 * are also its transaction reference.
 */
export function transferFields(
  amount: number,
  msisdn: string,
  serviceProviderCode: string,
  conversationId: string,
): Record<string, string> {
  return {
    input_Amount: String(amount / 10 ** CURRENCY_EXPONENTS.TZS),
    input_Country: COUNTRY,
    input_Currency: 'TZS',
    input_CustomerMSISDN: msisdn,
    input_ServiceProviderCode: serviceProviderCode,
    input_ThirdPartyConversationID: conversationId,
    input_TransactionReference: conversationId.slice(-TRANSACTION_REFERENCE_MAX),
  };
}

/**
 * What a C2B, reversal or B2C answer decided: `INS-0` with its TransactionID, a failure code (with an error status the
 * OpenAPI documents: 400, 401, 408, 409, 422, 503), or undefined when it decided nothing (an unknown answer:
 * undocumented, or a code of {@link UNDECIDED_CODES}).
 */
export function decisionOf(response: ProviderHttpResponse): { code: string; transactionId?: string } | undefined {
  if (response.status === 200 || response.status === 201) {
    const answer = transactionAnswer.safeParse(response.json);
    if (answer.success && answer.data.output_ResponseCode === SUCCESS)
      return { code: SUCCESS, transactionId: answer.data.output_TransactionID };
    return undefined;
  }
  const { code } = openApiCodeOf(response);
  if (code === undefined || code === SUCCESS || UNDECIDED_CODES.has(code)) return undefined;
  if (![400, 401, 408, 409, 422, 503].includes(response.status)) return undefined;
  return { code };
}

/**
 * The status query of the transaction whose ThirdPartyConversationID is `reference`, at the short code
 * `serviceProviderCode`: its status (`output_ResponseTransactionStatus`) and the original TransactionID when the
 * answer names one; `undefined` when the OpenAPI does not (yet) know it (an error status below 500 with its code).
 * @throws ProviderUnknownAnswer on an unknown answer (time-out, 5xx, undocumented body)
 */
export async function queryTransaction(
  client: OpenApiClient,
  serviceProviderCode: string,
  reference: string,
): Promise<{ status: string; transactionId?: string } | undefined> {
  const response = await client.call('GET', QUERY_PATH, {
    query: {
      input_QueryReference: reference,
      input_ServiceProviderCode: serviceProviderCode,
      input_ThirdPartyConversationID: randomBytes(16).toString('hex'),
      input_Country: COUNTRY,
    },
  });
  if (response.status === 200) {
    const answer = documentedAnswer(queryAnswer, response.json, `GET ${QUERY_PATH}`);
    return { status: answer.output_ResponseTransactionStatus, transactionId: answer.output_OriginalTransactionID };
  }
  const { code } = openApiCodeOf(response);
  // A reference the OpenAPI does not know (yet): the request has not reached it, or is still with the customer.
  if (code !== undefined && response.status >= 400 && response.status < 500) return undefined;
  throw new ProviderUnknownAnswer(
    `GET ${QUERY_PATH}: undocumented answer (HTTP ${response.status}${code ? `, ${code}` : ''})`,
    response.status,
  );
}
