/**
 * The live `mpesa` payout rail: Safaricom M-Pesa's B2C payment request (docs/payouts.md#m-pesa-b2c), over HTTP with the
 * collection's Daraja app credentials and token (./client.ts) plus the B2C initiator's name and security credential.
 *
 * Daraja's calls (Safaricom Daraja documentation, developer.safaricom.co.ke: "Business To Customer (B2C)", "Transaction
 * Status"; shapes and result codes in ./payout-statuses.ts):
 * - `POST /mpesa/b2c/v3/paymentrequest` `{OriginatorConversationID, InitiatorName, SecurityCredential, CommandID:
 *   BusinessPayment, Amount (whole shillings), PartyA (our B2C short code), PartyB (254…), Remarks (at most 100
 *   characters), QueueTimeOutURL, ResultURL, Occassion}` (Safaricom's B2C page spells it so) → 200 `{ConversationID,
 *   OriginatorConversationID, ResponseCode: "0", ResponseDescription}` once accepted; the result comes later, to the
 *   ResultURL;
 * - `POST /mpesa/transactionstatus/v1/query` `{Initiator, SecurityCredential, CommandID: TransactionStatusQuery,
 *   TransactionID (the receipt number) or OriginalConversationID (the B2C request's OriginatorConversationID), PartyA,
 *   IdentifierType: "4" (organisation short code), ResultURL, QueueTimeOutURL, Remarks, Occasion}` → 200
 *   acknowledgement; its result comes to its own ResultURL. The field names are the Transaction Status page's own
 *   (`OriginalConversationID`, one-s `Occasion`), not the B2C page's.
 *
 * Decisions:
 * - the OriginatorConversationID is the payout id, and so is the provider reference: known before anything is sent,
 *   it names the payout in every callback and query;
 * - one B2C request per payout, ever: Daraja documents no duplicate check on the OriginatorConversationID, so the send
 *   is claimed in the shared request log first, and a payout whose send was claimed is never sent again by any
 *   retry in any process. The token and every check come before the claim, so what fails before it is retried safely;
 * - the result is kept by the callback (./payout-callback.ts) and read here. Without one, the status call asks
 *   Daraja's Transaction Status query, whose result comes back by callback too: an unknown answer is settled by the
 *   query, never by a second payment;
 * - amounts are whole shillings: an amount with cents is refused (`amount_invalid`) before anything is sent;
 * - no callback URL (PROVIDER_CALLBACK_BASE_URL unset) means no result could ever arrive: there is no rail then.
 */
import { CURRENCY_EXPONENTS } from '../../domain/money';
import type { FetchLike, ProviderHttpResponse } from '../http';
import { providerFailureCause } from '../http';
import { PayoutRailUnavailable, type PayoutRail, type PayoutSendAnswer } from '../payout-rail';
import type { PayoutRailDeps } from '../provider';
import { darajaText } from './fields';
import { createDarajaClient, darajaErrorOf } from './client';
import { descriptor } from './descriptor';
import { mpesaPayoutCallbackUrl, resultKeyOf, sendKeyOf, type PayoutCallbackKind } from './payout-callback';
import { b2cAcknowledgement, storedVerdict, type B2cVerdict } from './payout-statuses';
import type { MpesaSettings } from './settings';

/** Daraja's B2C payment request and Transaction Status query paths. */
export const B2C_PATH = '/mpesa/b2c/v3/paymentrequest';
export const TRANSACTION_STATUS_PATH = '/mpesa/transactionstatus/v1/query';

/** Longest `Remarks` and `Occassion`/`Occasion` Daraja takes, in characters. */
const REMARKS_MAX = 100;

/** A payout id as this rail's provider reference. */
const PAYOUT_ID = /^po_[A-Za-z0-9]{24}$/;

/** Minor units in one shilling. */
const SHILLING = 10 ** CURRENCY_EXPONENTS.KES;

