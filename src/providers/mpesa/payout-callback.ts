/**
 * M-Pesa B2C result callbacks (docs/payouts.md#m-pesa-b2c). Daraja posts a B2C payment's result to its `ResultURL`, a
 * request that timed out in its queue to its `QueueTimeOutURL`, and a Transaction Status query's result to that
 * query's own `ResultURL`; it signs none of them. So every such URL is the payout's own: the service's
 * `…/v1/provider-callbacks/mpesa` with `?payout=<po_…>&token=<hex HMAC-SHA256 of "mpesa-payout:" + payout id, keyed
 * with the callback secret>&result=<b2c|status|timeout>`. The token is checked before anything else.
 *
 * A definite result (paid, or refused with its reason) is kept in the shared request log under the payout's
 * result key, first one wins: a repeated or late callback, or a status result after the B2C result, changes nothing.
 * The payout's workflow reads it with the rail's status call (./b2c.ts); the callback itself signals nothing.
 */
import { ProviderRefusal, type CallbackRequest, type ParsedCallback, type ProviderRequestLog } from '../provider';
import { callbackTokenMatches, callbackTokenOf } from './callback';
import { descriptor } from './descriptor';
import { b2cVerdictOf, darajaResult, statusVerdictOf, type B2cVerdict } from './payout-statuses';

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
  const url = new URL(callbackUrl);
  url.searchParams.set('payout', payoutId);
  url.searchParams.set('token', mpesaPayoutCallbackToken(payoutId, secret));
  url.searchParams.set('result', kind);
  return url.toString();
}

/** True when `token` is the callback token of `payoutId` under `secret`; compared in constant time. */
export function verifyMpesaPayoutCallbackToken(payoutId: string, token: string | undefined, secret: string): boolean {
  if (!token || !PAYOUT_ID.test(payoutId)) return false;
  return callbackTokenMatches(`mpesa-payout:${payoutId}`, token, secret);
}

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
 * Authenticates an M-Pesa payout callback by its `payout` and `token` query parameters, parses its body and keeps a
 * definite result for the payout (see the module's comment).
 * @returns `{providerReference: payout id, claimed: 'pending', payoutId, recorded}`, `recorded` true when this callback
 *   decided the payout's result
 * @throws ProviderRefusal when the token is missing or wrong, no B2C payment was sent for the payout, the body is not
 *   Daraja's result, or a B2C result names another OriginatorConversationID than the payout's
 */
export async function parseMpesaPayoutCallback(
  request: CallbackRequest,
  secret: string,
  requestLog: ProviderRequestLog,
): Promise<ParsedCallback> {
  const payoutId = request.query.payout ?? '';
  if (!verifyMpesaPayoutCallbackToken(payoutId, request.query.token, secret))
    throw new ProviderRefusal('the M-Pesa payout callback token is missing or not valid');
  if ((await requestLog.find(descriptor.code, sendKeyOf(payoutId))) === undefined)
    throw new ProviderRefusal('no M-Pesa B2C payment was sent for this payout');
  const answer = { providerReference: payoutId, claimed: 'pending' as const, payoutId, recorded: false };
  let json: unknown;
  try {
    json = JSON.parse(request.rawBody);
  } catch {
    throw new ProviderRefusal('the M-Pesa payout callback body is not JSON');
  }
  // A queue time-out says nothing of whether M-Pesa paid: the status call asks (never a second payment).
  if (request.query.result === 'timeout') return answer;
  const parsed = darajaResult.safeParse(json);
  if (!parsed.success) throw new ProviderRefusal('the M-Pesa payout callback body is not a Daraja result');
  const result = parsed.data.Result;
  let verdict: B2cVerdict | undefined;
  if (request.query.result === 'status') {
    verdict = statusVerdictOf(result);
  } else {
    if (result.OriginatorConversationID !== undefined && result.OriginatorConversationID !== payoutId)
      throw new ProviderRefusal('the M-Pesa B2C result names another OriginatorConversationID than this payout');
    if (result.ConversationID)
      await requestLog.recordReference(descriptor.code, sendKeyOf(payoutId), result.ConversationID);
    verdict = b2cVerdictOf(result);
  }
  if (!verdict) return answer;
  return { ...answer, recorded: await keepVerdict(requestLog, payoutId, verdict) };
}
