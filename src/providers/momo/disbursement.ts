/**
 * The live `momo` payout rail: MTN MoMo's Disbursement product (docs/payouts.md#rails), over HTTP with its own
 * credentials and token (./client.ts).
 *
 * MoMo's calls (MTN MoMo Open API documentation, "Disbursements": momodeveloper.mtn.com/docs/services/disbursement,
 * momoapi.mtn.co.rw/docs/services/disbursement/operations/Transfer; statuses and reasons in ./payout-statuses.ts):
 * - `POST /disbursement/token/` as every product's token (./client.ts), with the Disbursement API user, key and
 *   subscription key;
 * - `POST /disbursement/v1_0/transfer` with `X-Reference-Id` (UUID v4 naming the transfer), `X-Target-Environment`,
 *   optionally `X-Callback-Url`; body `{amount (string, major units), currency, externalId, payee: {partyIdType:
 *   MSISDN, partyId}, payerMessage, payeeNote}` → 202 with no body; 409 RESOURCE_ALREADY_EXIST for a repeated
 *   X-Reference-Id; 400 for a request MoMo cannot take; 500/503 with a code;
 * - `GET /disbursement/v1_0/transfer/{referenceId}` → 200 with the transfer result, 404 for an unknown reference;
 * - `GET /disbursement/v1_0/accountholder/msisdn/{msisdn}/active` ("ValidateAccountHolderStatus") → 200
 *   `{result: true|false}`: true when the holder is registered and active;
 * - `GET /disbursement/v1_0/account/balance` → 200 `{availableBalance (string, major units), currency}`.
 *
 * Decisions:
 * - `X-Reference-Id` is derived from the payout id exactly as a payment's is from the payment id
 *   (`momoReferenceId`): a send repeated for one payout repeats the reference, MoMo answers 409 and the transfer's
 *   status is the answer, so no second transfer is ever made;
 * - nothing is sent before a token is in hand: a token MoMo refuses or does not give means MoMo never saw the
 *   transfer ({@link PayoutRailUnavailable}), as does a transfer call answered 401 twice;
 * - after the transfer call, anything but 202, 409 or a documented refusal (a time-out, a 5xx, an undocumented
 *   answer) is `unknown`: MoMo may have the transfer, and only its status call tells.
 */
import { isCurrency, minorFromDecimalText } from '../../domain/money';
import { z } from '../../lib/zod';
import { documentedAnswer, providerFailureCause, ProviderUnknownAnswer, type ProviderHttpResponse } from '../http';
import {
  PayoutRailUnavailable,
  type PayoutAnswer,
  type PayoutRail,
  type PayoutSendAnswer,
  type RailBalance,
} from '../payout-rail';
import { momoAmount, momoReferenceId, momoText, type LiveProviderDeps } from './adapter';
import { momoMarketProblem } from './fields';
import { isUuid, momoCallbackUrl } from './callback';
import {
  createMomoDisbursementClient,
  MomoAuthenticationError,
  momoErrorOf,
  type MomoClient,
  type MomoProduct,
} from './client';
import { descriptor } from './descriptor';
import { transferFailureCodeOf, transferOutcomeOf, transferResult } from './payout-statuses';
import type { MomoSettings } from './settings';
import { reasonCodeOf } from './statuses';

/** `GET /disbursement/v1_0/accountholder/msisdn/{msisdn}/active` → 200. */
const accountHolderAnswer = z.object({ result: z.boolean() });

/** `GET /{collection|disbursement}/v1_0/account/balance` → 200. */
const balanceAnswer = z.object({
  availableBalance: z.union([z.string().regex(/^-?[0-9]+(\.[0-9]+)?$/), z.number()]),
  currency: z.string(),
});

/** MoMo's amounts (`"1500"`, `"12.50"`) as minor units: {@link minorFromDecimalText}. */
export const minorFromMomoAmount = minorFromDecimalText;

/**
 * What MoMo says product `product`'s account holds (`GET /{product}/v1_0/account/balance`), in minor units.
 * @throws ProviderUnknownAnswer for any other status, an undocumented body or a currency this service cannot read
 */
export async function readMomoBalance(call: MomoClient['call'], product: MomoProduct): Promise<RailBalance> {
  const path = `/${product}/v1_0/account/balance`;
  const response = await call('GET', path);
  if (response.status !== 200)
    throw new ProviderUnknownAnswer(`GET ${path}: undocumented answer (HTTP ${response.status})`, response.status);
  const answer = documentedAnswer(balanceAnswer, response.json, `GET ${path}`);
  const amount = isCurrency(answer.currency)
    ? minorFromMomoAmount(String(answer.availableBalance), answer.currency)
    : undefined;
  if (amount === undefined || !isCurrency(answer.currency))
    throw new ProviderUnknownAnswer(`GET ${path}: a balance of ${answer.currency} this service cannot read`);
  return { amount, currency: answer.currency };
}

/**
 * The MoMo payout rail for `settings`, or undefined when its Disbursement credentials are not configured (MoMo then
 * only collects).
 * @param deps the callback secret (per-transfer callback tokens), the HTTP client, the token cache's clock
 */
