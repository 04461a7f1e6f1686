/**
 * The live `mobile_money_b` adapter: Airtel Money's collections API (docs/providers.md#adapters), over HTTP with
 * {@link providerHttp} (time-outs, unknown answers kept apart) and an access-token cache.
 *
 * Airtel's calls (Airtel Africa developer documentation, openapiuat.airtel.africa; sources in
 * ./statuses.ts):
 * - `POST /auth/oauth2/token` `{client_id, client_secret, grant_type: client_credentials}` →
 *   `{access_token, expires_in (seconds, sent as a string), token_type}`;
 * - `POST /merchant/v1/payments/` (USSD push; headers `X-Country`, `X-Currency`, Bearer token)
 *   `{reference, subscriber: {country, currency, msisdn without the country code}, transaction:
 *   {amount in major units, country, currency, id: ours}}`;
 * - `GET /standard/v1/payments/{id}` (transaction enquiry) → `data.transaction.{status, message, airtel_money_id}`;
 * - `POST /standard/v1/payments/refund` `{transaction: {airtel_money_id}}`: the whole payment only.
 * Airtel has no call withdrawing a USSD push (cancel is unsupported) and documents no refund
 * enquiry (a refund is looked up through the payment's enquiry: `TR` = reversed). Callbacks go to
 * the URL registered on Airtel's portal, so `InitiateRequest.callbackUrl` is not sent.
 *
 * Decisions:
 * - The transaction id is derived from the idempotency key, so a retried initiation sends the same
 *   id and Airtel answers "already exists" (ESB000041) instead of charging twice; the id starts
 *   with the customer's country (`RW` + 20 base62 characters, 22 in all), because every later call
 *   must name `X-Country`/`X-Currency` and gets only the reference: the country comes from the
 *   prefix, the currency from the country (each country here has one wallet currency).
 * - A refused token or a token refused twice is a configuration fault, not a statement about any
 *   payment: it is thrown as {@link AirtelAuthenticationError}, which callers retry like an unknown
 *   answer (a payment is never failed, nor a reference called unknown, for our credentials).
 */
import { createHash } from 'node:crypto';
import { base62FromDigest } from '../../domain/ids';
import { CURRENCY_EXPONENTS, type Currency } from '../../domain/money';
import { withReceiptNumber, type ProviderAnswer } from '../../domain/payment';
import { parseMsisdn } from '../../domain/phone';
import { z } from '../../lib/zod';
import { documentedAnswer, ProviderUnknownAnswer, type FetchLike } from '../http';
import { ProviderRefusal, ProviderUnsupported, type PaymentProvider } from '../provider';
import { parseAirtelCallback } from './callback';
import { AIRTEL_COUNTRY_CURRENCIES, createAirtelClient, type AirtelCountry } from './client';
import { descriptor } from './descriptor';
import type { AirtelSettings } from './settings';
import {
  isAirtelTransactionStatus,
  outcomeOf,
  readStatusBlock,
  type AirtelStatusBlock,
  type AirtelTransactionStatus,
} from './statuses';

export { AIRTEL_COUNTRY_CURRENCIES, type AirtelCountry } from './client';

/** Base62 characters after the country prefix of a transaction id. */
export const TRANSACTION_ID_HASH_LENGTH = 20;

/** Longest `reference` (the text shown with the request) sent to Airtel, in characters. */
const REFERENCE_MAX_LENGTH = 50;

/** True when `country` is one {@link AIRTEL_COUNTRY_CURRENCIES} names. */
function isAirtelCountry(country: string): country is AirtelCountry {
  return Object.prototype.hasOwnProperty.call(AIRTEL_COUNTRY_CURRENCIES, country);
}

/**
 * The Airtel transaction id of the request with `idempotencyKey` collected in `country`: the
 * country followed by 20 base62 characters of SHA-256(idempotencyKey), e.g. `RW3hY…` (22 characters).
 */
export function airtelTransactionId(country: AirtelCountry, idempotencyKey: string): string {
  return `${country}${base62FromDigest(createHash('sha256').update(idempotencyKey).digest(), TRANSACTION_ID_HASH_LENGTH)}`;
}

/** The country a transaction id of this adapter names, or undefined when `id` is not one. */
export function countryOfTransactionId(id: string): AirtelCountry | undefined {
  const match = /^([A-Z]{2})[0-9A-Za-z]{20}$/.exec(id);
  return match && isAirtelCountry(match[1] as string) ? (match[1] as AirtelCountry) : undefined;
}

