/**
 * A typed client of the PayCollect API: openapi-fetch over the types that openapi-typescript
 * generates from the API's OpenAPI document (`schema.d.ts`, `npm run client:generate`). Every path,
 * parameter, request body and answer is typed from the document:
 *
 * ```ts
 * const paycollect = createPaycollectClient('http://127.0.0.1:3000', process.env.PAYCOLLECT_API_KEY!);
 * const { data, error, response } = await paycollect.POST('/v1/payments', {
 *   body: { amount: 1500, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788123456' },
 *   headers: { 'Idempotency-Key': 'order-1042' },
 * });
 * if (error) throw new Error(`${response.status} ${error.error.code}: ${error.error.message}`);
 * console.log(data.data.id, data.data.status); // pay_… pending
 * ```
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths, webhooks } from './schema';

export type { components, operations, paths, webhooks } from './schema';

/** A client of the whole API (see {@link createPaycollectClient}). */
export type PaycollectClient = Client<paths>;

/** A generic payment; amounts in minor units. */
export type Payment = components['schemas']['Payment'];
/** A refund; amount in minor units. */
export type Refund = components['schemas']['Refund'];
/** An event as the events endpoints list it. */
export type Event = components['schemas']['Event'];
/** A webhook endpoint. */
export type Webhook = components['schemas']['Webhook'];
/** The error envelope of every endpoint but the merchant-scoped ones. */
export type ApiError = components['schemas']['EnvelopeError'];
/** The body of a webhook delivery of `event` (e.g. `'payment.completed'`). */
export type WebhookPayload<E extends keyof webhooks> = NonNullable<
  webhooks[E]['post']['requestBody']
>['content']['application/json'];

/**
 * How the client authenticates: a secret key (`sk_sandbox_…`, `sk_live_…`) or a session token as
 * a string, both sent as `Authorization: Bearer …`; or `{apiKey}` for the merchant-scoped
 * endpoints, sent as `X-API-Key`.
 */
export type PaycollectCredential = string | { apiKey: string };

/**
 * A client of the API at `baseUrl` (e.g. `https://api.example.com`, no trailing `/v1`) that sends
 * `credential` with every request. Calls answer `{data, error, response}`: `data` is the success
 * body and `error` the error body (`{success: false, error: {code, message, details?}}`), each typed
 * per status as the document declares; network failures reject.
 * @param options openapi-fetch options besides `baseUrl` (e.g. a `fetch` implementation); headers given here are sent
 *   as well
 */
export function createPaycollectClient(
  baseUrl: string,
  credential: PaycollectCredential,
  options: Omit<ClientOptions, 'baseUrl'> = {},
): PaycollectClient {
  const auth: Record<string, string> =
    typeof credential === 'string' ? { Authorization: `Bearer ${credential}` } : { 'X-API-Key': credential.apiKey };
  const headers = { ...(options.headers as Record<string, string> | undefined), ...auth };
  return createClient<paths>({ ...options, baseUrl: baseUrl.replace(/\/+$/, ''), headers });
}
