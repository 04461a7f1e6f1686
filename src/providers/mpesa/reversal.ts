/**
 * M-Pesa refunds by Daraja's Reversal (docs/providers.md#m-pesa): the whole of a collected payment goes back to the
 * customer, with the collection's Daraja app credentials and token (./client.ts) plus an initiator allowed to reverse
 * (the B2C initiator's name and security credential, `MPESA_INITIATOR_NAME`, `MPESA_SECURITY_CREDENTIAL`).
 *
 * Daraja's calls (Safaricom Daraja documentation, developer.safaricom.co.ke: "Reversals", "Transaction Status"; read
 * also as public integrations transcribe them, listed in docs/providers.md#m-pesa):
 * - `POST /mpesa/reversal/v1/request` `{Initiator, SecurityCredential, CommandID: TransactionReversal, TransactionID
 *   (the M-Pesa receipt number of the payment reversed), Amount (whole shillings, the payment's whole amount: a
 *   reversal returns a transaction, never part of it), ReceiverParty (our short code), RecieverIdentifierType: "11"
 *   (Daraja's spelling), ResultURL, QueueTimeOutURL, Remarks (2 to 100 characters), Occasion (optional)}` → 200
 *   `{OriginatorConversationID, ConversationID, ResponseCode: "0", ResponseDescription}` once Daraja took it; errors
 *   `{requestId, errorCode, errorMessage}` (400 `400.002.02` for a field it refuses);
 * - the result is POSTed to the ResultURL: `{Result: {ResultType, ResultCode, ResultDesc, OriginatorConversationID,
 *   ConversationID, TransactionID, ResultParameters?, ReferenceData?}}`; ResultCode 0 is a reversal made, `R000001`
 *   "the transaction has already been reversed", `R000002` "the OriginalTransactionID is invalid", others a refusal
 *   with its description (1: the organisation's balance is insufficient, 2001: the initiator information is
 *   invalid, …); a request that waited too long in Daraja's queue is reported to the QueueTimeOutURL, which says
 *   nothing of whether M-Pesa carried it out;
 * - `POST /mpesa/transactionstatus/v1/query` `{Initiator, SecurityCredential, CommandID: TransactionStatusQuery,
 *   OriginalConversationID (the reversal request's OriginatorConversationID), PartyA, IdentifierType: "4", ResultURL,
 *   QueueTimeOutURL, Remarks, Occasion}` → 200 acknowledgement; its result (`TransactionStatus` Completed, Failed …)
 *   comes to its own ResultURL.
 *
 * Decisions:
 * - one reversal per refund, ever: the Reversal takes no idempotency key, so the refund's request is claimed in the
 *   shared request log before it is sent, as every M-Pesa request is (docs/providers.md#m-pesa); a reversal
 *   whose answer was lost is not sent again, and its result callback decides it;
 * - every ResultURL is the refund's own (`…/v1/provider-callbacks/mpesa?refund=<ref_…>&token=<hex HMAC-SHA256 of
 *   "mpesa-refund:" + refund id>&result=<reversal|status|timeout>`), since Daraja signs nothing; the first definite
 *   result is kept in the request log under the refund's result key, and the refund's status call reads it back;
 * - a refund whose result callback was lost is asked with Transaction Status (by the OriginatorConversationID of the
 *   reversal's acknowledgement); its result comes by callback and is kept the same way;
 * - "already reversed" (`R000001`) counts as reversed: the payment's money is back with the customer (only one refund
 *   of a whole-only payment can be in flight, so it was this one, or an operator's by hand);
 * - what cannot be sent is a definite `failed`, nothing sent: a payment whose receipt number is not known (its
 *   success callback never came: the query does not give it), no callback URL, a partial amount.
 */
import { CURRENCY_EXPONENTS } from '../../domain/money';
import { z } from '../../lib/zod';
import { providerFailureCause, ProviderUnknownAnswer, type FetchLike, type ProviderHttpResponse } from '../http';
import {
  callbackJson,
  callbackOfShape,
  ProviderRefusal,
  type LoggedCallbackParser,
  type ProviderRequestLog,
  type RefundAnswer,
  type RefundRequest,
} from '../provider';
import { TRANSACTION_STATUS_PATH } from './b2c';
import { darajaText } from './fields';
import { callbackTokenMatches, callbackTokenOf } from './callback';
import { createDarajaClient, darajaErrorOf } from './client';
import { descriptor } from './descriptor';
import { b2cAcknowledgement, darajaResult, resultParameter, type DarajaResult } from './payout-statuses';
import { mpesaReceiptOf } from './receipt';
import type { MpesaSettings } from './settings';
import { authenticatedSubject, callbackUrlWithQuery, type CallbackSubject } from '../callback-url';

