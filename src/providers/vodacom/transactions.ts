/**
 * What the C2B payments, reversals and B2C payouts of the M-Pesa OpenAPI share
 * (docs/providers.md#vodacom-m-pesa-tanzania-vodacom): reading a transaction's answer, and the status query
 * (`GET …/queryTransactionStatus/`).
 */
import { randomBytes } from 'node:crypto';
import { documentedAnswer, ProviderUnknownAnswer, type ProviderHttpResponse } from '../http';
import { openApiCodeOf, type OpenApiClient } from './client';
import { queryAnswer, SUCCESS, transactionAnswer, UNDECIDED_CODES } from './statuses';

/** The OpenAPI's country code of Tanzania (`input_Country`). */
export const COUNTRY = 'TZN';
/** The status query's path, after the market's base URL. */
export const QUERY_PATH = '/queryTransactionStatus/';

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
