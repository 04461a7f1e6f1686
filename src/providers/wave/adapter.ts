/**
 * The live `wave` adapter: Wave's Checkout API (docs/providers.md#wave-wave), over HTTP with {@link providerHttp}
 * (time-outs, unknown answers kept apart).
 *
 * Wave's calls (Wave's API documentation, docs.wave.com/checkout; every call `Authorization: Bearer <API key>`):
 * - `POST /v1/checkout/sessions` `{amount (a decimal string; XOF whole francs), currency, client_reference,
 *   restrict_payer_mobile (E.164), success_url, error_url}` → the session, whose `wave_launch_url` the customer opens
 *   (the Wave app, or Wave's web page that shows a QR code);
 * - `GET /v1/checkout/sessions/:id` → the session; 404 `checkout-session-not-found`;
 * - `GET /v1/checkout/sessions/search?client_reference=…` → `{result: [sessions]}`;
 * - `POST /v1/checkout/sessions/:id/expire`: an open session can no longer be paid;
 * - `POST /v1/checkout/sessions/:id/refund`: the session's whole payment goes back to the customer (no amount).
 * Errors are `{code, message}`; a 401 (`no-matching-api-key`, `api-key-revoked` …) refuses our key.
 *
 * Decisions:
 * - One session per payment: `client_reference` is the payment id, and an initiation first searches for a session
 *   with it, so a retry after a lost answer finds the session the first attempt made instead of opening another.
 * - The provider reference is the session id (`cos-…`); the receipt number is the session's `transaction_id`, the id
 *   the customer sees in the Wave app. `next_action` is `redirect` to `wave_launch_url`.
 * - `restrict_payer_mobile` is the payment's number: only the Wave account of that number can pay the session.
 * - Cancel expires the session; the session read afterwards is the answer (a session paid first stays paid).
 * - A refund returns the whole payment; it is claimed in the {@link ProviderRequestLog} before it is sent and never
 *   sent twice. Wave documents no way to ask what became of a refund whose answer was lost: it stays `pending`, and
 *   the operator settles it from the Wave Business Portal.
 * - A 401 is a fault of our key (a {@link WaveAuthenticationError}), retried like an unknown answer: a payment is never
 *   failed for our configuration.
 */
import { CURRENCY_EXPONENTS } from '../../domain/money';
import type { ProviderAnswer } from '../../domain/payment';
import { parseMsisdn } from '../../domain/phone';
import { documentedAnswer, ProviderUnknownAnswer, type FetchLike } from '../http';
import {
  ProviderRefusal,
  type PaymentProvider,
  type ProviderRequestLog,
  type RefundAnswer,
  type RefundRequest,
} from '../provider';
import { parseWaveCallback } from './callback';
import { createWaveClient, isWaveRefusal, waveErrorCodeOf } from './client';
import { descriptor } from './descriptor';
import type { WaveSettings } from './settings';
import { CHECKOUT_SESSION_ID, checkoutSession, outcomeOf, searchAnswer, type CheckoutSession } from './statuses';

export { WaveAuthenticationError } from './client';

/** What the adapter needs besides its settings. */
export interface WaveDeps {
  /** Where refunds and expirations are claimed, shared by every process. */
  requestLog: ProviderRequestLog;
  /** The HTTP client (default: global fetch). */
  fetch?: FetchLike;
}

/** The countries whose numbers Wave collects from here. */
const WAVE_COUNTRIES: ReadonlySet<string> = new Set(descriptor.generic.countries);

/** The request-log key of the refund with `idempotencyKey`, and of our expiry of the session `sessionId`. */
const refundKey = (idempotencyKey: string) => `refund:${idempotencyKey}`;
const expiryKey = (sessionId: string) => `expire:${sessionId}`;

/**
 * The live Wave adapter (see the module's comment). Three-valued answers: values, {@link ProviderRefusal} (a refused
 * session, an unknown reference, a bad event), and any other error for an unknown answer (time-out, 5xx, undocumented
 * body, {@link WaveAuthenticationError}).
 * @param settings base URL, API key, webhook secret, redirect pages, time-out (ms) of every call
 * @param deps the request log and the HTTP client
 */
