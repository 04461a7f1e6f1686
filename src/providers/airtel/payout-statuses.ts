/**
 * Airtel Money's disbursement answers mapped onto the payout rail's (docs/payouts.md#rails).
 *
 * Sources: the Airtel Africa developer portal (developers.airtel.africa, "Disbursement-APIs": Disbursement,
 * Disbursement Enquiry, Error Codes; the Uganda portal's copy, developers.airtel.ug/documentation/disbursement-apis/
 * error-codes). The portal needs a login; its text was read as transcribed in public integrations (the 121
 * platform's Airtel integration, global-121/121-platform services/121-service/src/payments/fsp-integration/airtel:
 * request body, v2 paths, PIN encryption, the DP009 codes and their reading; and codes tables transcribed from the
 * Uganda portal in other public integrations). Transaction statuses (`TS`, `TF`, `TIP`, `TA`, `TE`, `TR`) are the
 * enquiry's as for collections (./statuses.ts).
 *
 * | enquiry status | payout rail answer |
 * |----------------|--------------------|
 * | TS             | paid |
 * | TIP            | in_transit (Airtel has it, not finished) |
 * | TA             | unknown (Airtel itself does not know yet: ask again) |
 * | TF, TE         | refused, reason from `response_code` below |
 * | TR             | returned (reversed: the money came back) |
 *
 * Disbursement `response_code`s (DP009…):
 * | code          | Airtel's reason                                          | reading                       |
 * |---------------|----------------------------------------------------------|-------------------------------|
 * | DP00900001001 | success                                                  | paid                          |
 * | DP00900001000 | ambiguous: "do the transaction enquiry"                  | unknown                       |
 * | DP00900001006 | in process                                               | in_transit                    |
 * | DP00900001014 | timed out: "may be processed or failed", enquire         | unknown                       |
 * | DP00900001011 | a transaction with similar information already exists   | duplicate: enquire            |
 * | DP00900001017 | duplicate transaction id: enquire                        | duplicate: enquire            |
 * | DP00900001015 | transaction not found                                    | not_received (enquiry)        |
 * | DP00900001003 | maximum transaction limit reached for the day            | refused, account_restricted   |
 * | DP00900001004 | amount out of the defined limits                         | refused, amount_invalid       |
 * | DP00900001005 | transaction failed                                       | refused, declined             |
 * | DP00900001007 | not enough funds in (our) account                        | refused, platform_funds       |
 * | DP00900001009 | invalid initiatee                                        | refused, provider_error       |
 * | DP00900001010 | payer (our wallet) not an allowed user                   | refused, provider_error       |
 * | DP00900001012 | invalid mobile number                                    | refused, account_invalid      |
 * | DP00900001013 | refused                                                  | refused, declined             |
 * | DP00900001016 | forbidden (x-signature and payload did not match)        | refused, provider_error       |
 * `result_code`s ESB000041 (duplicate id) and ESB000045 (not found), and the ambiguous ESB/ROUTER codes, read as for
 * collections (./statuses.ts); ROUTER114-116 (the PIN could not be validated or decrypted) refuse for our
 * configuration (provider_error).
 */
import type { PayoutFailureCode, PayoutStatusOutcome } from '../../domain/payout-rail';
import { readStatusBlock, type AirtelStatusBlock, type AirtelTransactionStatus } from './statuses';

/** The refusals among the disbursement response codes, with their failure code (see the module's table). */
export const DISBURSEMENT_REFUSALS: Readonly<Record<string, PayoutFailureCode>> = {
  DP00900001003: 'account_restricted',
  DP00900001004: 'amount_invalid',
  DP00900001005: 'declined',
  DP00900001007: 'platform_funds',
  DP00900001009: 'provider_error',
  DP00900001010: 'provider_error',
  DP00900001012: 'account_invalid',
  DP00900001013: 'declined',
  DP00900001016: 'provider_error',
  ROUTER114: 'provider_error',
  ROUTER115: 'provider_error',
  ROUTER116: 'provider_error',
};

/** How a disbursement answer's `status` block reads. */
export type DisbursementReading =
  | { kind: 'paid' | 'in_transit' | 'unknown' | 'duplicate' | 'not_found' | 'other' }
  | { kind: 'refused'; failureCode: PayoutFailureCode; failureMessage: string; providerReason: string };

/** The message kept with a refusal: Airtel's, or a generic one. */
function refusalMessage(message: string | undefined, code: string | undefined): string {
  const text = message?.trim() || 'the disbursement was refused';
  return `Airtel Money: ${text.slice(0, 200)}${code ? ` (${code})` : ''}`;
}

/** Reads a disbursement answer's `status` block (see the module's table); `other` when the HTTP status must decide. */
export function readDisbursementStatus(status: AirtelStatusBlock): DisbursementReading {
  const codes = [status.response_code, status.result_code].filter((c): c is string => typeof c === 'string');
  if (codes.includes('DP00900001001')) return { kind: 'paid' };
  if (codes.includes('DP00900001006')) return { kind: 'in_transit' };
  if (codes.includes('DP00900001000') || codes.includes('DP00900001014')) return { kind: 'unknown' };
  if (codes.includes('DP00900001011') || codes.includes('DP00900001017')) return { kind: 'duplicate' };
  if (codes.includes('DP00900001015')) return { kind: 'not_found' };
  const refusal = codes.find((code) => DISBURSEMENT_REFUSALS[code] !== undefined);
  if (refusal)
    return {
      kind: 'refused',
      failureCode: DISBURSEMENT_REFUSALS[refusal] as PayoutFailureCode,
      failureMessage: refusalMessage(status.message, refusal),
      providerReason: refusal,
    };
  const collection = readStatusBlock(status);
  if (collection.kind === 'duplicate' || collection.kind === 'not_found') return { kind: collection.kind };
  if (collection.kind === 'ambiguous') return { kind: 'unknown' };
  return { kind: 'other' };
}

/**
 * An enquired disbursement's status as the rail's answer; a refusal's reason from the answer's `status` block.
 */
export function disbursementOutcomeOf(
  transactionStatus: AirtelTransactionStatus,
  status: AirtelStatusBlock,
  message?: string,
): { outcome: PayoutStatusOutcome; failureCode?: PayoutFailureCode; failureMessage?: string; providerReason?: string } {
  switch (transactionStatus) {
    case 'TS':
      return { outcome: 'paid' };
    case 'TR':
      return { outcome: 'returned' };
    case 'TIP':
      return { outcome: 'in_transit' };
    case 'TA':
      return { outcome: 'unknown', failureMessage: 'Airtel Money: the disbursement is ambiguous (TA)' };
    default: {
      const reading = readDisbursementStatus(status);
      return {
        outcome: 'refused',
        failureCode: reading.kind === 'refused' ? reading.failureCode : 'declined',
        failureMessage: refusalMessage(message ?? status.message, status.response_code),
        ...(reading.kind === 'refused' ? { providerReason: reading.providerReason } : {}),
      };
    }
  }
}
