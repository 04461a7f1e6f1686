/** The service's public HTTP API as the benchmark uses it (only 127.0.0.1). */
import { randomBytes } from 'node:crypto';

/** A registered developer: merchant id and sandbox secret key. */
export interface Developer {
  merchantId: string;
  key: string;
}

/** Sandbox phone numbers (docs/payments.md#sandbox-scenarios; Rwanda, RWF mobile money). */
export const PHONES = {
  /** Completes at once. */
  instantSuccess: '+250788000001',
  /** Never answers: the payment waits on its provider until it expires. */
  neverAnswers: '+250788000003',
} as const;

/** POSTs JSON to `url` and returns the status and parsed body; throws on a status other than `expected`. */
export async function postJson<T>(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  expected: number,
): Promise<T> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== expected)
    throw new Error(`POST ${url} answered ${response.status}, not ${expected}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

/** Registers a developer with a unique e-mail (docs/api.md#sessions); each figure uses its own merchant. */
export async function registerDeveloper(apiUrl: string, label: string): Promise<Developer> {
  const email = `bench-${label}-${randomBytes(4).toString('hex')}@example.com`;
  const body = await postJson<{ data: { developer: { merchant_id: string }; api_key: { secret: string } } }>(
    `${apiUrl}/v1/auth/register`,
    { email, password: 'benchmark password', name: `Benchmark ${label}` },
    {},
    201,
  );
  return { merchantId: body.data.developer.merchant_id, key: body.data.api_key.secret };
}

/** The body of `POST /v1/payments`: 1,500 RWF by mobile money from `phone`, tagged `bench_id` in the metadata. */
export function paymentBody(phone: string, benchId?: string): Record<string, unknown> {
  return {
    amount: 1500,
    currency: 'RWF',
    payment_method: 'mobile_money',
    phone_number: phone,
    description: 'benchmark',
    ...(benchId ? { metadata: { bench_id: benchId } } : {}),
  };
}

/**
 * Creates one payment with a fresh idempotency key; resolves with its id. With `retriesWhenUnavailable`, a 503 is sent
 * again with the same key up to that many times.
 * @throws Error on any other answer than 201, or the last 503
 */
export async function createPayment(
  apiUrl: string,
  developer: Developer,
  body: Record<string, unknown>,
  options: { retriesWhenUnavailable?: number } = {},
): Promise<string> {
  const key = randomBytes(16).toString('hex');
  for (let attempt = 0; ; attempt++) {
    try {
      const answer = await postJson<{ data: { id: string } }>(
        `${apiUrl}/v1/payments`,
        body,
        { authorization: `Bearer ${developer.key}`, 'idempotency-key': key },
        201,
      );
      return answer.data.id;
    } catch (error) {
      // A 503 is sent again with the same key, as docs/operations.md#deadlines tells a client to; only where asked.
      if (attempt >= (options.retriesWhenUnavailable ?? 0) || !/ answered 503,/.test(String(error))) throw error;
    }
  }
}

/** A webhook endpoint as created (docs/webhooks.md#endpoints): its id and signing secret. */
export interface Webhook {
  id: string;
  secret: string;
}

/** Creates a webhook of `developer` for `events` at `url` (docs/webhooks.md#endpoints) with its secret key. */
export async function createWebhook(
  apiUrl: string,
  developer: Developer,
  url: string,
  events: string[],
): Promise<Webhook> {
  const answer = await postJson<{ data: { id: string; secret: string } }>(
    `${apiUrl}/v1/developer/webhooks`,
    { url, events },
    { authorization: `Bearer ${developer.key}` },
    201,
  );
  return { id: answer.data.id, secret: answer.data.secret };
}

/** A delivery as the webhook's log shows it: its id and the event it carries (docs/webhooks.md#retries). */
export interface LoggedDelivery {
  id: string;
  event_id: string;
  event: string;
}

/** The newest delivery in `webhook`'s log, if any. */
export async function latestDelivery(
  apiUrl: string,
  developer: Developer,
  webhook: Webhook,
): Promise<LoggedDelivery | undefined> {
  const response = await fetch(`${apiUrl}/v1/developer/webhooks/${webhook.id}/deliveries?limit=1`, {
    headers: { authorization: `Bearer ${developer.key}` },
  });
  if (response.status !== 200)
    throw new Error(`GET deliveries answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
  const body = (await response.json()) as { data: { deliveries: LoggedDelivery[] } };
  return body.data.deliveries[0];
}
