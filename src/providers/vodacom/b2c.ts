/**
 * Vodacom M-Pesa Tanzania's payout rail (docs/payouts.md#vodacom-m-pesa-b2c): the M-Pesa OpenAPI's B2C payment,
 * `POST …/b2cPayment/` `{input_Amount, input_Country: "TZN", input_Currency: "TZS", input_CustomerMSISDN,
 * input_ServiceProviderCode, input_ThirdPartyConversationID, input_TransactionReference, input_PaymentItemsDesc}` →
 * 200 or 201 `{output_ResponseCode: "INS-0", output_TransactionID, output_ConversationID,
 * output_ThirdPartyConversationID}`, or an error status with the refusal's `INS-…` code.
 *
 * Decisions:
 * - The payout's ThirdPartyConversationID derives from the payout id alone (`P` and its 24 characters), so a send
 *   repeated for one payout names the same transfer and the OpenAPI's own duplicate check (409 `INS-10`) answers: it
 *   is read as `unknown`, and the payout is asked about, never paid twice.
 * - A definite answer is kept in the request log, so asking again is answered from it; otherwise the status query
 *   asks by the ThirdPartyConversationID: `Completed` is paid, `Failed` and `Cancelled` refused, a reference the
 *   OpenAPI does not know is `not_received` (sending again is guarded by the duplicate check), anything else unknown.
 * - A refused API key, or a session that cannot be opened, means nothing was sent: {@link PayoutRailUnavailable}.
 * - The rail exists only when `b2cServiceProviderCode` is set (the B2C short code money is paid from).
 */
import type { PayoutFailureCode } from '../../domain/payout-rail';
import { CURRENCY_EXPONENTS } from '../../domain/money';
import type { FetchLike, ProviderHttpResponse } from '../http';
import {
  PayoutRailUnavailable,
  type PayoutAnswer,
  type PayoutRail,
  type PayoutRequest,
  type PayoutSendAnswer,
} from '../payout-rail';
import { plainText } from '../plain-text';
import type { ProviderRequestLog } from '../provider';
import { createOpenApiClient, VodacomAuthenticationError } from './client';
import { descriptor } from './descriptor';
import type { VodacomSettings } from './settings';
import { SUCCESS } from './statuses';
import { decisionOf, queryTransaction, transferFields } from './transactions';

/** The B2C payment's path, after the market's base URL. */
export const B2C_PATH = '/b2cPayment/';

/** The B2C refusals by `output_ResponseCode`, with their failure code and a readable text; any other is `declined`. */
export const B2C_REFUSALS: Readonly<Record<string, { failureCode: PayoutFailureCode; text: string }>> = {
  'INS-2006': { failureCode: 'platform_funds', text: "the business's M-Pesa balance is insufficient" },
  'INS-2051': { failureCode: 'account_invalid', text: 'the number is not a valid M-Pesa customer' },
  'INS-2002': { failureCode: 'account_invalid', text: 'the receiver is not valid' },
  'INS-996': { failureCode: 'account_restricted', text: "the recipient's M-Pesa account is not active" },
  'INS-995': { failureCode: 'account_restricted', text: "the recipient's M-Pesa profile has problems" },
  'INS-15': { failureCode: 'amount_invalid', text: 'the amount is not valid' },
  'INS-13': { failureCode: 'provider_error', text: 'the B2C service provider code is not valid' },
  'INS-6': { failureCode: 'provider_error', text: 'the transaction failed' },
  'INS-16': { failureCode: 'provider_error', text: 'M-Pesa is overloaded and could not take the request' },
};

/** The ThirdPartyConversationID of a payout: `P` and the payout id's characters after `po_`. */
export function payoutConversationIdOf(payoutId: string): string {
  return `P${payoutId.replace(/[^A-Za-z0-9]/g, '').replace(/^po/, '')}`;
}

/** The request log key of a payout's kept answer. */
const keyOf = (payoutId: string) => `payout:${payoutId}`;

/** Minor units in one shilling. */
const SHILLING = 10 ** CURRENCY_EXPONENTS.TZS;

/**
 * The B2C payout rail of `settings`, or undefined when `settings.b2cServiceProviderCode` is not set.
 * @param deps the request log (kept answers), the HTTP client, the session cache's clock
 */
