/**
 * The live `mobile_money_b` payout rail: Airtel Money's B2C disbursement (docs/payouts.md#rails), over HTTP with the
 * collections' credentials and token (./client.ts) plus the disbursement wallet's PIN.
 *
 * Airtel's calls (Airtel Africa developer portal, "Disbursement-APIs"; sources and codes in ./payout-statuses.ts):
 * - `POST /standard/v2/disbursements/` (Bearer token, `X-Country`, `X-Currency`) `{payee: {msisdn without the
 *   country code, wallet_type: NORMAL}, reference (4 to 64 letters and digits), pin, transaction: {amount in major
 *   units, id: ours, type: B2C}}` → `{data: {transaction: {reference_id, airtel_money_id, id, status}}, status}`;
 * - `GET /standard/v1/disbursements/{id}?transactionType=B2C` (the disbursement enquiry) →
 *   `{data: {transaction: {id, status, message?, airtel_money_id?}}, status}`;
 * - `pin`: the wallet's 4-digit PIN encrypted with Airtel's RSA public key (PKCS#1 v1.5 padding), base64.
 *
 * Decisions:
 * - the transaction id is derived from the payout id as a payment's is from its key (`airtelTransactionId`, the
 *   country first), so a repeated send names the same disbursement and Airtel answers "duplicate" (DP00900001017,
 *   ESB000041): the enquiry then answers, and no second disbursement is made;
 * - nothing is sent before a token is in hand: Airtel refusing our credentials (before or after a 401) means it
 *   never saw the disbursement ({@link PayoutRailUnavailable});
 * - after the disbursement call, a time-out, a 5xx, an ambiguous code or an undocumented answer is `unknown`.
 */
import { constants, publicEncrypt } from 'node:crypto';
import { parseMsisdn } from '../../domain/phone';
import { z } from '../../lib/zod';
import { documentedAnswer, providerFailureCause, type FetchLike, type ProviderHttpResponse } from '../http';
import { PayoutRailUnavailable, type PayoutAnswer, type PayoutRail, type PayoutSendAnswer } from '../payout-rail';
import {
  airtelAmount,
  airtelTransactionId,
  countryOfTransactionId,
  enquiredTransactionFields,
  isAmbiguousHttpStatus,
  isSuccess,
  transactionAnswer,
} from './adapter';
import { AIRTEL_COUNTRY_CURRENCIES, AirtelAuthenticationError, createAirtelClient, type AirtelCountry } from './client';
import { descriptor } from './descriptor';
import { disbursementOutcomeOf, readDisbursementStatus } from './payout-statuses';
import type { AirtelSettings } from './settings';
import { isAirtelTransactionStatus } from './statuses';

/**
 * A disbursement answer or an enquiry's: `{data: {transaction: {id?, status?, message?, airtel_money_id?}}, status}`.
 */
const disbursementAnswer = transactionAnswer({ ...enquiredTransactionFields, status: z.string().optional() });

/** The key Airtel's PIN is encrypted with, as PEM: `key` as given when PEM, else base64 DER (SPKI) wrapped. */
function publicKeyPem(key: string): string {
  if (key.includes('-----BEGIN')) return key;
  const body =
    key
      .replace(/\s+/g, '')
      .match(/.{1,64}/g)
      ?.join('\n') ?? '';
  return `-----BEGIN PUBLIC KEY-----\n${body}\n-----END PUBLIC KEY-----\n`;
}

/** `pin` encrypted for Airtel: RSA with PKCS#1 v1.5 padding under `publicKey`, base64. */
export function encryptAirtelPin(pin: string, publicKey: string): string {
  return publicEncrypt(
    { key: publicKeyPem(publicKey), padding: constants.RSA_PKCS1_PADDING },
    Buffer.from(pin),
  ).toString('base64');
}

/**
 * The Airtel payout rail for `settings`, or undefined when its disbursement PIN is not configured (Airtel then only
 * collects).
 * @param deps the HTTP client (default: global fetch), the token cache's clock
 */