/** Daraja's Reversal path. */
export const REVERSAL_PATH = '/mpesa/reversal/v1/request';

/** Longest `Remarks` and `Occasion` Daraja takes, in characters. */
const REMARKS_MAX = 100;

/** Minor units in one shilling. */
const SHILLING = 10 ** CURRENCY_EXPONENTS.KES;

/** A refund id as the callback URL carries it. */
const REFUND_ID = /^ref_[A-Za-z0-9]{24}$/;

/** The kinds of result a refund's callback URL receives. */
export type ReversalCallbackKind = 'reversal' | 'status' | 'timeout';

/** The request log's key claimed before a refund's one reversal is sent; its reference: OriginatorConversationID. */
export const reversalKeyOf = (refundId: string): string => `reversal:${refundId}`;
/** The request log key holding a refund's definite result (a {@link ReversalVerdict} as JSON). */
export const reversalResultKeyOf = (refundId: string): string => `reversal-result:${refundId}`;

/** A refund's definite result, as kept in the request log. */
const reversalVerdict = z.union([
  z.object({ status: z.literal('succeeded'), refundReference: z.string().min(1) }),
  z.object({ status: z.literal('failed'), failureMessage: z.string().min(1) }),
]);

/** A definite result of a reversal. */
export type ReversalVerdict = z.infer<typeof reversalVerdict>;

/** Reversal ResultCodes that decide nothing: the reversal may exist; Transaction Status tells. */
const UNDECIDED = new Set(['15', '17']);

/** The callback token of the refund `refundId`: hex HMAC-SHA256 of `mpesa-refund:` + refundId, keyed with `secret`. */
export function mpesaRefundCallbackToken(refundId: string, secret: string): string {
  return callbackTokenOf(`mpesa-refund:${refundId}`, secret);
}

/** `callbackUrl` (`…/v1/provider-callbacks/mpesa`) with the refund's `refund`, `token` and `result` (`kind`) added. */
export function mpesaRefundCallbackUrl(
  callbackUrl: string,
  refundId: string,
  kind: ReversalCallbackKind,
  secret: string,
): string {
  return callbackUrlWithQuery(callbackUrl, {
    refund: refundId,
    token: mpesaRefundCallbackToken(refundId, secret),
    result: kind,
  });
}

/** How a refund's callback URL names it and proves it: its token, compared in constant time. */
const REFUND_SUBJECT: CallbackSubject = {
  param: 'refund',
  verify: (refundId, token, secret) =>
    !!token && REFUND_ID.test(refundId) && callbackTokenMatches(`mpesa-refund:${refundId}`, token, secret),
  what: 'the M-Pesa refund callback',
};

/** The refund id of a refund's idempotency key (`refund:ref_…`). */
export const refundIdOf = (request: Pick<RefundRequest, 'idempotencyKey'>): string =>
  request.idempotencyKey.replace(/^refund:/, '');

/** A reversal's result as a verdict, or undefined when it decides nothing (see the module's comment). */
export function reversalVerdictOf(result: DarajaResult): ReversalVerdict | undefined {
  const code = result.ResultCode;
  if (code === '0' || code === 'R000001')
    return { status: 'succeeded', refundReference: result.TransactionID || 'reversed' };
  if (UNDECIDED.has(code)) return undefined;
  const why = result.ResultDesc?.trim() ? result.ResultDesc.trim().slice(0, 200) : 'no reason given';
  return { status: 'failed', failureMessage: `M-Pesa refused the reversal: ${why} (ResultCode ${code.slice(0, 20)})` };
}

/**
 * A Transaction Status result about a reversal as a verdict: `Completed` is reversed; `Failed`, `Declined`,
 * `Cancelled`, `Expired` refused; anything else, and a query that failed, decides nothing.
 */
export function reversalStatusVerdictOf(result: DarajaResult): ReversalVerdict | undefined {
  if (result.ResultCode !== '0') return undefined;
  const status = resultParameter(result, 'TransactionStatus')?.trim().toLowerCase();
  if (status === 'completed')
    return {
      status: 'succeeded',
      refundReference: resultParameter(result, 'ReceiptNo') ?? result.TransactionID ?? 'reversed',
    };
  if (status === 'failed' || status === 'declined' || status === 'cancelled' || status === 'expired') {
    const reason = resultParameter(result, 'ReasonType') ?? resultParameter(result, 'TransactionReason');
    return {
      status: 'failed',
      failureMessage: `M-Pesa: the reversal ${status}${reason ? ` (${reason.slice(0, 200)})` : ''}`,
    };
  }
  return undefined;
}

