/**
 * Airtel Money callbacks (docs/payments.md#provider-callbacks). Airtel POSTs to the callback URL registered in the
 * application's
 * settings on its developer portal (not per request):
 * `{"transaction": {"id", "message", "status_code": "TS" | "TF", "airtel_money_id"}, "hash"?}`.
 * With "callback authentication" switched on there, `hash` is the Base64 HMAC-SHA256 of the callback
 * payload keyed with the application's private key. Airtel's page says "hashing the callback
 * payload"; the portal's own walk-through says the `transaction` object is what is hashed, so the
 * hashed message is the compact JSON of `transaction` with its members in the order received
 * (verify against Airtel's UAT when the key is first configured).
 */
import { createHmac } from 'node:crypto';
import { sameSecret } from '../../lib/constant-time';
import { z } from '../../lib/zod';
import { callbackJson, ProviderRefusal, type CallbackRequest, type ParsedCallback } from '../provider';
import { AIRTEL_TRANSACTION_STATUSES, claimedStatusOf } from './statuses';

/** A callback's `transaction` as Airtel documents it (`status_code` may be intermediate: TIP, TA). */
export const airtelCallbackTransaction = z.object({
  id: z.string().min(1).max(100),
  message: z.string().max(1000).optional(),
  status_code: z.enum(AIRTEL_TRANSACTION_STATUSES),
  airtel_money_id: z.string().max(100).optional(),
});

/** A callback body: the transaction and, with callback authentication on, its hash. */
export const airtelCallbackBody = z.object({
  transaction: airtelCallbackTransaction,
  hash: z.string().max(200).optional(),
});

/** A callback body as {@link airtelCallbackBody} validates it. */
export type AirtelCallbackBody = z.infer<typeof airtelCallbackBody>;

/**
 * The `hash` of a callback whose `transaction` member is `transaction` (a parsed JSON object, its
 * member order kept), keyed with `privateKey`: Base64 of HMAC-SHA256 over `JSON.stringify(transaction)`.
 */
export function airtelCallbackHash(transaction: unknown, privateKey: string): string {
  return createHmac('sha256', privateKey).update(JSON.stringify(transaction)).digest('base64');
}

/** True when `hash` is the hash of `transaction` under `privateKey`; compared in constant time. */
export function verifyAirtelCallbackHash(transaction: unknown, hash: unknown, privateKey: string): boolean {
  if (typeof hash !== 'string' || hash.length === 0 || typeof transaction !== 'object' || transaction === null)
    return false;
  return sameSecret(airtelCallbackHash(transaction, privateKey), hash);
}

/**
 * Authenticates an Airtel callback, then parses it into a hint. With `privateKey` set, the `hash`
 * is checked before anything in the body is trusted; without one every well-formed callback is
 * accepted (weaker: the workflow confirms every callback with the status call before acting).
 * @returns `{providerReference: transaction.id, claimed}` with `claimed` in our statuses
 * @throws ProviderRefusal when the body is not JSON, the hash is missing or wrong, or the body is not a documented
 *   callback
 */
export function parseAirtelCallback(request: CallbackRequest, privateKey: string | undefined): ParsedCallback {
  const json = callbackJson(request, 'the Airtel callback');
  if (privateKey !== undefined) {
    const body = typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {};
    if (body.hash === undefined) throw new ProviderRefusal('the Airtel callback carries no hash');
    if (!verifyAirtelCallbackHash(body.transaction, body.hash, privateKey))
      throw new ProviderRefusal('the Airtel callback hash is not valid');
  }
  const parsed = airtelCallbackBody.safeParse(json);
  if (!parsed.success) throw new ProviderRefusal('the Airtel callback body is not a valid callback');
  return {
    providerReference: parsed.data.transaction.id,
    claimed: claimedStatusOf(parsed.data.transaction.status_code),
  };
}
