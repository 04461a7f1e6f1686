/**
 * M-Pesa B2C answers and results mapped onto the payout rail's (docs/payouts.md#m-pesa-b2c), and the documented shapes
 * of Daraja's B2C and Transaction Status bodies.
 *
 * Sources (Safaricom Daraja documentation, developer.safaricom.co.ke: "Business To Customer (B2C)", "Transaction
 * Status", "Result codes"; read also as transcribed in public integrations, listed in docs/providers.md#m-pesa):
 * - `POST /mpesa/b2c/v3/paymentrequest` is asynchronous: 200 `{ConversationID, OriginatorConversationID, ResponseCode:
 *   "0", ResponseDescription}` only says Daraja accepted the request; errors are `{requestId, errorCode,
 *   errorMessage}` (400 `400.002.02` for a field Daraja refuses);
 * - the result is POSTed to the request's `ResultURL`: `{Result: {ResultType, ResultCode, ResultDesc,
 *   OriginatorConversationID, ConversationID, TransactionID, ResultParameters?: {ResultParameter: [{Key, Value}]},
 *   ReferenceData?}}` (on success the parameters name TransactionAmount, TransactionReceipt,
 *   ReceiverPartyPublicName, B2CUtilityAccountAvailableFunds …); a request that waited too long in Daraja's queue is
 *   reported to its `QueueTimeOutURL` instead, which says nothing of whether M-Pesa carried it out;
 * - `POST /mpesa/transactionstatus/v1/query` is asynchronous too: its result comes to its own `ResultURL` in the same
 *   `Result` shape, with ResultParameters such as `TransactionStatus` (`Completed`, …), `ReasonType`, `ReceiptNo`,
 *   `Amount`.
 *
 * B2C ResultCodes:
 * | ResultCode   | Safaricom's meaning                                            | payout rail answer            |
 * |--------------|----------------------------------------------------------------|-------------------------------|
 * | 0            | processed successfully                                         | paid                          |
 * | 1            | the (organisation's) balance is insufficient                   | refused, platform_funds       |
 * | 5            | would exceed the (organisation's) minimum balance              | refused, platform_funds       |
 * | 2, 3         | less than the minimum / more than the maximum transaction value| refused, amount_invalid       |
 * | 4            | would exceed the daily transfer limit                          | refused, amount_invalid       |
 * | 8            | would exceed the recipient's maximum balance                   | refused, account_restricted   |
 * | 7, 12, 14    | receiver party / credit account unresolved or invalid          | refused, account_invalid      |
 * | 2040         | the credit party's customer type is not supported (unregistered)| refused, account_invalid     |
 * | 6, 11, 13    | primary party / debit account (ours) unresolved or invalid     | refused, provider_error       |
 * | 20, 2001     | initiator unresolved / the initiator information is invalid    | refused, provider_error       |
 * | 8006         | the security credential is locked                              | refused, provider_error       |
 * | 2028, 26     | not permitted by product assignment / traffic blocking         | refused, provider_error       |
 * | 15           | duplicate detected                                             | unknown (ask: the first exists)|
 * | 17           | internal failure                                               | unknown (ask)                 |
 * | any other    |                                                                | refused, declined             |
 */
import { PAYOUT_FAILURE_CODES, type PayoutFailureCode } from '../../domain/payout-rail';
import { z } from '../../lib/zod';

/** The B2C refusals by ResultCode, with their failure code and a readable text (see the module's table). */
export const B2C_REFUSALS: Readonly<Record<string, { failureCode: PayoutFailureCode; text: string }>> = {
  '1': { failureCode: 'platform_funds', text: "the organisation's M-Pesa balance is insufficient" },
  '5': { failureCode: 'platform_funds', text: "the payment would take the organisation's account below its minimum" },
  '2': { failureCode: 'amount_invalid', text: 'the amount is below the minimum M-Pesa pays' },
  '3': { failureCode: 'amount_invalid', text: 'the amount is above the maximum M-Pesa pays' },
  '4': { failureCode: 'amount_invalid', text: 'the payment would exceed the daily transfer limit' },
  '8': { failureCode: 'account_restricted', text: "the payment would exceed the recipient's maximum balance" },
  '7': { failureCode: 'account_invalid', text: 'the recipient is not an M-Pesa customer' },
  '12': { failureCode: 'account_invalid', text: "the recipient's account is not valid" },
  '14': { failureCode: 'account_invalid', text: "the recipient's account could not be resolved" },
  '2040': { failureCode: 'account_invalid', text: 'the recipient is not a registered M-Pesa customer' },
  '6': { failureCode: 'provider_error', text: "the organisation's short code could not be resolved" },
  '11': { failureCode: 'provider_error', text: "the organisation's account is in an invalid state" },
  '13': { failureCode: 'provider_error', text: "the organisation's account could not be resolved" },
  '20': { failureCode: 'provider_error', text: 'the B2C initiator could not be resolved' },
  '2001': { failureCode: 'provider_error', text: 'the B2C initiator information is invalid' },
  '8006': { failureCode: 'provider_error', text: "the B2C initiator's security credential is locked" },
  '2028': { failureCode: 'provider_error', text: 'the short code is not permitted to make B2C payments' },
  '26': { failureCode: 'provider_error', text: 'M-Pesa is blocking traffic from this organisation' },
};