export function createAirtelPayoutRail(
  settings: AirtelSettings,
  deps: { fetch?: FetchLike; now?: () => Date } = {},
): PayoutRail | undefined {
  const { disbursementPin, pinPublicKey } = settings;
  if (!disbursementPin || !pinPublicKey) return undefined;
  const client = createAirtelClient(settings, deps.fetch ?? fetch, deps.now ?? (() => new Date()));

  /** What the disbursement enquiry says of `reference`; `not_received` when Airtel has no such disbursement. */
  async function statusOf(reference: string): Promise<PayoutAnswer> {
    const country = countryOfTransactionId(reference);
    if (!country) return { outcome: 'not_received', providerReference: reference };
    const path = `/standard/v1/disbursements/${encodeURIComponent(reference)}?transactionType=B2C`;
    try {
      const response = await client.call('GET', path, country);
      const answer = documentedAnswer(disbursementAnswer, response.json, `GET ${path}`);
      const reading = readDisbursementStatus(answer.status);
      if (reading.kind === 'not_found' || response.status === 404)
        return { outcome: 'not_received', providerReference: reference };
      const transaction = answer.data?.transaction;
      if (isSuccess(response.status) && transaction?.status && isAirtelTransactionStatus(transaction.status))
        return {
          providerReference: reference,
          ...disbursementOutcomeOf(transaction.status, answer.status, transaction.message ?? undefined),
        };
      return {
        outcome: 'unknown',
        providerReference: reference,
        failureMessage: `GET ${path}: no disbursement status (HTTP ${response.status})`,
      };
    } catch (error) {
      return { outcome: 'unknown', providerReference: reference, failureMessage: providerFailureCause(error) };
    }
  }

  /** What a disbursement call's answer says (see the module's comment). */
  async function sendAnswerOf(reference: string, response: ProviderHttpResponse): Promise<PayoutSendAnswer> {
    const unknown = (why: string): PayoutSendAnswer => ({
      outcome: 'unknown',
      providerReference: reference,
      failureMessage: `POST /standard/v2/disbursements/: ${why} (HTTP ${response.status})`,
    });
    const parsed = disbursementAnswer.safeParse(response.json);
    if (!parsed.success) return unknown('undocumented answer');
    const reading = readDisbursementStatus(parsed.data.status);
    const status = parsed.data.data?.transaction?.status;
    switch (reading.kind) {
      case 'duplicate': {
        // Our earlier disbursement with this id exists (a repeated send): the enquiry is the answer.
        const answer = await statusOf(reference);
        if (answer.outcome === 'not_received' || answer.outcome === 'returned')
          return unknown(`Airtel says ${reference} exists`);
        return answer as PayoutSendAnswer;
      }
      case 'refused':
        return { outcome: 'refused', providerReference: reference, ...reading };
      case 'unknown':
      case 'not_found':
        return unknown(
          `ambiguous (${parsed.data.status.response_code ?? parsed.data.status.result_code ?? 'no code'})`,
        );
      case 'in_transit':
        return { outcome: 'in_transit', providerReference: reference };
      case 'paid':
        if (status === undefined || status === 'TS') return { outcome: 'paid', providerReference: reference };
        return unknown(`success with transaction status ${status}`);
      default:
        break;
    }
    if (isAmbiguousHttpStatus(response.status)) return unknown('no definite answer');
    if (isSuccess(response.status) && status === 'TS') return { outcome: 'paid', providerReference: reference };
    if (isSuccess(response.status) && status === 'TIP') return { outcome: 'in_transit', providerReference: reference };
    if (response.status >= 400 && response.status < 500)
      return {
        outcome: 'refused',
        providerReference: reference,
        failureCode: 'provider_error',
        failureMessage: `Airtel Money refused the disbursement: ${parsed.data.status.message ?? `HTTP ${response.status}`}`,
      };
    return unknown('undocumented answer');
  }

  return {
    code: descriptor.code,

    async sendPayout(request) {
      const msisdn =
        request.destination.type === 'mobile_money' ? parseMsisdn(request.destination.phoneNumber) : undefined;
      const country = msisdn?.country as AirtelCountry | undefined;
      const refused = (reference: string, failureMessage: string): PayoutSendAnswer => ({
        outcome: 'refused',
        providerReference: reference,
        failureCode: 'provider_error',
        failureMessage,
      });
      if (!msisdn || country === undefined || !(country in AIRTEL_COUNTRY_CURRENCIES))
        return refused(
          request.payoutId,
          `Airtel Money pays wallets of ${Object.keys(AIRTEL_COUNTRY_CURRENCIES).join(', ')} only`,
        );
      const reference = airtelTransactionId(country, `payout:${request.payoutId}`);
      if (request.currency !== AIRTEL_COUNTRY_CURRENCIES[country])
        return refused(reference, `Airtel Money pays ${AIRTEL_COUNTRY_CURRENCIES[country]} to ${country} wallets`);
      try {
        await client.token();
      } catch (error) {
        throw new PayoutRailUnavailable(`Airtel Money gave no token: ${providerFailureCause(error)}`);
      }
      let response: ProviderHttpResponse;
      try {
        response = await client.call('POST', '/standard/v2/disbursements/', country, {
          payee: { msisdn: msisdn.nationalNumber, wallet_type: 'NORMAL' },
          reference: `PO${request.payoutId.replace(/[^0-9A-Za-z]/g, '')}`.slice(0, 64),
          pin: encryptAirtelPin(disbursementPin, pinPublicKey),
          transaction: { amount: airtelAmount(request.amount, request.currency), id: reference, type: 'B2C' },
        });
      } catch (error) {
        if (error instanceof AirtelAuthenticationError)
          throw new PayoutRailUnavailable(`Airtel Money refused our token: ${error.message}`);
        return { outcome: 'unknown', providerReference: reference, failureMessage: providerFailureCause(error) };
      }
      return sendAnswerOf(reference, response);
    },

    payoutStatus: statusOf,
  };
}