/**
 * `minor` units of `currency` as the major-unit number Airtel's `amount` takes (RWF/UGX 1500 →
 * 1500; KES 150050 → 1500.5). Built from the decimal digits, so the JSON number is that decimal
 * exactly (at most 13 significant digits under the amount limit, docs/limits.md#amounts).
 */
export function airtelAmount(minor: number, currency: Currency): number {
  const exponent = CURRENCY_EXPONENTS[currency];
  if (exponent === 0) return minor;
  const scale = 10 ** exponent;
  return Number(`${Math.trunc(minor / scale)}.${String(minor % scale).padStart(exponent, '0')}`);
}

export { AirtelAuthenticationError } from './client';

/** The `status` block every Airtel answer carries. */
export const statusBlock = z.object({
  code: z.union([z.string(), z.number()]).optional(),
  message: z.string().optional(),
  result_code: z.string().optional(),
  response_code: z.string().optional(),
  success: z.boolean().optional(),
});

/**
 * An Airtel answer about one transaction, `{data: {transaction: {…fields}}, status}` with the {@link statusBlock}:
 * `data` may be null or absent, and its `transaction` absent (a refusal carries only the status block).
 */
export function transactionAnswer<Fields extends z.ZodRawShape>(fields: Fields) {
  return z.object({
    data: z.object({ transaction: z.object(fields).optional() }).nullish(),
    status: statusBlock,
  });
}

/**
 * The fields of a transaction an enquiry answers (a collection's or a disbursement's) besides its status: `id`, not
 * read (Airtel's own samples give `id: false`), `message?` and `airtel_money_id?`.
 */
export const enquiredTransactionFields = {
  id: z.unknown().optional(),
  message: z.string().nullish(),
  airtel_money_id: z.string().nullish(),
};

/** `POST /merchant/v1/payments/` → `{data: {transaction: {id, status}}, status}`; `id` is not read. */
const paymentAnswer = transactionAnswer({ id: z.unknown().optional(), status: z.string().optional() });

/** `GET /standard/v1/payments/{id}` → `{data: {transaction: {id, status, message?, airtel_money_id?}}, status}`. */
const enquiryAnswer = transactionAnswer({ ...enquiredTransactionFields, status: z.string() });

/** `POST /standard/v1/payments/refund` → `{data: {transaction: {airtel_money_id, status}}, status}`. */
const refundAnswer = transactionAnswer({ airtel_money_id: z.string().nullish(), status: z.string() });

/** A transaction as the enquiry gave it. */
interface EnquiredTransaction {
  status: AirtelTransactionStatus;
  message?: string;
  airtelMoneyId?: string;
  statusBlock: AirtelStatusBlock;
}

/** True for the HTTP statuses after which Airtel may have acted without saying (read time-out, rate limit). */
export function isAmbiguousHttpStatus(status: number): boolean {
  return status === 408 || status === 429;
}

/** True for a 2xx status. */
export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** The refund words Airtel answers with: its sample says `SUCCESS`; the enquiry's statuses are read alike. */
const REFUND_SUCCEEDED: ReadonlySet<string> = new Set(['SUCCESS', 'SUCCESSFUL', 'TS', 'TR']);
const REFUND_FAILED: ReadonlySet<string> = new Set(['FAILED', 'FAILURE', 'TF']);
const REFUND_PENDING: ReadonlySet<string> = new Set(['PENDING', 'IN_PROGRESS', 'TIP', 'TA']);

/**
 * The live Airtel Money adapter (see the module's comment). Three-valued answers: values,
 * {@link ProviderRefusal} (a refusal with its failure code, an unknown reference, a partial refund,
 * a bad callback), and any other error for an unknown answer (time-out, 5xx, undocumented body,
 * an ambiguous Airtel code, {@link AirtelAuthenticationError}).
 * @param settings base URL, credentials, callback private key, time-out (ms) of every call
 * @param deps.fetch the HTTP client (default: global fetch); deps.now the clock of the token cache
 */