/**
 * The M-Pesa B2C rail for `settings`, or undefined when its initiator is not configured or no callback URL is (M-Pesa
 * then only collects).
 * @param deps the callback secret (per-payout callback tokens), the shared request log, the provider's callback
 *   URL, the HTTP client (default: global fetch) and the token cache's clock
 */
export function createMpesaPayoutRail(
  settings: MpesaSettings,
  deps: PayoutRailDeps & { fetch?: FetchLike; now?: () => Date },
): PayoutRail | undefined {
  const { initiatorName, securityCredential } = settings;
  const { callbackUrl, requestLog, callbackSecret } = deps;
  if (!initiatorName || !securityCredential || callbackUrl === null) return undefined;
  const client = createDarajaClient(settings, deps.fetch ?? fetch, deps.now ?? (() => new Date()));
  const partyA = settings.b2cShortcode ?? settings.shortcode;
  const urlOf = (payoutId: string, kind: PayoutCallbackKind) =>
    mpesaPayoutCallbackUrl(callbackUrl, payoutId, kind, callbackSecret);

  /** The payout's kept result, if a callback brought one. */
  async function verdictOf(payoutId: string): Promise<B2cVerdict | undefined> {
    const entry = await requestLog.find(descriptor.code, resultKeyOf(payoutId));
    if (!entry?.reference) return undefined;
    const parsed = storedVerdict.safeParse(JSON.parse(entry.reference));
    return parsed.success ? parsed.data : undefined;
  }

  /** A kept result as the rail's answer. */
  function answerOf(payoutId: string, verdict: B2cVerdict): PayoutSendAnswer {
    if (verdict.outcome === 'paid') return { outcome: 'paid', providerReference: payoutId };
    return { providerReference: payoutId, ...verdict };
  }

  /** Asks Daraja's Transaction Status about the payout; its result comes by callback. @returns why it failed, if so */
  async function askTransactionStatus(payoutId: string): Promise<string | undefined> {
    try {
      const response = await client.call(TRANSACTION_STATUS_PATH, {
        Initiator: initiatorName,
        SecurityCredential: securityCredential,
        CommandID: 'TransactionStatusQuery',
        OriginalConversationID: payoutId,
        PartyA: partyA,
        IdentifierType: '4',
        ResultURL: urlOf(payoutId, 'status'),
        QueueTimeOutURL: urlOf(payoutId, 'timeout'),
        Remarks: 'Payout status',
        Occasion: payoutId,
      });
      const answer = b2cAcknowledgement.safeParse(response.json);
      if (response.status === 200 && answer.success && answer.data.ResponseCode === '0') return undefined;
      const error = darajaErrorOf(response);
      return `the Transaction Status query was not accepted (HTTP ${response.status}${error.errorCode ? `, ${error.errorCode}` : ''})`;
    } catch (error) {
      return `the Transaction Status query failed: ${providerFailureCause(error)}`;
    }
  }

  /** What a B2C request's answer says (see the module's comment). */
  async function sendAnswerOf(payoutId: string, response: ProviderHttpResponse): Promise<PayoutSendAnswer> {
    const unknown = (why: string): PayoutSendAnswer => ({
      outcome: 'unknown',
      providerReference: payoutId,
      failureMessage: `POST ${B2C_PATH}: ${why} (HTTP ${response.status})`,
    });
    if (response.status === 200) {
      const answer = b2cAcknowledgement.safeParse(response.json);
      if (!answer.success) return unknown('undocumented answer');
      if (answer.data.ResponseCode !== '0') return unknown(`ResponseCode ${answer.data.ResponseCode}`);
      // Kept for the record; should this write fail, the result callback records it.
      await requestLog
        .recordReference(descriptor.code, sendKeyOf(payoutId), answer.data.ConversationID)
        .catch(() => undefined);
      const verdict = await verdictOf(payoutId); // the result may have come before the answer
      return verdict ? answerOf(payoutId, verdict) : { outcome: 'in_transit', providerReference: payoutId };
    }
    const error = darajaErrorOf(response);
    if (response.status === 400 && error.errorCode !== undefined) {
      // Daraja refused the request before accepting it: nothing was or will be paid.
      const why = [error.errorCode, error.errorMessage].filter(Boolean).join(': ').slice(0, 200);
      return {
        outcome: 'refused',
        providerReference: payoutId,
        failureCode: /PartyB/i.test(error.errorMessage ?? '')
          ? 'account_invalid'
          : /Amount/i.test(error.errorMessage ?? '')
            ? 'amount_invalid'
            : 'provider_error',
        failureMessage: `M-Pesa refused the B2C payment (${why})`,
      };
    }
    return unknown(error.errorCode ? `answered ${error.errorCode.slice(0, 40)}` : 'undocumented answer');
  }

  return {
    code: descriptor.code,

    async sendPayout(request) {
      const { payoutId } = request;
      const refused = (failureCode: PayoutSendAnswer['failureCode'], failureMessage: string): PayoutSendAnswer => ({
        outcome: 'refused',
        providerReference: payoutId,
        failureCode,
        failureMessage,
      });
      if (request.currency !== 'KES') return refused('provider_error', `M-Pesa pays KES, not ${request.currency}`);
      if (request.destination.type !== 'mobile_money')
        return refused('provider_error', 'M-Pesa pays M-Pesa wallets only, not bank accounts');
      const msisdn = request.destination.phoneNumber.replace(/^\+/, '');
      if (!/^254[0-9]{9}$/.test(msisdn))
        return refused('account_invalid', 'M-Pesa pays a Kenyan phone number (254…) only');
      if (request.amount <= 0 || request.amount % SHILLING !== 0)
        return refused(
          'amount_invalid',
          `M-Pesa pays whole shillings only: ${request.amount} minor units of KES is not a multiple of ${SHILLING}`,
        );
      const kept = await verdictOf(payoutId);
      if (kept) return answerOf(payoutId, kept);
      try {
        await client.token();
      } catch (error) {
        // Nothing was sent: Daraja cannot have the payment.
        throw new PayoutRailUnavailable(`M-Pesa gave no access token: ${providerFailureCause(error)}`);
      }
      // Claimed before anything is sent: a payout whose B2C request was claimed is never sent again (see above).
      if (!(await requestLog.claim(descriptor.code, sendKeyOf(payoutId))))
        return {
          outcome: 'unknown',
          providerReference: payoutId,
          failureMessage: 'the B2C payment was sent before; M-Pesa is asked about it, never paid twice',
        };
      let response: ProviderHttpResponse;
      try {
        response = await client.call(B2C_PATH, {
          OriginatorConversationID: payoutId,
          InitiatorName: initiatorName,
          SecurityCredential: securityCredential,
          CommandID: 'BusinessPayment',
          Amount: request.amount / SHILLING,
          PartyA: partyA,
          PartyB: msisdn,
          Remarks: darajaText(request.description ?? `Payout ${payoutId}`, REMARKS_MAX, 'Payout'),
          QueueTimeOutURL: urlOf(payoutId, 'timeout'),
          ResultURL: urlOf(payoutId, 'b2c'),
          Occassion: darajaText(payoutId, REMARKS_MAX, 'Payout'),
        });
      } catch (error) {
        // Sent or not, we cannot tell: the Transaction Status query settles it; never sent again.
        return { outcome: 'unknown', providerReference: payoutId, failureMessage: providerFailureCause(error) };
      }
      return sendAnswerOf(payoutId, response);
    },

    async payoutStatus(providerReference) {
      if (!PAYOUT_ID.test(providerReference)) return { outcome: 'not_received', providerReference };
      const kept = await verdictOf(providerReference);
      if (kept) return answerOf(providerReference, kept);
      const sent = await requestLog.find(descriptor.code, sendKeyOf(providerReference));
      if (!sent) return { outcome: 'not_received', providerReference };
      const failed = await askTransactionStatus(providerReference);
      return {
        outcome: sent.reference === null ? 'unknown' : 'in_transit',
        providerReference,
        failureMessage: failed ?? 'no result from M-Pesa yet; its Transaction Status was asked',
      };
    },
  };
}
