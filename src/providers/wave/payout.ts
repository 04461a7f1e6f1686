/**
 * The live `wave` payout rail: Wave's Payout API (docs/payouts.md#wave-payouts), over the collection's API key
 * (./client.ts); the key must be allowed the Payout API in the Business Portal.
 *
 * Wave's calls (Wave's API documentation, docs.wave.com/payout):
 * - `POST /v1/payout` with an `idempotency-key` header, `{currency, receive_amount (a decimal string; XOF whole
 *   francs), mobile (E.164), client_reference, payment_reason?}` → the payout `{id ("pt-…"), currency, receive_amount,
 *   fee, mobile, client_reference, status: processing | succeeded | failed | reversed, payout_error?: {error_code,
 *   error_message}}`;
 * - `GET /v1/payouts/search?client_reference=…` → `{result: [payouts]}`.
 *
 * Decisions:
 * - the provider reference is the payout id, sent as both the idempotency key and `client_reference`: a repeated send
 *   names the same payout (Wave answers it again instead of paying twice), and the status call finds it by search;
 * - no payout found under the reference is `not_received` (nothing was paid; the same reference may be sent again);
 * - a 401 refuses our key before anything is paid: the rail is unavailable and the payout waits;
 * - a 4xx with Wave's error code is a definite refusal; a time-out, a 5xx or an undocumented body is `unknown`.
 */
import { parseMsisdn } from '../../domain/phone';
import type { PayoutFailureCode } from '../../domain/payout-rail';
import { z } from '../../lib/zod';
import { providerFailureCause, type FetchLike } from '../http';
import { PayoutRailUnavailable, type PayoutAnswer, type PayoutRail } from '../payout-rail';
import { createWaveClient, isWaveRefusal, WaveAuthenticationError, waveErrorCodeOf } from './client';
import { descriptor } from './descriptor';
import type { WaveSettings } from './settings';

/** Wave's payout paths. */
export const PAYOUT_PATH = '/v1/payout';
export const PAYOUT_SEARCH_PATH = '/v1/payouts/search';

/** Longest `payment_reason` sent, in characters. */
const REASON_MAX = 40;

/** A payout as Wave answers it. */
const wavePayout = z.object({
  id: z.string().min(1).max(100),
  currency: z.string().length(3),
  receive_amount: z.string().regex(/^[0-9]+(\.[0-9]+)?$/),
  client_reference: z.string().max(255).nullish(),
  status: z.enum(['processing', 'succeeded', 'failed', 'reversed']),
  payout_error: z.object({ error_code: z.string().max(100), error_message: z.string().max(1000).optional() }).nullish(),
});

/** `GET /v1/payouts/search` → `{result: [payouts]}`. */
const searchAnswer = z.object({ result: z.array(wavePayout).max(100) });

/**
 * The payout error codes we read, with our failure code: our own balance, the recipient's wallet (blocked, over its
 * limits, unknown), the amount (over our payout limit, too small).
 */
export const WAVE_PAYOUT_ERRORS: Readonly<Record<string, PayoutFailureCode>> = {
  'insufficient-funds': 'platform_funds',
  'recipient-account-blocked': 'account_restricted',
  'receive-limit-exceeded': 'account_restricted',
  'payout-limit-exceeded': 'amount_invalid',
  'amount-too-small': 'amount_invalid',
  'invalid-mobile': 'account_invalid',
  'mobile-not-registered': 'account_invalid',
};

/** A Wave payout error code as our failure code ({@link WAVE_PAYOUT_ERRORS}; any other: `declined`). */
export function payoutFailureCodeOf(code: string): PayoutFailureCode {
  return WAVE_PAYOUT_ERRORS[code] ?? 'declined';
}