export function createVodacomPayoutRail(
  settings: VodacomSettings,
  deps: { requestLog: ProviderRequestLog; fetch?: FetchLike; now?: () => Date },
): PayoutRail | undefined {
  const shortcode = settings.b2cServiceProviderCode;
  if (!shortcode) return undefined;
  const client = createOpenApiClient(settings, deps.fetch ?? fetch, deps.now ?? (() => new Date()));
  const { requestLog } = deps;

  /** The rail's answer for a definite code: paid, or refused with its failure code and the OpenAPI's code. */
  function answerOf(payoutId: string, code: string): PayoutSendAnswer {
    if (code === SUCCESS) return { outcome: 'paid', providerReference: payoutId };
    const known = B2C_REFUSALS[code];
    return {
      outcome: 'refused',
      providerReference: payoutId,
      failureCode: known?.failureCode ?? 'declined',
      failureMessage: `Vodacom M-Pesa: ${known?.text ?? 'the payment was refused'} (${code})`,
      providerReason: code,
    };
  }

  /** Keeps a definite answer for `payoutId` (first one stays); a failed write leaves the query to answer. */
  async function keep(payoutId: string, code: string): Promise<void> {
    await requestLog.claim(descriptor.code, keyOf(payoutId)).catch(() => false);
    await requestLog.recordReference(descriptor.code, keyOf(payoutId), code).catch(() => undefined);
  }

  const refusedBeforeSending = (payoutId: string, failureCode: PayoutFailureCode, why: string): PayoutSendAnswer => ({
    outcome: 'refused',
    providerReference: payoutId,
    failureCode,
    failureMessage: `Vodacom M-Pesa: ${why}`,
  });

  return {
    code: descriptor.code,

    async sendPayout(request: PayoutRequest): Promise<PayoutSendAnswer> {
      const { payoutId } = request;
      const kept = (await requestLog.find(descriptor.code, keyOf(payoutId)))?.reference;
      if (kept) return answerOf(payoutId, kept);
      if (request.currency !== 'TZS') return refusedBeforeSending(payoutId, 'provider_error', 'pays out TZS only');
      if (request.amount % SHILLING !== 0)
        return refusedBeforeSending(payoutId, 'amount_invalid', 'pays whole shillings only');
      const msisdn =
        request.destination.type === 'mobile_money' ? request.destination.phoneNumber.replace(/^\+/, '') : '';
      if (!/^255[0-9]{9}$/.test(msisdn))
        return refusedBeforeSending(payoutId, 'account_invalid', 'pays Tanzanian M-Pesa numbers (255…) only');
      try {
        await client.session();
      } catch (error) {
        // Nothing was sent: the payout waits and is sent later.
        throw new PayoutRailUnavailable(error instanceof Error ? error.message : String(error));
      }
      let response: ProviderHttpResponse;
      try {
        response = await client.call('POST', B2C_PATH, {
          body: {
            ...transferFields(request.amount, msisdn, shortcode, payoutConversationIdOf(payoutId)),
            input_PaymentItemsDesc: plainText(request.description ?? '', 50, 'Payout'),
          },
        });
      } catch (error) {
        const why = error instanceof VodacomAuthenticationError ? 'the session was refused twice' : 'no usable answer';
        return { outcome: 'unknown', providerReference: payoutId, failureMessage: `POST ${B2C_PATH}: ${why}` };
      }
      const decision = decisionOf(response);
      if (!decision)
        return {
          outcome: 'unknown',
          providerReference: payoutId,
          failureMessage: `POST ${B2C_PATH}: undocumented or undecided answer (HTTP ${response.status})`,
        };
      await keep(payoutId, decision.code);
      return answerOf(payoutId, decision.code);
    },

    async payoutStatus(providerReference: string): Promise<PayoutAnswer> {
      const kept = (await requestLog.find(descriptor.code, keyOf(providerReference)))?.reference;
      if (kept) return answerOf(providerReference, kept);
      let found: { status: string } | undefined;
      try {
        found = await queryTransaction(client, shortcode, payoutConversationIdOf(providerReference));
      } catch {
        return { outcome: 'unknown', providerReference, failureMessage: `the status query gave no usable answer` };
      }
      if (!found) return { outcome: 'not_received', providerReference };
      const status = found.status.trim().toLowerCase();
      if (status === 'completed') return { outcome: 'paid', providerReference };
      if (status === 'failed' || status === 'cancelled')
        return {
          outcome: 'refused',
          providerReference,
          failureCode: status === 'failed' ? 'provider_error' : 'declined',
          failureMessage: `Vodacom M-Pesa: the payment is ${status}`,
        };
      return { outcome: 'unknown', providerReference };
    },
  };
}
