/**
 * MTN MoMo Disbursement transfer statuses and failure reasons mapped onto the payout rail's answers
 * (docs/payouts.md#rails), and the documented shape of a transfer result.
 *
 * Sources (MTN MoMo Open API documentation, "Disbursements" product):
 * - "Transfer" (momoapi.mtn.co.rw/docs/services/disbursement/operations/Transfer): moves an amount from our
 *   account to a payee; `X-Reference-Id` (UUID v4) names it; its status is read with GET /transfer/{referenceId};
 * - "/transfer/{referenceId} - GET" (momodeveloper.mtn.com, and the same operation of the Remittance product,
 *   momoapi.mtn.co.rw/docs/services/remittance/operations/transfer-referenceId-GET): 200 also for a failed
 *   transfer, `status` decides and `reason` gives the cause; fields `amount`, `currency`, `financialTransactionId`,
 *   `externalId`, `payee {partyIdType, partyId}`, `payerMessage`, `payeeNote`, `status`, `reason`; 404 for a
 *   reference MoMo does not know;
 * - the swagger's `ErrorReason` enum, and MTN's later reasons (see ./statuses.ts for their sources).
 *
 * | MoMo status | payout rail answer |
 * |-------------|--------------------|
 * | PENDING     | in_transit (MoMo has the transfer and has not finished it) |
 * | SUCCESSFUL  | paid |
 * | FAILED      | refused, reason below (MTN: FAILED is final) |
 *
 * | reason                                   | whose                 | failure code       |
 * |------------------------------------------|-----------------------|--------------------|
 * | PAYEE_NOT_FOUND                          | the merchant's wallet | account_invalid    |
 * | PAYEE_NOT_ALLOWED_TO_RECEIVE             | the merchant's wallet | account_restricted |
 * | NOT_ENOUGH_FUNDS                         | our account           | platform_funds     |
 * | PAYER_LIMIT_REACHED, SENDER_ACCOUNT_NOT_ACTIVE, PAYER_NOT_FOUND | our account | provider_error |
 * | NOT_ALLOWED, NOT_ALLOWED_TARGET_ENVIRONMENT, INVALID_CALLBACK_URL_HOST,  | our configuration | provider_error |
 * | INVALID_CURRENCY                         |                       |                    |
 * | INTERNAL_PROCESSING_ERROR, SERVICE_UNAVAILABLE, RESOURCE_NOT_FOUND, | MoMo       | provider_error     |
 * | TRANSACTION_NOT_FOUND                    |                       |                    |
 * | any other reason, or none                |                       | declined           |
 *
 * MoMo documents no reversal of a transfer in its status: a transfer MTN reverses by hand stays SUCCESSFUL, and the
 * money coming back shows only in the Disbursement account's balance (reconciliation by balance).
 */
import type { PayoutFailureCode, PayoutStatusOutcome } from '../../domain/payout-rail';
import type { z } from '../../lib/zod';
import { reasonCodeOf, requestToPayResult } from './statuses';

/** The payout failure code of each documented reason a FAILED transfer may carry (see the module's table). */
export const MOMO_TRANSFER_REASONS: Readonly<Record<string, PayoutFailureCode>> = {
  PAYEE_NOT_FOUND: 'account_invalid',
  PAYEE_NOT_ALLOWED_TO_RECEIVE: 'account_restricted',
  NOT_ENOUGH_FUNDS: 'platform_funds',
  PAYER_LIMIT_REACHED: 'provider_error',
  SENDER_ACCOUNT_NOT_ACTIVE: 'provider_error',
  PAYER_NOT_FOUND: 'provider_error',
  NOT_ALLOWED: 'provider_error',
  NOT_ALLOWED_TARGET_ENVIRONMENT: 'provider_error',
  INVALID_CALLBACK_URL_HOST: 'provider_error',
  INVALID_CURRENCY: 'provider_error',
  INTERNAL_PROCESSING_ERROR: 'provider_error',
  SERVICE_UNAVAILABLE: 'provider_error',
  RESOURCE_NOT_FOUND: 'provider_error',
  TRANSACTION_NOT_FOUND: 'provider_error',
};

/**
 * A transfer result (`GET /disbursement/v1_0/transfer/{referenceId}` → 200, and the body of a callback): a
 * request-to-pay result with `payee` for `payer`; `status` is required, the rest optional.
 */
export const transferResult = requestToPayResult
  .omit({ payer: true, referenceId: true })
  .extend({ payee: requestToPayResult.shape.payer });

/** A transfer result as {@link transferResult} validates it. */
export type TransferResult = z.infer<typeof transferResult>;

/** The payout failure code of a refusal with MoMo's reason `code` (`declined` when none or not documented). */
export function transferFailureCodeOf(code: string | undefined): PayoutFailureCode {
  return (code !== undefined && MOMO_TRANSFER_REASONS[code]) || 'declined';
}

/**
 * A transfer result as the rail's answer: its outcome and, for FAILED, the failure code and a message naming MoMo's
 * reason.
 */
export function transferOutcomeOf(result: TransferResult): {
  outcome: PayoutStatusOutcome;
  failureCode?: PayoutFailureCode;
  failureMessage?: string;
  providerReason?: string;
} {
  if (result.status === 'SUCCESSFUL') return { outcome: 'paid' };
  if (result.status === 'PENDING') return { outcome: 'in_transit' };
  const code = reasonCodeOf(result.reason);
  return {
    outcome: 'refused',
    failureCode: transferFailureCodeOf(code),
    failureMessage: `MTN MoMo refused the transfer (${code?.slice(0, 100) ?? 'no reason given'})`,
    ...(code ? { providerReason: code } : {}),
  };
}
