/**
 * MTN MoMo's request-to-pay statuses and failure reasons mapped onto ours (docs/providers.md#adapters), as
 * hyperswitch's
 * connectors map theirs, and the documented shape of a request-to-pay result.
 *
 * Sources (MTN MoMo Open API documentation):
 * - "/requesttopay/{referenceId} - GET" (momodeveloper.mtn.com/docs/services/collection/operations/
 *   requesttopay-referenceId-GET): 200 also for a failed request; `status` decides, `reason` gives
 *   the cause of a failure; fields `amount`, `currency`, `financialTransactionId`, `externalId`,
 *   `payer {partyIdType, partyId}`, `payerMessage`, `payeeNote`, `status`, `reason`;
 * - "/requesttopay - POST" (momoapi.mtn.com/docs/services/collection/operations/requesttopay-POST):
 *   a request stays `PENDING` until the payer authorises or declines it, or the system times it out;
 * - the swagger's `ErrorReason` enum (as shown by ericssondeveloperapi.portal.azure-api.net,
 *   "GetPaymentStatus"): PAYEE_NOT_FOUND, PAYER_NOT_FOUND, NOT_ALLOWED, NOT_ALLOWED_TARGET_ENVIRONMENT,
 *   INVALID_CALLBACK_URL_HOST, INVALID_CURRENCY, SERVICE_UNAVAILABLE, INTERNAL_PROCESSING_ERROR,
 *   NOT_ENOUGH_FUNDS, PAYER_LIMIT_REACHED, PAYEE_NOT_ALLOWED_TO_RECEIVE, PAYMENT_NOT_APPROVED,
 *   RESOURCE_NOT_FOUND, APPROVAL_REJECTED, EXPIRED, TRANSACTION_CANCELED, RESOURCE_ALREADY_EXIST;
 * - MTN's later additions ("Reason for some FAILED API responses updated", "Failure reasons updated
 *   MoMoOpenAPI", momodevelopercommunity.mtn.com; "Common errors", momodeveloper.mtn.com):
 *   COULD_NOT_PERFORM_TRANSACTION (the payer did not enter the PIN within 5 minutes),
 *   SENDER_ACCOUNT_NOT_ACTIVE (blocked payer wallet), TRANSACTION_NOT_FOUND; `reason` is now a plain
 *   string (`"reason": "NOT_ENOUGH_FUNDS"`), where the swagger had `{code, message}`: both are read.
 *
 * | MoMo status | ours |
 * |-------------|------|
 * | PENDING     | pending (the payer has the prompt and has not approved yet: awaiting customer action) |
 * | SUCCESSFUL  | completed |
 * | FAILED      | failed, `failure_code` by reason below |
 *
 * | reason                          | MTN's meaning                                  | failure_code       |
 * |---------------------------------|------------------------------------------------|--------------------|
 * | NOT_ENOUGH_FUNDS                | the payer lacks the funds                      | insufficient_funds |
 * | PAYER_LIMIT_REACHED             | the payer's wallet limit is reached            | declined           |
 * | PAYER_NOT_FOUND                 | no MoMo wallet for the number                  | declined           |
 * | SENDER_ACCOUNT_NOT_ACTIVE       | the payer's wallet is blocked or not active    | declined           |
 * | APPROVAL_REJECTED               | the payer rejected the prompt                  | declined           |
 * | REJECTED                        | (older name of the rejection)                  | declined           |
 * | PAYMENT_NOT_APPROVED            | the payer did not approve                      | declined           |
 * | TRANSACTION_CANCELED            | the payer cancelled                            | declined           |
 * | EXPIRED                         | the request expired                            | expired            |
 * | COULD_NOT_PERFORM_TRANSACTION   | no PIN entered within the time allowed         | expired            |
 * | INTERNAL_PROCESSING_ERROR       | generic error (often funds, or wallet down)    | provider_error     |
 * | SERVICE_UNAVAILABLE             | the wallet platform is unavailable             | provider_error     |
 * | PAYEE_NOT_FOUND                 | our (payee) account is not found               | provider_error     |
 * | PAYEE_NOT_ALLOWED_TO_RECEIVE    | our account cannot receive                     | provider_error     |
 * | NOT_ALLOWED                     | our API user lacks the permission              | provider_error     |
 * | NOT_ALLOWED_TARGET_ENVIRONMENT  | wrong X-Target-Environment                     | provider_error     |
 * | INVALID_CALLBACK_URL_HOST       | callback host not registered for the API user  | provider_error     |
 * | INVALID_CURRENCY                | currency not served by the account             | provider_error     |
 * | RESOURCE_NOT_FOUND, TRANSACTION_NOT_FOUND, RESOURCE_ALREADY_EXIST | reference faults | provider_error |
 * | any other reason, or none       |                                                | provider_error     |
 * Payer-side refusals are declines; our configuration and MoMo's own faults are provider errors
 * (which is still reconciled with a late success, docs/payments.md#states); a lapse of the payer's approval is
 * `expired`.
 */