/** A Wave payout as our answer about the payout `reference`. */
function answerOf(
  payout: z.infer<typeof wavePayout>,
  reference: string,
): PayoutAnswer<'paid' | 'in_transit' | 'returned' | 'refused'> {
  switch (payout.status) {
    case 'succeeded':
      return { outcome: 'paid', providerReference: reference };
    case 'processing':
      return { outcome: 'in_transit', providerReference: reference };
    case 'reversed':
      return { outcome: 'returned', providerReference: reference };
    case 'failed': {
      const code = payout.payout_error?.error_code.slice(0, 60) ?? 'failed';
      return {
        outcome: 'refused',
        providerReference: reference,
        failureCode: payoutFailureCodeOf(code),
        failureMessage: `Wave: ${(payout.payout_error?.error_message ?? code).slice(0, 200)} (${code})`,
        providerReason: code,
      };
    }
  }
}

/**
 * The Wave payout rail for `settings`.
 * @param deps the HTTP client (default: global fetch)
 */
export function createWavePayoutRail(settings: WaveSettings, deps: { fetch?: FetchLike } = {}): PayoutRail {
  const call = createWaveClient(settings, deps.fetch ?? fetch);

  return {
    code: descriptor.code,

    async sendPayout(request) {
      const reference = request.payoutId;
      const refused = (failureCode: PayoutFailureCode, failureMessage: string) => ({
        outcome: 'refused' as const,
        providerReference: reference,
        failureCode,
        failureMessage,
      });
      if (request.destination.type !== 'mobile_money')
        return refused('account_invalid', 'Wave pays out to mobile numbers only');
      if (request.currency !== 'XOF') return refused('amount_invalid', `Wave pays out XOF, not ${request.currency}`);
      const msisdn = parseMsisdn(request.destination.phoneNumber);
      if (!msisdn || !(descriptor.generic.countries as readonly string[]).includes(msisdn.country))
        return refused('account_invalid', 'Wave pays out to Senegalese and Ivorian numbers only');
      let response;
      try {
        response = await call(
          'POST',
          PAYOUT_PATH,
          {
            currency: 'XOF',
            receive_amount: String(request.amount),
            mobile: msisdn.e164,
            client_reference: reference,
            ...(request.description ? { payment_reason: request.description.slice(0, REASON_MAX) } : {}),
          },
          { 'idempotency-key': reference },
        );
      } catch (error) {
        if (error instanceof WaveAuthenticationError) throw new PayoutRailUnavailable(error.message);
        return { outcome: 'unknown', providerReference: reference, failureMessage: providerFailureCause(error) };
      }
      if (response.status === 200 || response.status === 201) {
        const payout = wavePayout.safeParse(response.json);
        if (!payout.success)
          return { outcome: 'unknown', providerReference: reference, failureMessage: 'undocumented answer' };
        const { outcome, ...answer } = answerOf(payout.data, reference);
        // A send cannot answer `returned`: a payout reversed already is one Wave paid (its status call says more).
        return { ...answer, outcome: outcome === 'returned' ? 'paid' : outcome };
      }
      const code = waveErrorCodeOf(response);
      if (isWaveRefusal(response) && code)
        return { ...refused(payoutFailureCodeOf(code), `Wave refused the payout (${code})`), providerReason: code };
      return {
        outcome: 'unknown',
        providerReference: reference,
        failureMessage: `POST ${PAYOUT_PATH} answered ${response.status}`,
      };
    },

    async payoutStatus(providerReference) {
      const unknown = (why: string): PayoutAnswer => ({ outcome: 'unknown', providerReference, failureMessage: why });
      let response;
      try {
        response = await call('GET', `${PAYOUT_SEARCH_PATH}?client_reference=${encodeURIComponent(providerReference)}`);
      } catch (error) {
        return unknown(providerFailureCause(error));
      }
      if (response.status !== 200) return unknown(`GET ${PAYOUT_SEARCH_PATH} answered ${response.status}`);
      const found = searchAnswer.safeParse(response.json);
      if (!found.success) return unknown('undocumented answer');
      const payout = found.data.result.find((p) => p.client_reference === providerReference);
      return payout ? answerOf(payout, providerReference) : { outcome: 'not_received', providerReference };
    },
  };
}