export function createWaveProvider(settings: WaveSettings, deps: WaveDeps): PaymentProvider {
  const fetchImpl = deps.fetch ?? fetch;
  const { requestLog } = deps;
  const call = createWaveClient(settings, fetchImpl);

  /** The session `id` as Wave has it now. @throws ProviderRefusal when Wave has no such session */
  async function retrieve(id: string): Promise<CheckoutSession> {
    if (!CHECKOUT_SESSION_ID.test(id)) throw new ProviderRefusal(`${id.slice(0, 60)} is not a Wave checkout session`);
    const path = `/v1/checkout/sessions/${id}`;
    const response = await call('GET', path);
    if (response.status === 404) throw new ProviderRefusal(`Wave has no checkout session ${id}`);
    if (response.status !== 200)
      throw new ProviderUnknownAnswer(`GET ${path}: undocumented answer (HTTP ${response.status})`, response.status);
    return documentedAnswer(checkoutSession, response.json, `GET ${path}`);
  }

  /** The session answer of `session`, with its launch URL as the customer's next step. */
  async function answerOf(session: CheckoutSession): Promise<ProviderAnswer> {
    const expiredByUs =
      session.checkout_status === 'expired' &&
      (await requestLog.find(descriptor.code, expiryKey(session.id))) !== undefined;
    return {
      providerReference: session.id,
      outcome: outcomeOf(session, expiredByUs),
      nextAction: session.checkout_status === 'open' ? { type: 'redirect', url: session.wave_launch_url } : null,
    };
  }

  /** The session an earlier attempt opened for `paymentId`, when there is one. */
  async function earlierSession(paymentId: string): Promise<CheckoutSession | undefined> {
    const path = `/v1/checkout/sessions/search?client_reference=${encodeURIComponent(paymentId)}`;
    const response = await call('GET', path);
    if (response.status !== 200)
      throw new ProviderUnknownAnswer(
        `GET /v1/checkout/sessions/search: undocumented answer (HTTP ${response.status})`,
      );
    const found = documentedAnswer(searchAnswer, response.json, 'GET /v1/checkout/sessions/search').result;
    return found.find((session) => session.client_reference === paymentId);
  }

  return {
    code: descriptor.code,
    supports: descriptor.live,

    async initiate(request) {
      if (request.currency !== 'XOF')
        throw new ProviderRefusal(`Wave collects XOF, not ${request.currency}`, 'provider_error');
      const msisdn = parseMsisdn(request.customer);
      if (!msisdn || !WAVE_COUNTRIES.has(msisdn.country))
        throw new ProviderRefusal('Wave collects from Senegalese and Ivorian numbers only', 'declined');
      const earlier = await earlierSession(request.paymentId);
      if (earlier) return answerOf(earlier);
      const path = '/v1/checkout/sessions';
      const response = await call('POST', path, {
        amount: String(request.amount / 10 ** CURRENCY_EXPONENTS.XOF),
        currency: 'XOF',
        client_reference: request.paymentId,
        restrict_payer_mobile: msisdn.e164,
        success_url: settings.successUrl,
        error_url: settings.errorUrl,
      });
      if (response.status === 200 || response.status === 201)
        return answerOf(documentedAnswer(checkoutSession, response.json, `POST ${path}`));
      const code = waveErrorCodeOf(response);
      if (isWaveRefusal(response) && code)
        throw new ProviderRefusal(`Wave refused the checkout session (${code})`, 'provider_error', code);
      throw new ProviderUnknownAnswer(`POST ${path}: undocumented answer (HTTP ${response.status})`, response.status);
    },

    async fetchStatus(providerReference) {
      const { nextAction: _, ...answer } = await answerOf(await retrieve(providerReference));
      return answer;
    },

    async cancel(providerReference) {
      if (!CHECKOUT_SESSION_ID.test(providerReference))
        throw new ProviderRefusal(`${providerReference.slice(0, 60)} is not a Wave checkout session`);
      // Claimed first, so the session read afterwards knows its expiry was ours (a cancel, not a lapse).
      await requestLog.claim(descriptor.code, expiryKey(providerReference));
      const path = `/v1/checkout/sessions/${providerReference}/expire`;
      const response = await call('POST', path);
      // Whatever Wave said (expired, or not open any more: paid first), the session now is the final word.
      if (response.status >= 400 && response.status !== 400 && response.status !== 404 && response.status !== 409)
        throw new ProviderUnknownAnswer(`POST ${path}: undocumented answer (HTTP ${response.status})`, response.status);
      const { nextAction: _, ...answer } = await answerOf(await retrieve(providerReference));
      return answer;
    },

    async refund(request: RefundRequest): Promise<RefundAnswer> {
      if (request.amount !== request.paymentAmount)
        throw new ProviderRefusal('Wave refunds a whole checkout session only', 'provider_error');
      if (!CHECKOUT_SESSION_ID.test(request.providerReference))
        throw new ProviderRefusal(`${request.providerReference.slice(0, 60)} is not a Wave checkout session`);
      // Asked first: our key and the session are checked before the claim (a 401 or a 404 then sends nothing).
      await retrieve(request.providerReference);
      // Never sent twice: a refund claimed before (its answer lost) waits for the operator (see the module's comment).
      if (!(await requestLog.claim(descriptor.code, refundKey(request.idempotencyKey)))) return { status: 'pending' };
      const path = `/v1/checkout/sessions/${request.providerReference}/refund`;
      const response = await call('POST', path);
      if (response.status === 200 || response.status === 204)
        return { status: 'succeeded', refundReference: request.providerReference };
      const code = waveErrorCodeOf(response);
      if (isWaveRefusal(response) && code)
        return { status: 'failed', failureMessage: `Wave refused the refund (${code})` };
      throw new ProviderUnknownAnswer(`POST ${path}: undocumented answer (HTTP ${response.status})`, response.status);
    },

    async fetchRefund(request) {
      const claimed = await requestLog.find(descriptor.code, refundKey(request.idempotencyKey));
      return claimed ? { status: 'pending' } : { status: 'not_received' };
    },

    parseCallback(request) {
      return parseWaveCallback(request, settings.webhookSecret);
    },
  };
}
