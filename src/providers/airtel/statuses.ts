/**
 * Airtel Money's own statuses and codes mapped onto ours (docs/providers.md#adapters), as hyperswitch's connectors map
 * theirs. Source: the Airtel Africa developer portal (developers.airtel.africa, API host
 * openapiuat.airtel.africa): "Collection-APIs" (USSD Push, Transaction Enquiry, Refund), "Callback",
 * "Error Codes" (common ROUTER…, product ESB…, collection DP008…). The portal needs a login; its
 * text was read as transcribed in public integrations (e.g. iplusacademy/moodle-paygw_airtelafrica
 * classes/airtel_helper.php, msomali/airtel pkg/errors/errors.go and pkg/models/models.go,
 * fredpatch/ono_ticketr_server services/airtelmoney/documentations.md).
 *
 * Transaction status (`data.transaction.status` of `GET /standard/v1/payments/{id}`, and
 * `transaction.status_code` of callbacks):
 * | Airtel | meaning                | ours                                           |
 * |--------|------------------------|------------------------------------------------|
 * | TS     | transaction success    | completed                                      |
 * | TF     | transaction failed     | failed, reason from `response_code`/`message`  |
 * | TIP    | transaction in progress| pending (the USSD prompt awaits the customer's PIN) |
 * | TA     | transaction ambiguous  | processing (Airtel does not know yet: keep asking) |
 * | TE     | transaction expired    | failed `expired`                               |
 * | TR     | transaction reversed   | completed (it was collected; our refund logic owns the reversal) |
 *
 * Collection `response_code`s (DP008000010xx) that name a failure's reason:
 * | code          | Airtel's reason                          | failure_code       |
 * |---------------|------------------------------------------|--------------------|
 * | DP00800001002 | incorrect PIN                            | declined           |
 * | DP00800001003 | exceeds the wallet's transaction limit   | declined           |
 * | DP00800001004 | invalid amount (below the minimum)       | declined           |
 * | DP00800001005 | user did not enter the PIN               | expired            |
 * | DP00800001007 | not enough balance                       | insufficient_funds |
 * | DP00800001008 | refused                                  | declined           |
 * | DP00800001009 | do not honour                            | declined           |
 * | DP00800001010 | not permitted (payer barred/unregistered)| declined           |
 * | DP00800001024 | transaction timed out                    | expired            |
 * | DP00800001026 | forbidden (x-signature mismatch)         | provider_error     |
 * | DP00800001029 | transaction expired                      | expired            |
 * A `TF` without one of these codes is read from its `message` (insufficient/balance →
 * insufficient_funds; time-out/expired/no PIN → expired; anything else → declined, as the
 * simulators read a failure without a known reason).
 *
 * `result_code`s (ESB…, ROUTER…) that decide how an answer is read:
 * - ESB000010 success; ESB000011 failed (the reason is in `response_code`);
 * - ESB000041 "External Transaction ID already exists" → our earlier request exists: ask its status;
 * - ESB000045 "No Transaction Found With Provided Transaction Id" (and DP00800001025) → unknown reference;
 * - ESB000001, ESB000004, ESB000008, ESB000014, ROUTER117, 0000900 and DP00800001000: Airtel says
 *   the request "can be in an ambiguous state, do the transaction enquiry" → an unknown answer;
 * - ESB000033, ESB000036 (MSISDN length) → declined; other ESB/ROUTER codes (country, currency,
 *   wallet or vendor not configured) → provider_error.
 */
import type { FailureCode, ProviderOutcome } from '../../domain/payment';

/** Airtel's transaction statuses (see the module's table). */
export const AIRTEL_TRANSACTION_STATUSES = ['TS', 'TF', 'TIP', 'TA', 'TE', 'TR'] as const;
/** One Airtel transaction status. */
export type AirtelTransactionStatus = (typeof AIRTEL_TRANSACTION_STATUSES)[number];

/** True when `value` is one of Airtel's documented transaction statuses. */
export function isAirtelTransactionStatus(value: string): value is AirtelTransactionStatus {
  return (AIRTEL_TRANSACTION_STATUSES as readonly string[]).includes(value);
}

/** Collection `response_code`s naming a failure's reason, with our failure code. */
export const FAILURE_RESPONSE_CODES: Readonly<Record<string, FailureCode>> = {
  DP00800001002: 'declined',
  DP00800001003: 'declined',
  DP00800001004: 'declined',
  DP00800001005: 'expired',
  DP00800001007: 'insufficient_funds',
  DP00800001008: 'declined',
  DP00800001009: 'declined',
  DP00800001010: 'declined',
  DP00800001024: 'expired',
  DP00800001026: 'provider_error',
  DP00800001029: 'expired',
};

/** `result_code`: the request succeeded. */
export const RESULT_SUCCESS = 'ESB000010';
/** `result_code`: a transaction with this id already exists (a repeated initiation). */
export const RESULT_DUPLICATE_ID = 'ESB000041';
/** `result_code` / `response_code`: no transaction with this id. */
export const RESULT_NOT_FOUND = 'ESB000045';
export const RESPONSE_NOT_FOUND = 'DP00800001025';