import type { FailureCode, ProviderOutcome } from '../../domain/payment';
import { z } from '../../lib/zod';

/** MoMo's request-to-pay statuses. */
export const MOMO_STATUSES = ['PENDING', 'SUCCESSFUL', 'FAILED'] as const;
/** One MoMo request-to-pay status. */
export type MomoStatus = (typeof MOMO_STATUSES)[number];

/** Every documented failure reason, with our failure code and a readable text (see the module's table). */
export const MOMO_REASONS: Readonly<Record<string, { failureCode: FailureCode; text: string }>> = {
  NOT_ENOUGH_FUNDS: { failureCode: 'insufficient_funds', text: 'the payer does not have enough funds' },
  PAYER_LIMIT_REACHED: { failureCode: 'declined', text: "the payer's wallet limit is reached" },
  PAYER_NOT_FOUND: { failureCode: 'declined', text: 'the number has no MoMo wallet' },
  SENDER_ACCOUNT_NOT_ACTIVE: { failureCode: 'declined', text: "the payer's wallet is not active" },
  APPROVAL_REJECTED: { failureCode: 'declined', text: 'the payer rejected the payment' },
  REJECTED: { failureCode: 'declined', text: 'the payer rejected the payment' },
  PAYMENT_NOT_APPROVED: { failureCode: 'declined', text: 'the payer did not approve the payment' },
  TRANSACTION_CANCELED: { failureCode: 'declined', text: 'the payer cancelled the payment' },
  EXPIRED: { failureCode: 'expired', text: 'the payment request expired' },
  COULD_NOT_PERFORM_TRANSACTION: { failureCode: 'expired', text: 'the payer did not approve in time' },
  INTERNAL_PROCESSING_ERROR: { failureCode: 'provider_error', text: 'MoMo could not process the payment' },
  SERVICE_UNAVAILABLE: { failureCode: 'provider_error', text: 'the MoMo service is unavailable' },
  PAYEE_NOT_FOUND: { failureCode: 'provider_error', text: "the merchant's MoMo account was not found" },
  PAYEE_NOT_ALLOWED_TO_RECEIVE: {
    failureCode: 'provider_error',
    text: "the merchant's MoMo account cannot receive funds",
  },
  NOT_ALLOWED: { failureCode: 'provider_error', text: 'the MoMo API user is not allowed to collect' },
  NOT_ALLOWED_TARGET_ENVIRONMENT: { failureCode: 'provider_error', text: 'the MoMo target environment is not allowed' },
  INVALID_CALLBACK_URL_HOST: { failureCode: 'provider_error', text: 'the callback host is not registered with MoMo' },
  INVALID_CURRENCY: { failureCode: 'provider_error', text: 'the currency is not served by the MoMo account' },
  RESOURCE_NOT_FOUND: { failureCode: 'provider_error', text: 'MoMo did not find the request' },
  TRANSACTION_NOT_FOUND: { failureCode: 'provider_error', text: 'MoMo did not find the transaction' },
  RESOURCE_ALREADY_EXIST: { failureCode: 'provider_error', text: 'the reference was already used' },
};

