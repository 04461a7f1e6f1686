/**
 * Wave's webhook events (docs/payments.md#provider-callbacks, docs/providers.md#wave-wave). Wave posts each event to
 * the URL registered in its Business Portal (`{PROVIDER_CALLBACK_BASE_URL}/v1/provider-callbacks/wave`), signed with
 * the webhook's signing secret (Wave's "signing secret" strategy, docs.wave.com/webhook):
 * `Wave-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of the timestamp followed by the raw body>` (several `v1`
 * while a secret is being rolled; one matching is enough). A signature whose `t` is more than five minutes from our
 * clock is refused, as Wave asks of receivers against replays. The signature is checked before the body is read; the
 * event is then a hint the workflow confirms by retrieving the session.
 */
import { createHmac } from 'node:crypto';
import { sameSecret } from '../../lib/constant-time';
import { callbackJson, ProviderRefusal, type CallbackRequest, type ParsedCallback } from '../provider';
import { CHECKOUT_EVENTS, checkoutSession, outcomeOf, webhookEvent } from './statuses';

/**
 * How far a `Wave-Signature`'s `t` may lie from our clock, in seconds: Wave asks receivers to refuse an event signed
 * more than five minutes ago (docs/providers.md#wave-wave); a `t` as far ahead is refused too (a clock that far off
 * is not Wave's).
 */
export const WAVE_SIGNATURE_TOLERANCE_SECONDS = 300;

/** The hex HMAC-SHA256 under `secret` of `timestamp` (unix seconds, as sent) followed by `rawBody`. */
function waveDigest(timestamp: string | number, rawBody: string, secret: string): string {
  return createHmac('sha256', secret).update(`${timestamp}${rawBody}`).digest('hex');
}

/** The `Wave-Signature` of `rawBody` sent at `timestamp` (unix seconds) under `secret`: `t=…,v1=…`. */
export function waveSignature(rawBody: string, timestamp: number, secret: string): string {
  return `t=${timestamp},v1=${waveDigest(timestamp, rawBody, secret)}`;
}

/**
 * True when `header` (a `Wave-Signature`) signs `rawBody` under `secret`: its `t` within
 * {@link WAVE_SIGNATURE_TOLERANCE_SECONDS} of `nowSeconds` and any one of its `v1`, compared in constant time.
 * @param nowSeconds our clock, in unix seconds (default: now)
 */
export function waveSignatureMatches(
  header: string | undefined,
  rawBody: string,
  secret: string,
  nowSeconds = Date.now() / 1000,
): boolean {
  if (!header || header.length > 2000) return false;
  const parts = header.split(',').map((part) => part.trim().split('='));
  const timestamp = parts.find(([name]) => name === 't')?.[1];
  if (!timestamp || !/^[0-9]{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > WAVE_SIGNATURE_TOLERANCE_SECONDS) return false;
  const expected = waveDigest(timestamp, rawBody, secret);
  return parts.some(([name, value]) => name === 'v1' && value !== undefined && sameSecret(expected, value));
}

/**
 * Authenticates and reads a Wave event about a checkout session.
 * @returns the session id as the provider reference, and what the session says
 * @throws ProviderRefusal (401) for a missing or wrong signature, one signed more than five minutes ago, a body that is
 *   not a documented event, or an event about anything but a checkout session
 */
export function parseWaveCallback(request: CallbackRequest, secret: string): ParsedCallback {
  if (!waveSignatureMatches(request.headers['wave-signature'], request.rawBody, secret))
    throw new ProviderRefusal('the Wave event is not signed with the webhook secret');
  const event = webhookEvent.safeParse(callbackJson(request, 'the Wave event'));
  if (!event.success) throw new ProviderRefusal('the Wave event is not an event of the documented shape');
  if (!CHECKOUT_EVENTS.has(event.data.type))
    throw new ProviderRefusal(`the Wave event ${event.data.type.slice(0, 60)} is not about a checkout session`);
  const session = checkoutSession.safeParse(event.data.data);
  if (!session.success) throw new ProviderRefusal('the Wave event does not carry a checkout session');
  return { providerReference: session.data.id, claimed: outcomeOf(session.data).status };
}