export function createAirtelProvider(
  settings: AirtelSettings,
  deps: { fetch?: FetchLike; now?: () => Date } = {},
): PaymentProvider {
  const fetchImpl = deps.fetch ?? fetch;
  const now = deps.now ?? (() => new Date());

  const { call } = createAirtelClient(settings, fetchImpl, now);

  /** The country of a reference of ours. @throws ProviderRefusal when `reference` is not an id this adapter makes */
  function countryOf(reference: string): AirtelCountry {
    const country = countryOfTransactionId(reference);
    if (!country) throw new ProviderRefusal(`${reference} is not an Airtel transaction id of this service`);
    return country;
  }

  /**
   * The transaction enquiry for `reference`.
   * @throws ProviderRefusal when Airtel has no such transaction; any other error when the answer is unknown
   */
  async function enquire(reference: string): Promise<EnquiredTransaction> {
    const path = `/standard/v1/payments/${encodeURIComponent(reference)}`;
    const response = await call('GET', path, countryOf(reference));
    const answer = documentedAnswer(enquiryAnswer, response.json, `GET ${path}`);
    const reading = readStatusBlock(answer.status);
    if (reading.kind === 'not_found' || response.status === 404)
      throw new ProviderRefusal(`Airtel has no transaction ${reference}`);
    const transaction = answer.data?.transaction;
    if (isSuccess(response.status) && transaction && isAirtelTransactionStatus(transaction.status)) {
      return {
        status: transaction.status,
        message: transaction.message ?? undefined,
        airtelMoneyId: transaction.airtel_money_id ?? undefined,
        statusBlock: answer.status,
      };
    }
    // An ambiguous code, a refused enquiry (country, currency) or an undocumented status says nothing definite about
    // the payment.
    throw new ProviderUnknownAnswer(
      `GET ${path}: no transaction status in the answer (HTTP ${response.status}, ${answer.status.result_code ?? answer.status.response_code ?? 'no code'})`,
      response.status,
    );
  }

  /** The payment `reference` as Airtel's enquiry says it is now. */
  async function statusAnswer(reference: string): Promise<ProviderAnswer> {
    const transaction = await enquire(reference);
    const outcome = outcomeOf(transaction.status, {
      responseCode: transaction.statusBlock.response_code,
      message: transaction.message ?? transaction.statusBlock.message,
    });
    // A success's airtel_money_id is the customer's receipt id (docs/payments.md#payment-record).
    return { providerReference: reference, outcome: withReceiptNumber(outcome, transaction.airtelMoneyId) };
  }

  return {
    code: descriptor.code,
    supports: descriptor.live,

    async initiate(request) {
      const msisdn = parseMsisdn(request.customer);
      if (!msisdn || !isAirtelCountry(msisdn.country))
        throw new ProviderRefusal(
          `Airtel Money collects from numbers of ${Object.keys(AIRTEL_COUNTRY_CURRENCIES).join(', ')} only`,
          'provider_error',
        );
      const country = msisdn.country;
      const currency = AIRTEL_COUNTRY_CURRENCIES[country];
      if (request.currency !== currency)
        throw new ProviderRefusal(
          `Airtel Money collects ${currency} from ${country} numbers, not ${request.currency}`,
          'provider_error',
        );
      const id = airtelTransactionId(country, request.idempotencyKey);
      const path = '/merchant/v1/payments/';
      const response = await call('POST', path, country, {
        reference: request.description.slice(0, REFERENCE_MAX_LENGTH),
        subscriber: { country, currency, msisdn: msisdn.nationalNumber },
        transaction: { amount: airtelAmount(request.amount, request.currency), country, currency, id },
      });
      const answer = documentedAnswer(paymentAnswer, response.json, `POST ${path}`);
      const reading = readStatusBlock(answer.status);
      if (reading.kind === 'duplicate') {
        // Our earlier request with this id exists (a retry): its status is the answer.
        try {
          return { ...(await statusAnswer(id)), nextAction: null };
        } catch (error) {
          if (error instanceof ProviderRefusal)
            throw new ProviderUnknownAnswer(`POST ${path}: Airtel says ${id} exists, then does not find it`);
          throw error;
        }
      }
      if (reading.kind === 'ambiguous' || isAmbiguousHttpStatus(response.status)) {
        throw new ProviderUnknownAnswer(
          `POST ${path}: Airtel's answer is ambiguous (HTTP ${response.status}, ${answer.status.result_code ?? answer.status.response_code ?? 'no code'})`,
          response.status,
        );
      }
      if (response.status >= 400) {
        const failureCode = reading.kind === 'failure' ? reading.failureCode : 'provider_error';
        throw new ProviderRefusal(
          `Airtel refused the payment request: ${answer.status.message ?? `HTTP ${response.status}`}`,
          failureCode,
        );
      }
      if (!isSuccess(response.status) || reading.kind === 'not_found')
        throw new ProviderUnknownAnswer(`POST ${path}: undocumented answer (HTTP ${response.status})`, response.status);
      if (reading.kind === 'failure') {
        return {
          providerReference: id,
          outcome: { status: 'failed', failureCode: reading.failureCode, failureMessage: reading.failureMessage },
          nextAction: null,
        };
      }
      // Accepted: the customer has the USSD prompt. Airtel gives no prompt text, so no next action is invented.
      const status = answer.data?.transaction?.status;
      const decided = status !== undefined && isAirtelTransactionStatus(status) && status !== 'TIP' && status !== 'TA';
      return {
        providerReference: id,
        outcome: decided
          ? outcomeOf(status, { responseCode: answer.status.response_code, message: answer.status.message })
          : { status: 'pending' },
        nextAction: null,
      };
    },

    async fetchStatus(providerReference) {
      return statusAnswer(providerReference);
    },

    async cancel() {
      throw new ProviderUnsupported(descriptor.code, 'cancel');
    },

    async refund(request) {
      if (request.amount !== request.paymentAmount)
        throw new ProviderRefusal('Airtel Money refunds the whole payment only: refund the full amount or nothing');
      const transaction = await enquire(request.providerReference);
      // Already reversed: an earlier refund of this payment whose answer was lost (Airtel reverses a payment once).
      if (transaction.status === 'TR')
        return { status: 'succeeded', refundReference: transaction.airtelMoneyId ?? request.providerReference };
      if (transaction.status === 'TF' || transaction.status === 'TE')
        return {
          status: 'failed',
          failureMessage: `Airtel Money cannot refund a payment it did not collect (${transaction.status})`,
        };
      if (transaction.status !== 'TS')
        throw new ProviderUnknownAnswer(
          `Airtel does not know yet whether ${request.providerReference} was collected (${transaction.status})`,
        );
      if (!transaction.airtelMoneyId)
        throw new ProviderUnknownAnswer(
          `Airtel gave no airtel_money_id for the collected payment ${request.providerReference}`,
        );
      const path = '/standard/v1/payments/refund';
      const response = await call('POST', path, countryOf(request.providerReference), {
        transaction: { airtel_money_id: transaction.airtelMoneyId },
      });
      const answer = documentedAnswer(refundAnswer, response.json, `POST ${path}`);
      const reading = readStatusBlock(answer.status);
      if (reading.kind === 'ambiguous' || isAmbiguousHttpStatus(response.status))
        throw new ProviderUnknownAnswer(
          `POST ${path}: Airtel's answer is ambiguous (HTTP ${response.status})`,
          response.status,
        );
      const refusal = `Airtel refused the refund: ${answer.status.message ?? `HTTP ${response.status}`}`;
      if (response.status >= 400) return { status: 'failed', failureMessage: refusal };
      const status = answer.data?.transaction?.status.toUpperCase();
      if (isSuccess(response.status) && status !== undefined) {
        if (REFUND_SUCCEEDED.has(status))
          return {
            status: 'succeeded',
            refundReference: answer.data?.transaction?.airtel_money_id ?? transaction.airtelMoneyId,
          };
        if (REFUND_FAILED.has(status)) return { status: 'failed', failureMessage: refusal };
        if (REFUND_PENDING.has(status)) return { status: 'pending' };
      }
      if (isSuccess(response.status) && status === undefined && reading.kind === 'failure')
        return { status: 'failed', failureMessage: refusal };
      throw new ProviderUnknownAnswer(
        `POST ${path}: undocumented answer (HTTP ${response.status}, status ${status ?? 'missing'})`,
        response.status,
      );
    },

    async fetchRefund(request) {
      let transaction: EnquiredTransaction;
      try {
        transaction = await enquire(request.providerReference);
      } catch (error) {
        // Airtel has no record of the payment, so none of a refund of it.
        if (error instanceof ProviderRefusal) return { status: 'not_received' };
        throw error;
      }
      if (transaction.status === 'TR')
        return { status: 'succeeded', refundReference: transaction.airtelMoneyId ?? request.providerReference };
      if (transaction.status === 'TIP' || transaction.status === 'TA')
        throw new ProviderUnknownAnswer(
          `Airtel does not know yet what became of ${request.providerReference} (${transaction.status})`,
        );
      // Not reversed: Airtel keys a refund by the payment's airtel_money_id and reverses a payment
      // once, so sending the refund again cannot refund twice.
      return { status: 'not_received' };
    },

    parseCallback(request) {
      return parseAirtelCallback(request, settings.callbackPrivateKey);
    },
  };
}