/** The refund's kept result, if a callback brought one. */
async function verdictOf(requestLog: ProviderRequestLog, refundId: string): Promise<ReversalVerdict | undefined> {
  const entry = await requestLog.find(descriptor.code, reversalResultKeyOf(refundId));
  if (!entry?.reference) return undefined;
  const parsed = reversalVerdict.safeParse(JSON.parse(entry.reference));
  return parsed.success ? parsed.data : undefined;
}

/** Keeps `verdict` as the refund's result unless one is kept. @returns true when this call kept it */
async function keepVerdict(requestLog: ProviderRequestLog, refundId: string, verdict: ReversalVerdict) {
  const key = reversalResultKeyOf(refundId);
  if (!(await requestLog.claim(descriptor.code, key))) return false;
  await requestLog.recordReference(descriptor.code, key, JSON.stringify(verdict));
  return true;
}

/**
 * Authenticates a refund's result callback by its `refund` and `token` query parameters, parses its body and keeps a
 * definite result for the refund (see the module's comment).
 * @returns `{providerReference: refund id, claimed: 'pending', refundId, recorded}`, `recorded` true when this callback
 *   decided the refund
 * @throws ProviderRefusal when the token is missing or wrong, no reversal was sent for the refund, the body is not
 *   Daraja's result, or a reversal result names another OriginatorConversationID than the reversal's
 */
export const parseMpesaReversalCallback: LoggedCallbackParser = async (request, secret, requestLog) => {
  const refundId = authenticatedSubject(request, REFUND_SUBJECT, secret);
  const sent = await requestLog.find(descriptor.code, reversalKeyOf(refundId));
  if (sent === undefined) throw new ProviderRefusal('no M-Pesa reversal was sent for this refund');
  const answer = { providerReference: refundId, claimed: 'pending' as const, refundId, recorded: false };
  const json = callbackJson(request, 'the M-Pesa refund callback');
  // A queue time-out says nothing of whether M-Pesa reversed: Transaction Status asks.
  if (request.query.result === 'timeout') return answer;
  const result = callbackOfShape(json, darajaResult, 'the M-Pesa refund callback body is not a Daraja result').Result;
  let verdict: ReversalVerdict | undefined;
  if (request.query.result === 'status') verdict = reversalStatusVerdictOf(result);
  else {
    const acknowledged = sent.reference;
    if (acknowledged && result.OriginatorConversationID && result.OriginatorConversationID !== acknowledged)
      throw new ProviderRefusal('the M-Pesa reversal result names another OriginatorConversationID than the reversal');
    verdict = reversalVerdictOf(result);
  }
  if (!verdict) return answer;
  return { ...answer, recorded: await keepVerdict(requestLog, refundId, verdict) };
};

/** What the reversals need besides the settings. */
export interface MpesaReversalDeps {
  callbackSecret: string;
  requestLog: ProviderRequestLog;
  fetch?: FetchLike;
  now?: () => Date;
}

/**
 * The M-Pesa refunds of `settings` (see the module's comment): the adapter's `refund` and `fetchRefund`, or undefined
 * when no initiator is configured (M-Pesa then refunds nothing).
 */