/** ResultCodes that decide nothing: the transaction may exist; the Transaction Status query tells. */
export const B2C_UNDECIDED = new Set(['15', '17']);

/** A ResultCode or ResponseCode as Daraja sends it: a number in results, a string in answers. */
const code = z.union([z.number().int(), z.string().regex(/^[0-9A-Za-z_]{1,20}$/)]).transform(String);

/** The B2C request's (and the Transaction Status request's) acknowledgement → 200. */
export const b2cAcknowledgement = z.object({
  ConversationID: z.string().min(1).max(100),
  OriginatorConversationID: z.string().max(100).optional(),
  ResponseCode: code,
  ResponseDescription: z.string().max(1000).optional(),
});

/** One result parameter; Daraja sends a single one as an object rather than a one-element array. */
const parameter = z.object({ Key: z.string().max(100), Value: z.union([z.string(), z.number()]).nullish() });

/** The result POSTed to a ResultURL (B2C and Transaction Status alike). */
export const darajaResult = z.object({
  Result: z.object({
    ResultType: z.union([z.number(), z.string()]).optional(),
    ResultCode: code,
    ResultDesc: z.string().max(1000).optional(),
    OriginatorConversationID: z.string().max(100).optional(),
    ConversationID: z.string().max(100).optional(),
    TransactionID: z.string().max(100).optional(),
    ResultParameters: z
      .object({ ResultParameter: z.union([parameter, z.array(parameter).max(50)]).optional() })
      .nullish(),
  }),
});

/** A parsed result body. */
export type DarajaResult = z.infer<typeof darajaResult>['Result'];

/** The value of result parameter `key`, as a string; undefined when absent. */
export function resultParameter(result: DarajaResult, key: string): string | undefined {
  const given = result.ResultParameters?.ResultParameter;
  const list = given === undefined ? [] : Array.isArray(given) ? given : [given];
  const found = list.find((p) => p.Key === key)?.Value;
  return found === undefined || found === null ? undefined : String(found);
}

/**
 * A definite result of a payout, as the rail keeps it: `paid`, or `refused` with its failure code and message. This
 * is what ./payout-callback.ts records and ./b2c.ts reads back.
 */
export type B2cVerdict =
  | { outcome: 'paid'; transactionId?: string }
  | { outcome: 'refused'; failureCode: PayoutFailureCode; failureMessage: string; providerReason?: string };

/** The refusal of ResultCode `resultCode` (see the module's table). */
function refusalOf(resultCode: string, resultDesc: string | undefined): B2cVerdict {
  const known = B2C_REFUSALS[resultCode];
  const text = known?.text ?? (resultDesc?.trim() ? resultDesc.trim().slice(0, 200) : 'the payment was refused');
  return {
    outcome: 'refused',
    failureCode: known?.failureCode ?? 'declined',
    failureMessage: `M-Pesa: ${text} (ResultCode ${resultCode.slice(0, 20)})`,
    providerReason: resultCode.slice(0, 20),
  };
}

/** A B2C result as a verdict, or undefined when it decides nothing (see the module's table). */
export function b2cVerdictOf(result: DarajaResult): B2cVerdict | undefined {
  if (result.ResultCode === '0')
    return { outcome: 'paid', ...(result.TransactionID ? { transactionId: result.TransactionID } : {}) };
  if (B2C_UNDECIDED.has(result.ResultCode)) return undefined;
  return refusalOf(result.ResultCode, result.ResultDesc);
}

/** Transaction Status values that say the transaction did not happen. */
const NOT_CARRIED_OUT = new Set(['failed', 'declined', 'cancelled', 'expired']);

/**
 * A Transaction Status result as a verdict: `Completed` is paid, `Failed`, `Declined`, `Cancelled` or `Expired`
 * refused (`declined`, with the ReasonType M-Pesa gives); anything else, and a query that failed (a ResultCode other
 * than 0: no such transaction yet, the initiator refused), decides nothing.
 */
export function statusVerdictOf(result: DarajaResult): B2cVerdict | undefined {
  if (result.ResultCode !== '0') return undefined;
  const status = resultParameter(result, 'TransactionStatus')?.trim().toLowerCase();
  const receipt = resultParameter(result, 'ReceiptNo') ?? result.TransactionID;
  if (status === 'completed') return { outcome: 'paid', ...(receipt ? { transactionId: receipt } : {}) };
  if (status !== undefined && NOT_CARRIED_OUT.has(status)) {
    const reason = resultParameter(result, 'ReasonType') ?? resultParameter(result, 'TransactionReason');
    return {
      outcome: 'refused',
      failureCode: 'declined',
      failureMessage: `M-Pesa: the payment ${status}${reason ? ` (${reason.slice(0, 200)})` : ''}`,
    };
  }
  return undefined;
}

/** A verdict as kept in the request log (JSON). */
export const storedVerdict = z.union([
  z.object({ outcome: z.literal('paid'), transactionId: z.string().optional() }),
  z.object({
    outcome: z.literal('refused'),
    failureCode: z.enum(PAYOUT_FAILURE_CODES),
    failureMessage: z.string(),
    providerReason: z.string().optional(),
  }),
]);