/** A failure reason as MoMo sends it: a string now, `{code, message}` in the swagger. */
const reasonField = z.union([
  z.string().max(200),
  z.object({ code: z.string().max(200).optional(), message: z.string().max(1000).optional() }),
]);

/**
 * A number or a string (MoMo's own examples give `amount`, `externalId`, `financialTransactionId` and `partyId` as
 * numbers).
 */
const textOrNumber = z.union([z.string().max(200), z.number()]);

/**
 * A request-to-pay result (`GET /collection/v1_0/requesttopay/{referenceId}` → 200, and the body of
 * a callback): `status` is required, the rest optional, as MoMo leaves out what it does not know.
 */
export const requestToPayResult = z.object({
  referenceId: z.string().max(100).optional(),
  amount: textOrNumber.nullish(),
  currency: z.string().max(10).nullish(),
  financialTransactionId: textOrNumber.nullish(),
  externalId: textOrNumber.nullish(),
  payer: z.object({ partyIdType: z.string().max(50).optional(), partyId: textOrNumber.optional() }).nullish(),
  payerMessage: z.string().max(1000).nullish(),
  payeeNote: z.string().max(1000).nullish(),
  status: z.enum(MOMO_STATUSES),
  reason: reasonField.nullish(),
});

/** A request-to-pay result as {@link requestToPayResult} validates it. */
export type RequestToPayResult = z.infer<typeof requestToPayResult>;

/**
 * The reason's code of a result (upper case, spaces as `_`: MTN's own page writes "NOT ENOUGH_FUNDS"), or undefined.
 */
export function reasonCodeOf(reason: RequestToPayResult['reason']): string | undefined {
  const raw = typeof reason === 'string' ? reason : reason?.code;
  const code = raw?.trim().toUpperCase().replace(/\s+/g, '_');
  return code ? code : undefined;
}

/** Our failure code for a FAILED request with `reasonCode` (provider_error when none or unknown). */
export function failureCodeOf(reasonCode: string | undefined): FailureCode {
  return (reasonCode !== undefined && MOMO_REASONS[reasonCode]?.failureCode) || 'provider_error';
}

/**
 * A readable failure message naming MoMo's reason, e.g. `MTN MoMo: the payer does not have enough funds
 * (NOT_ENOUGH_FUNDS)`.
 */
export function failureMessageOf(reasonCode: string | undefined): string {
  if (reasonCode === undefined) return 'MTN MoMo: the payment request failed (no reason given)';
  const known = MOMO_REASONS[reasonCode];
  return `MTN MoMo: ${known ? known.text : 'the payment request failed'} (${reasonCode.slice(0, 100)})`;
}

/** A MoMo status (and a failure's reason) as our {@link ProviderOutcome}. */
export function outcomeOf(status: MomoStatus, reason?: RequestToPayResult['reason']): ProviderOutcome {
  switch (status) {
    case 'SUCCESSFUL':
      return { status: 'completed' };
    case 'FAILED': {
      const code = reasonCodeOf(reason);
      const failed = {
        status: 'failed' as const,
        failureCode: failureCodeOf(code),
        failureMessage: failureMessageOf(code),
      };
      return code === undefined ? failed : { ...failed, reason: code };
    }
    default:
      // PENDING: "the payer has not yet approved" (MTN), i.e. awaiting customer action; MoMo has no
      // state between the payer's approval and SUCCESSFUL, so a MoMo payment never shows `processing`.
      return { status: 'pending' };
  }
}

/** What a callback claiming `status` claims, in our statuses (a hint: the status call decides). */
export function claimedStatusOf(status: MomoStatus): ProviderOutcome['status'] {
  return outcomeOf(status).status;
}
