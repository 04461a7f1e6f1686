/**
 * M-Pesa's STK push results mapped onto ours (docs/providers.md#m-pesa), and the documented shapes of Daraja's answers.
 *
 * Sources (Safaricom Daraja documentation, developer.safaricom.co.ke, "M-Pesa Express" API: "Request", "Response",
 * "Callback", "Query" and "Result codes"):
 * - the push's acknowledgement `{MerchantRequestID, CheckoutRequestID, ResponseCode: "0", ResponseDescription,
 *   CustomerMessage}` only says the prompt was sent; the result comes by the callback
 *   `{Body: {stkCallback: {MerchantRequestID, CheckoutRequestID, ResultCode, ResultDesc, CallbackMetadata?}}}`
 *   (`CallbackMetadata.Item` with Amount, MpesaReceiptNumber, TransactionDate, PhoneNumber on success) or by the
 *   query `{ResponseCode, ResponseDescription, MerchantRequestID, CheckoutRequestID, ResultCode, ResultDesc}`;
 * - a query while the customer has not answered is HTTP 500 `{requestId, errorCode: "500.001.1001", errorMessage:
 *   "The transaction is being processed"}`;
 * - errors are `{requestId, errorCode, errorMessage}`: `400.002.02` bad request (invalid field), `404.001.03` invalid
 *   access token, `500.001.1001` also "Unable to lock subscriber, a transaction is already in process".
 *
 * | ResultCode | Safaricom's meaning                                   | ours                        |
 * |------------|-------------------------------------------------------|-----------------------------|
 * | 0          | The service request is processed successfully         | completed                   |
 * | 1          | The balance is insufficient for the transaction       | failed, insufficient_funds  |
 * | 1032       | Request cancelled by user                             | failed, declined            |
 * | 2001       | The initiator information is invalid (wrong PIN)      | failed, declined            |
 * | 1037       | DS timeout: the customer's phone cannot be reached    | failed, expired             |
 * | 1019       | Transaction has expired                               | failed, expired             |
 * | 1001       | Unable to lock subscriber (another push in process)   | failed, provider_error      |
 * | 1025, 9999 | An error occurred while sending the push request      | failed, provider_error      |
 * | any other  |                                                       | failed, provider_error      |
 * Customer-side refusals are declines; a prompt nobody answered in time is `expired`; Safaricom's own faults are
 * provider errors. `expired` and `provider_error` are still reconciled with a late success (docs/payments.md#states).
 */
import type { FailureCode, ProviderOutcome } from '../../domain/payment';
import { z } from '../../lib/zod';

/** The query's error code while the customer has not answered yet ("The transaction is being processed"). */
export const STILL_PROCESSING = '500.001.1001';

/** Every documented ResultCode, with our failure code and a readable text (see the module's table). */
export const MPESA_RESULT_CODES: Readonly<Record<string, { failureCode: FailureCode; text: string }>> = {
  '1': { failureCode: 'insufficient_funds', text: "the customer's M-Pesa balance is insufficient" },
  '1032': { failureCode: 'declined', text: 'the customer cancelled the request' },
  '2001': { failureCode: 'declined', text: 'the customer entered a wrong PIN' },
  '1037': { failureCode: 'expired', text: "the customer's phone could not be reached in time" },
  '1019': { failureCode: 'expired', text: 'the request expired before the customer answered' },
  '1001': { failureCode: 'provider_error', text: 'another M-Pesa request is in process for this customer' },
  '1025': { failureCode: 'provider_error', text: 'M-Pesa could not send the prompt' },
  '9999': { failureCode: 'provider_error', text: 'M-Pesa could not send the prompt' },
};

/** A ResultCode or ResponseCode as Daraja sends it: a number in callbacks, a string in answers. */
const code = z.union([z.number().int(), z.string().regex(/^[0-9]{1,6}$/)]).transform(String);

/** The push's acknowledgement (`POST /mpesa/stkpush/v1/processrequest` → 200). */
export const pushAnswer = z.object({
  MerchantRequestID: z.string().min(1).max(100),
  CheckoutRequestID: z.string().min(1).max(100),
  ResponseCode: code,
  ResponseDescription: z.string().max(1000).optional(),
  CustomerMessage: z.string().max(1000).optional(),
});

/** The query's answer (`POST /mpesa/stkpushquery/v1/query` → 200). */
export const queryAnswer = z.object({
  ResponseCode: code,
  ResponseDescription: z.string().max(1000).optional(),
  MerchantRequestID: z.string().max(100).optional(),
  CheckoutRequestID: z.string().min(1).max(100),
  ResultCode: code,
  ResultDesc: z.string().max(1000).optional(),
});

/** Daraja's error body. */
export const errorAnswer = z.object({
  requestId: z.string().max(200).optional(),
  errorCode: z.string().max(50),
  errorMessage: z.string().max(1000).optional(),
});

/** The result callback's body. */
export const callbackBody = z.object({
  Body: z.object({
    stkCallback: z.object({
      MerchantRequestID: z.string().max(100),
      CheckoutRequestID: z.string().min(1).max(100),
      ResultCode: code,
      ResultDesc: z.string().max(1000).optional(),
      CallbackMetadata: z
        .object({
          Item: z
            .array(z.object({ Name: z.string().max(100), Value: z.union([z.string(), z.number()]).optional() }))
            .max(50),
        })
        .optional(),
    }),
  }),
});

/** An M-Pesa receipt number (`MpesaReceiptNumber`, e.g. `NLJ7RT61SV`): upper-case letters and digits. */
export const MPESA_RECEIPT = /^[A-Z0-9]{6,20}$/;

/**
 * The `MpesaReceiptNumber` of a success callback's `CallbackMetadata.Item`, when it names one in the documented shape;
 * undefined otherwise.
 */
export function receiptNumberOf(result: z.infer<typeof callbackBody>['Body']['stkCallback']): string | undefined {
  const value = result.CallbackMetadata?.Item.find((item) => item.Name === 'MpesaReceiptNumber')?.Value;
  return typeof value === 'string' && MPESA_RECEIPT.test(value) ? value : undefined;
}

/** A ResultCode as our {@link ProviderOutcome} (see the module's table). */
export function outcomeOf(resultCode: string, resultDesc?: string): ProviderOutcome {
  if (resultCode === '0') return { status: 'completed' };
  const known = MPESA_RESULT_CODES[resultCode];
  const text = known?.text ?? (resultDesc ? resultDesc.slice(0, 100) : 'the request failed');
  return {
    status: 'failed',
    failureCode: known?.failureCode ?? 'provider_error',
    failureMessage: `M-Pesa: ${text} (ResultCode ${resultCode.slice(0, 10)})`,
    reason: resultCode.slice(0, 10),
  };
}