/** Codes after which Airtel's documentation says the request may be in an ambiguous state (do an enquiry). */
const AMBIGUOUS_CODES: ReadonlySet<string> = new Set([
  'ESB000001',
  'ESB000004',
  'ESB000008',
  'ESB000014',
  'ROUTER117',
  '0000900',
  'DP00800001000',
]);

/** Codes rejecting the customer's number (MSISDN length). */
const MSISDN_CODES: ReadonlySet<string> = new Set(['ESB000033', 'ESB000036']);

/** The `status` block of every Airtel answer (codes are strings; `code` is the HTTP status as text). */
export interface AirtelStatusBlock {
  code?: string | number;
  message?: string;
  result_code?: string;
  response_code?: string;
  success?: boolean;
}

/**
 * How an Airtel `status` block reads, whatever the HTTP status (Airtel's `success` flag is not
 * reliable: its own samples answer `success: false` for a successful enquiry, so it is not used):
 * `duplicate` (our id exists), `not_found`, `ambiguous` (an unknown answer), a `failure` with its
 * code, or `other` (the HTTP status decides).
 */
export type StatusReading =
  | { kind: 'duplicate' | 'not_found' | 'ambiguous' | 'other' }
  | { kind: 'failure'; failureCode: FailureCode; failureMessage: string };

/** Reads an Airtel `status` block (see {@link StatusReading}). */
export function readStatusBlock(status: AirtelStatusBlock): StatusReading {
  const codes = [status.result_code, status.response_code].filter((code): code is string => typeof code === 'string');
  if (codes.includes(RESULT_DUPLICATE_ID)) return { kind: 'duplicate' };
  if (codes.includes(RESULT_NOT_FOUND) || codes.includes(RESPONSE_NOT_FOUND)) return { kind: 'not_found' };
  if (codes.some((code) => AMBIGUOUS_CODES.has(code))) return { kind: 'ambiguous' };
  const reason = status.response_code ? FAILURE_RESPONSE_CODES[status.response_code] : undefined;
  if (reason) return { kind: 'failure', failureCode: reason, failureMessage: failureMessageOf(status.message) };
  if (codes.some((code) => MSISDN_CODES.has(code)))
    return { kind: 'failure', failureCode: 'declined', failureMessage: failureMessageOf(status.message) };
  return { kind: 'other' };
}

/** The failure code of a refusal that names no mapped reason: MSISDN errors are declines, the rest provider errors. */
export function refusalCodeOf(status: AirtelStatusBlock): FailureCode {
  const reading = readStatusBlock(status);
  return reading.kind === 'failure' ? reading.failureCode : 'provider_error';
}

/** Our failure code for a `TF` transaction: its `response_code` when mapped, else read from its `message`. */
export function failureCodeOf(responseCode: string | undefined, message: string | undefined): FailureCode {
  const mapped = responseCode ? FAILURE_RESPONSE_CODES[responseCode] : undefined;
  if (mapped) return mapped;
  const text = (message ?? '').toLowerCase();
  if (/insufficient|not enough|balance/.test(text)) return 'insufficient_funds';
  if (/timed? ?out|expired|did ?n[o']t enter/.test(text)) return 'expired';
  return 'declined';
}

/** The message kept with a failure: Airtel's, or a generic one. */
function failureMessageOf(message: string | undefined): string {
  const trimmed = message?.trim();
  return trimmed ? `Airtel Money: ${trimmed}` : 'Airtel Money: the transaction failed';
}

/**
 * An Airtel transaction's status as our {@link ProviderOutcome}; a failure's reason from the
 * answer's `response_code` and the transaction's or status's `message`.
 */
export function outcomeOf(
  status: AirtelTransactionStatus,
  reason: { responseCode?: string; message?: string } = {},
): ProviderOutcome {
  switch (status) {
    case 'TS':
    case 'TR':
      return { status: 'completed' };
    case 'TF':
      return {
        status: 'failed',
        failureCode: failureCodeOf(reason.responseCode, reason.message),
        failureMessage: failureMessageOf(reason.message),
        ...(reason.responseCode ? { reason: reason.responseCode.slice(0, 20) } : {}),
      };
    case 'TE':
      return {
        status: 'failed',
        failureCode: 'expired',
        failureMessage: failureMessageOf(reason.message ?? 'the transaction expired'),
      };
    case 'TA':
      // Ambiguous: Airtel itself does not know the outcome yet; ask again.
      return { status: 'processing' };
    default:
      // TIP: the customer has the USSD prompt and has not entered the PIN yet (awaiting customer action).
      return { status: 'pending' };
  }
}

/** What a callback claiming `statusCode` claims, in our statuses (a hint: the status call decides). */
export function claimedStatusOf(statusCode: AirtelTransactionStatus): ProviderOutcome['status'] {
  return outcomeOf(statusCode).status;
}
