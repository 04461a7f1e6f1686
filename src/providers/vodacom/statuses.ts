/**
 * Vodacom M-Pesa OpenAPI answers mapped onto ours (docs/providers.md#vodacom-m-pesa-tanzania-vodacom), and their
 * documented shapes.
 *
 * Sources: the M-Pesa OpenAPI portal's API documentation (openapiportal.m-pesa.com, market `vodacomTZN`: "Generate
 * Session Key", "C2B Single Stage", "Query Transaction Status", "Reversal" and its "Response Codes" table), as public
 * integrations transcribe it (see docs). Every answer is `{output_ResponseCode: "INS-…", output_ResponseDesc, …}`,
 * success or error alike; an error's HTTP status is 400, 401, 408, 409, 422, 500 or 503.
 *
 * | output_ResponseCode | the OpenAPI's meaning                                  | ours                          |
 * |---------------------|--------------------------------------------------------|-------------------------------|
 * | INS-0               | Request processed successfully                         | completed                     |
 * | INS-5               | Transaction cancelled by customer                      | failed, declined              |
 * | INS-2001            | Initiator authentication error (the customer's PIN)    | failed, declined              |
 * | INS-995, INS-996    | The customer's profile has problems, is not active     | failed, declined              |
 * | INS-2051            | MSISDN invalid (not an M-Pesa customer)                | failed, declined              |
 * | INS-2006            | Insufficient balance                                   | failed, insufficient_funds    |
 * | INS-9               | Request timeout (the customer did not answer)          | failed, expired               |
 * | INS-6 and others    | Transaction failed; invalid short code, amount, …      | failed, provider_error        |
 * | INS-1, INS-10, INS-23 | internal error, duplicate, unknown status            | unknown: asked again          |
 * Customer-side refusals are declines; a prompt nobody answered in time is `expired`; the gateway's own faults are
 * provider errors; `expired` and `provider_error` are still reconciled with a late success (docs/payments.md#states).
 */
import type { FailureCode, ProviderOutcome } from '../../domain/payment';
import { z } from '../../lib/zod';

/** The OpenAPI's success code. */
export const SUCCESS = 'INS-0';

/**
 * Codes that decide nothing: the gateway's internal error, a duplicate of a request it already has (ours was sent
 * before), and "unknown status": the payment is asked about again, never sent again.
 */
export const UNDECIDED_CODES: ReadonlySet<string> = new Set(['INS-1', 'INS-10', 'INS-23']);

/** Every documented failure code the adapter names, with our failure code and a readable text. */
export const VODACOM_RESULT_CODES: Readonly<Record<string, { failureCode: FailureCode; text: string }>> = {
  'INS-5': { failureCode: 'declined', text: 'the customer cancelled the transaction' },
  'INS-2001': { failureCode: 'declined', text: 'the customer could not be authenticated (wrong PIN)' },
  'INS-995': { failureCode: 'declined', text: "the customer's M-Pesa profile has problems" },
  'INS-996': { failureCode: 'declined', text: "the customer's M-Pesa account is not active" },
  'INS-2051': { failureCode: 'declined', text: 'the number is not a valid M-Pesa customer' },
  'INS-2006': { failureCode: 'insufficient_funds', text: "the customer's M-Pesa balance is insufficient" },
  'INS-9': { failureCode: 'expired', text: 'the customer did not answer the prompt in time' },
  'INS-6': { failureCode: 'provider_error', text: 'the transaction failed' },
  'INS-13': { failureCode: 'provider_error', text: 'the service provider code is not valid' },
  'INS-15': { failureCode: 'provider_error', text: 'the amount is not valid' },
  'INS-16': { failureCode: 'provider_error', text: 'M-Pesa is overloaded and could not take the request' },
};

/** An OpenAPI response code: `INS-` and digits. */
const responseCode = z.string().regex(/^INS-[0-9]{1,5}$/);

/** Any answer's code and description (errors carry only these, and perhaps the ids). */
export const codeAnswer = z.object({
  output_ResponseCode: responseCode,
  output_ResponseDesc: z.string().max(1000).optional(),
});

/** The session's answer (`GET …/getSession/` → 200). */
export const sessionAnswer = codeAnswer.extend({ output_SessionID: z.string().min(1).max(200) });

/** The C2B payment's and the reversal's success answer (200 or 201, `INS-0`). */
export const transactionAnswer = codeAnswer.extend({
  output_TransactionID: z.string().regex(/^[A-Za-z0-9]{4,30}$/),
  output_ConversationID: z.string().max(100).optional(),
  output_ThirdPartyConversationID: z.string().max(100).optional(),
});

/** The status query's answer (`GET …/queryTransactionStatus/` → 200, `INS-0`). */
export const queryAnswer = codeAnswer.extend({
  output_ResponseTransactionStatus: z.string().min(1).max(50),
  output_ConversationID: z.string().max(100).optional(),
  output_ThirdPartyConversationID: z.string().max(100).optional(),
  output_OriginalTransactionID: z
    .string()
    .regex(/^[A-Za-z0-9]{4,30}$/)
    .optional(),
});

/**
 * What a failure code means for a payment: failed with our code and the OpenAPI's code as the reason (a code the
 * table does not name is a provider error).
 */
export function failureOf(code: string, description?: string): Extract<ProviderOutcome, { status: 'failed' }> {
  const known = VODACOM_RESULT_CODES[code];
  const text = known?.text ?? (description ? description.slice(0, 100) : 'the request failed');
  return {
    status: 'failed',
    failureCode: known?.failureCode ?? 'provider_error',
    failureMessage: `Vodacom M-Pesa: ${text} (${code.slice(0, 12)})`,
    reason: code.slice(0, 12),
  };
}

/**
 * A status query's `output_ResponseTransactionStatus` as our outcome: `Completed` is a success; `Cancelled` a decline
 * and `Failed` a provider error (the query names no reason code); anything else (a payment still waiting for the
 * customer) is pending.
 */
export function outcomeOfTransactionStatus(status: string): ProviderOutcome {
  const normalised = status.trim().toLowerCase();
  if (normalised === 'completed') return { status: 'completed' };
  if (normalised === 'cancelled')
    return {
      status: 'failed',
      failureCode: 'declined',
      failureMessage: 'Vodacom M-Pesa: the transaction is cancelled',
    };
  if (normalised === 'failed')
    return {
      status: 'failed',
      failureCode: 'provider_error',
      failureMessage: 'Vodacom M-Pesa: the transaction failed',
    };
  return { status: 'pending' };
}
