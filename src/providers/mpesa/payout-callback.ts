/**
 * M-Pesa B2C result callbacks (docs/payouts.md#m-pesa-b2c). Daraja posts a B2C payment's result to its `ResultURL`, a
 * request that timed out in its queue to its `QueueTimeOutURL`, and a Transaction Status query's result to that
 * query's own `ResultURL`; it signs none of them. So every such URL is the payout's own: the service's
 * `…/v1/provider-callbacks/mpesa` with `?payout=<po_…>&token=<hex HMAC-SHA256 of "mpesa-payout:" + payout id, keyed
 * with the callback secret>&result=<b2c|status|timeout>`. The token is checked before anything else.
 *
 * Reading a callback ({@link readMpesaPayoutCallback}) gives its facts and writes nothing. The adapter then keeps a
 * definite result (paid, or refused with its reason) in the shared request log under the payout's result key
 * ({@link keepMpesaPayoutCallback}), first one wins: a repeated or late callback, or a status result after the B2C
 * result, changes nothing. The payout's run reads it with the rail's status call (./b2c.ts) and decides.
 */
import {
  callbackJson,
  callbackOfShape,
  ProviderRefusal,
  type CallbackRequest,
  type ParsedCallback,
  type ProviderRequestLog,
} from '../provider';
import { callbackTokenMatches, callbackTokenOf } from './callback';
import { descriptor } from './descriptor';
import { b2cVerdictOf, darajaResult, statusVerdictOf, type B2cVerdict } from './payout-statuses';
import { authenticatedSubject, callbackUrlWithQuery, type CallbackSubject } from '../callback-url';

/** A payout id as the callback URL carries it. */
const PAYOUT_ID = /^po_[A-Za-z0-9]{24}$/;

/** The kinds of result a payout's callback URL receives. */
export type PayoutCallbackKind = 'b2c' | 'status' | 'timeout';

/** The request log key claimed before a payout's one B2C request is sent; its reference is Daraja's ConversationID. */
export const sendKeyOf = (payoutId: string): string => `payout:${payoutId}`;
/** The request log key holding a payout's definite result (a {@link B2cVerdict} as JSON). */
export const resultKeyOf = (payoutId: string): string => `payout-result:${payoutId}`;

/** The callback token of the payout `payoutId`: hex HMAC-SHA256 of `mpesa-payout:` + payoutId, keyed with `secret`. */
export function mpesaPayoutCallbackToken(payoutId: string, secret: string): string {
  return callbackTokenOf(`mpesa-payout:${payoutId}`, secret);
}

/**
 * `callbackUrl` (the service's `…/v1/provider-callbacks/mpesa`) with the query parameters `payout`, `token` and
 * `result` (`kind`) of the payout `payoutId` added (other query parameters are kept).
 */
export function mpesaPayoutCallbackUrl(
  callbackUrl: string,
  payoutId: string,
  kind: PayoutCallbackKind,
  secret: string,
): string {
  return callbackUrlWithQuery(callbackUrl, {
    payout: payoutId,
    token: mpesaPayoutCallbackToken(payoutId, secret),
    result: kind,
  });
}

/** True when `token` is the callback token of `payoutId` under `secret`; compared in constant time. */
export function verifyMpesaPayoutCallbackToken(payoutId: string, token: string | undefined, secret: string): boolean {
  if (!token || !PAYOUT_ID.test(payoutId)) return false;
  return callbackTokenMatches(`mpesa-payout:${payoutId}`, token, secret);
}

/** How a payout's callback URL names it and proves it. */
const PAYOUT_SUBJECT: CallbackSubject = {
  param: 'payout',
  verify: verifyMpesaPayoutCallbackToken,
  what: 'the M-Pesa payout callback',
};

/**
 * Keeps `verdict` as the payout's result unless one is kept already.
 * @returns true when this call kept it, false when an earlier result stands
 */
export async function keepVerdict(
  requestLog: ProviderRequestLog,
  payoutId: string,
  verdict: B2cVerdict,
): Promise<boolean> {
  const key = resultKeyOf(payoutId);
  if (!(await requestLog.claim(descriptor.code, key))) return false;
  await requestLog.recordReference(descriptor.code, key, JSON.stringify(verdict));
  return true;
}

/**
 * What an M-Pesa payout callback says, as Daraja sent it: the payout it is about, Daraja's ConversationID of the B2C
 * request when a B2C result names one, and the definite result it carries (none for a queue time-out or an undecided
 * status result). Facts only: the payout's run decides what they change (docs/payouts.md#m-pesa-b2c).
 */
export interface MpesaPayoutCallbackFacts {
  payoutId: string;
  conversationId?: string;
  verdict?: B2cVerdict;
}

/**
 * Authenticates an M-Pesa payout callback by its `payout` and `token` query parameters and reads what its body says
 * (see the module's comment). Writes nothing; reads the request log only to know a B2C request was sent.
 * @returns the callback's facts
 * @throws ProviderRefusal when the token is missing or wrong, no B2C payment was sent for the payout, the body is not
 *   Daraja's result, or a B2C result names another OriginatorConversationID than the payout's
 */
export async function readMpesaPayoutCallback(
  request: CallbackRequest,
  secret: string,
  requestLog: ProviderRequestLog,
): Promise<MpesaPayoutCallbackFacts> {
  const payoutId = authenticatedSubject(request, PAYOUT_SUBJECT, secret);
  if ((await requestLog.find(descriptor.code, sendKeyOf(payoutId))) === undefined)
    throw new ProviderRefusal('no M-Pesa B2C payment was sent for this payout');
  const json = callbackJson(request, 'the M-Pesa payout callback');
  // A queue time-out says nothing of whether M-Pesa paid: the status call asks (never a second payment).
  if (request.query.result === 'timeout') return { payoutId };
  const result = callbackOfShape(json, darajaResult, 'the M-Pesa payout callback body is not a Daraja result').Result;
  if (request.query.result === 'status') return { payoutId, verdict: statusVerdictOf(result) };
  if (result.OriginatorConversationID !== undefined && result.OriginatorConversationID !== payoutId)
    throw new ProviderRefusal('the M-Pesa B2C result names another OriginatorConversationID than this payout');
  return { payoutId, conversationId: result.ConversationID || undefined, verdict: b2cVerdictOf(result) };
}

/**
 * Keeps what a payout callback said where the rail's status call reads it (./b2c.ts): Daraja's ConversationID on the
 * payout's send key, and a definite result under its result key, first one wins. M-Pesa has no status endpoint for
 * a B2C result but this callback, so the adapter keeps the provider's word; the payout's status is the run's to
 * change, when its next status call reads it.
 * @returns `{providerReference: payout id, claimed: 'pending', payoutId, recorded}`, `recorded` true when this
 *   callback's result is the one kept
 */
export async function keepMpesaPayoutCallback(
  requestLog: ProviderRequestLog,
  facts: MpesaPayoutCallbackFacts,
): Promise<ParsedCallback> {
  const { payoutId } = facts;
  if (facts.conversationId)
    await requestLog.recordReference(descriptor.code, sendKeyOf(payoutId), facts.conversationId);
  const recorded = facts.verdict ? await keepVerdict(requestLog, payoutId, facts.verdict) : false;
  return { providerReference: payoutId, claimed: 'pending', payoutId, recorded };
}