export function createMomoPayoutRail(settings: MomoSettings, deps: LiveProviderDeps): PayoutRail | undefined {
  const disbursement = createMomoDisbursementClient(settings, deps.fetch ?? fetch, deps.now ?? (() => new Date()));
  if (!disbursement) return undefined;
  const client: MomoClient = disbursement;

  /** The answer of `reference` from MoMo's status call; `not_received` for a reference MoMo does not know. */
  async function statusOf(reference: string): Promise<PayoutAnswer> {
    if (!isUuid(reference)) return { outcome: 'not_received', providerReference: reference };
    const path = `/disbursement/v1_0/transfer/${encodeURIComponent(reference)}`;
    try {
      const response = await client.call('GET', path);
      if (response.status === 404) return { outcome: 'not_received', providerReference: reference };
      if (response.status !== 200)
        throw new ProviderUnknownAnswer(`GET ${path}: undocumented answer (HTTP ${response.status})`, response.status);
      const result = documentedAnswer(transferResult, response.json, `GET ${path}`);
      return { providerReference: reference, ...transferOutcomeOf(result) };
    } catch (error) {
      return { outcome: 'unknown', providerReference: reference, failureMessage: providerFailureCause(error) };
    }
  }

  /** A refusal of the transfer before MoMo made one (400, 403), with its failure code from MoMo's error code. */
  function refusalOf(reference: string, response: ProviderHttpResponse): PayoutSendAnswer {
    const error = momoErrorOf(response);
    const code = reasonCodeOf(error.code);
    const why = [code, error.message].filter(Boolean).join(': ') || `HTTP ${response.status}`;
    return {
      outcome: 'refused',
      providerReference: reference,
      failureCode: code ? transferFailureCodeOf(code) : 'provider_error',
      failureMessage: `MTN MoMo refused the transfer (${why.slice(0, 200)})`,
      ...(code ? { providerReason: code } : {}),
    };
  }

  return {
    code: descriptor.code,

    async sendPayout(request) {
      const reference = momoReferenceId(request.payoutId);
      const refused = (failureMessage: string): PayoutSendAnswer => ({
        outcome: 'refused',
        providerReference: reference,
        failureCode: 'provider_error',
        failureMessage,
      });
      const wallet = request.destination.type === 'mobile_money' ? request.destination.phoneNumber : '';
      const marketProblem = momoMarketProblem(settings.targetEnvironment, request.currency, wallet, 'pays');
      if (marketProblem !== undefined) return refused(marketProblem);
      if (request.destination.type !== 'mobile_money')
        return refused('MTN MoMo pays mobile-money wallets only, not bank accounts');
      if (!/^\+?[1-9][0-9]{5,14}$/.test(request.destination.phoneNumber))
        return { ...refused('MTN MoMo pays a phone number (MSISDN) only'), failureCode: 'account_invalid' };
      try {
        await client.token();
      } catch (error) {
        // No transfer call was made: MoMo cannot have it.
        throw new PayoutRailUnavailable(`MTN MoMo gave no Disbursement token: ${providerFailureCause(error)}`);
      }
      const path = '/disbursement/v1_0/transfer';
      const headers: Record<string, string> = { 'x-reference-id': reference };
      if (request.callbackUrl !== null)
        headers['x-callback-url'] = momoCallbackUrl(request.callbackUrl, reference, deps.callbackSecret);
      let response: ProviderHttpResponse;
      try {
        response = await client.call('POST', path, headers, {
          amount: momoAmount(request.amount, request.currency),
          currency: request.currency,
          externalId: request.payoutId,
          payee: { partyIdType: 'MSISDN', partyId: request.destination.phoneNumber.replace(/^\+/, '') },
          payerMessage: momoText(request.description ?? `Payout ${request.payoutId}`, request.payoutId),
          payeeNote: momoText(`Payout ${request.payoutId}`, request.payoutId),
        });
      } catch (error) {
        if (error instanceof MomoAuthenticationError)
          throw new PayoutRailUnavailable(`MTN MoMo refused our Disbursement token: ${error.message}`);
        return { outcome: 'unknown', providerReference: reference, failureMessage: providerFailureCause(error) };
      }
      if (response.status === 202) return { outcome: 'in_transit', providerReference: reference };
      if (response.status === 409) {
        // Our earlier transfer with this reference exists (a repeated send): its status is the answer.
        const answer = await statusOf(reference);
        if (answer.outcome === 'not_received' || answer.outcome === 'returned')
          return { outcome: 'unknown', providerReference: reference, failureMessage: `MoMo says ${reference} exists` };
        return answer as PayoutSendAnswer;
      }
      if (response.status === 400 || response.status === 403) return refusalOf(reference, response);
      return {
        outcome: 'unknown',
        providerReference: reference,
        failureMessage: `POST ${path}: undocumented answer (HTTP ${response.status})`,
      };
    },

    payoutStatus: statusOf,

    async verifyAccountHolder(msisdn) {
      const digits = msisdn.replace(/^\+/, '');
      if (!/^[1-9][0-9]{5,14}$/.test(digits)) return 'unverified';
      const path = `/disbursement/v1_0/accountholder/msisdn/${digits}/active`;
      try {
        const response = await client.call('GET', path);
        if (response.status !== 200) return 'unknown';
        return documentedAnswer(accountHolderAnswer, response.json, `GET ${path}`).result ? 'verified' : 'unverified';
      } catch {
        return 'unknown';
      }
    },

    balance: () => readMomoBalance(client.call, 'disbursement'),
  };
}