export function createMpesaReversals(
  settings: MpesaSettings,
  deps: MpesaReversalDeps,
):
  | {
      refund(request: RefundRequest): Promise<RefundAnswer>;
      fetchRefund(request: RefundRequest): Promise<RefundAnswer | { status: 'not_received' }>;
    }
  | undefined {
  const { initiatorName, securityCredential } = settings;
  if (!initiatorName || !securityCredential) return undefined;
  const { requestLog, callbackSecret } = deps;
  const client = createDarajaClient(settings, deps.fetch ?? fetch, deps.now ?? (() => new Date()));
  const organisation = settings.partyB ?? settings.shortcode;

  /** Asks Transaction Status about the reversal acknowledged as `originatorConversationId`; its result comes later. */
  async function askStatus(refundId: string, originatorConversationId: string, callbackUrl: string): Promise<void> {
    const urlOf = (kind: ReversalCallbackKind) => mpesaRefundCallbackUrl(callbackUrl, refundId, kind, callbackSecret);
    // The answer is only an acknowledgement: whatever it is, the refund stays pending and is asked about again.
    await client
      .call(TRANSACTION_STATUS_PATH, {
        Initiator: initiatorName,
        SecurityCredential: securityCredential,
        CommandID: 'TransactionStatusQuery',
        OriginalConversationID: originatorConversationId,
        PartyA: organisation,
        IdentifierType: '4',
        ResultURL: urlOf('status'),
        QueueTimeOutURL: urlOf('timeout'),
        Remarks: 'Refund status',
        Occasion: refundId,
      })
      .catch(() => undefined);
  }

  /** What the reversal's acknowledgement says: pending once taken, failed when refused before anything was sent. */
  async function answerOf(refundId: string, response: ProviderHttpResponse): Promise<RefundAnswer> {
    if (response.status === 200) {
      const ack = b2cAcknowledgement.safeParse(response.json);
      if (!ack.success || ack.data.ResponseCode !== '0')
        throw new ProviderUnknownAnswer(`POST ${REVERSAL_PATH}: undocumented answer (HTTP 200)`, 200);
      if (ack.data.OriginatorConversationID)
        await requestLog
          .recordReference(descriptor.code, reversalKeyOf(refundId), ack.data.OriginatorConversationID)
          .catch(() => undefined);
      return (await verdictOf(requestLog, refundId)) ?? { status: 'pending' };
    }
    const error = darajaErrorOf(response);
    if (response.status === 400 && error.errorCode !== undefined) {
      const why = [error.errorCode, error.errorMessage].filter(Boolean).join(': ').slice(0, 200);
      const refused: ReversalVerdict = { status: 'failed', failureMessage: `M-Pesa refused the reversal (${why})` };
      await keepVerdict(requestLog, refundId, refused);
      return refused;
    }
    throw new ProviderUnknownAnswer(
      `POST ${REVERSAL_PATH}: undocumented answer (HTTP ${response.status})`,
      response.status,
    );
  }

  return {
    async refund(request: RefundRequest): Promise<RefundAnswer> {
      const refundId = refundIdOf(request);
      const failed = (failureMessage: string): RefundAnswer => ({ status: 'failed', failureMessage });
      if (request.currency !== 'KES') return failed(`M-Pesa refunds KES, not ${request.currency}`);
      if (request.amount !== request.paymentAmount)
        throw new ProviderRefusal('M-Pesa reverses the whole payment only: refund the full amount or nothing');
      const kept = await verdictOf(requestLog, refundId);
      if (kept) return kept;
      const receipt = request.receiptNumber ?? (await mpesaReceiptOf(requestLog, request.providerReference));
      if (!receipt)
        return failed(
          "the payment's M-Pesa receipt number is not known (its result callback never came), so it cannot be reversed through the API: reverse it on the M-Pesa org portal",
        );
      if (!request.callbackUrl)
        return failed('M-Pesa answers a reversal only by callback: PROVIDER_CALLBACK_BASE_URL is not set');
      await client.token(); // before the claim: a refused or lost token request is retried and may still send
      // Claimed before anything is sent: a refund's reversal is never sent twice (see the module's comment).
      if (!(await requestLog.claim(descriptor.code, reversalKeyOf(refundId)))) return { status: 'pending' };
      const urlOf = (kind: ReversalCallbackKind) =>
        mpesaRefundCallbackUrl(request.callbackUrl as string, refundId, kind, callbackSecret);
      let response: ProviderHttpResponse;
      try {
        response = await client.call(REVERSAL_PATH, {
          Initiator: initiatorName,
          SecurityCredential: securityCredential,
          CommandID: 'TransactionReversal',
          TransactionID: receipt,
          Amount: request.amount / SHILLING,
          ReceiverParty: organisation,
          RecieverIdentifierType: '11',
          ResultURL: urlOf('reversal'),
          QueueTimeOutURL: urlOf('timeout'),
          Remarks: darajaText(`Refund ${refundId}`, REMARKS_MAX, 'Refund'),
          Occasion: darajaText(request.providerReference, REMARKS_MAX, 'Refund'),
        });
      } catch (error) {
        // Sent or not, we cannot tell: its result callback settles it; never sent again.
        throw new ProviderUnknownAnswer(`POST ${REVERSAL_PATH}: ${providerFailureCause(error)}`);
      }
      return answerOf(refundId, response);
    },

    async fetchRefund(request: RefundRequest): Promise<RefundAnswer | { status: 'not_received' }> {
      const refundId = refundIdOf(request);
      const kept = await verdictOf(requestLog, refundId);
      if (kept) return kept;
      const sent = await requestLog.find(descriptor.code, reversalKeyOf(refundId));
      if (!sent) return { status: 'not_received' };
      // Acknowledged and no result came: Transaction Status asks, and its result callback decides.
      if (sent.reference !== null && request.callbackUrl)
        await askStatus(refundId, sent.reference, request.callbackUrl);
      return { status: 'pending' };
    },
  };
}
