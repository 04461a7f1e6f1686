/** Real HTTP calls to the app under test, and a freshly registered developer per test. */
import { randomBytes } from 'node:crypto';
import { getStack } from './stack';

/** A response: status, headers and the parsed JSON body (or the text when it is not JSON). */
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** Options of one call: JSON `body`, a raw string `rawBody`, a secret `key`, extra headers. */
export interface CallOptions {
  method?: string;
  body?: unknown;
  rawBody?: string;
  key?: string;
  headers?: Record<string, string>;
  /** Another service than the shared stack's API (e.g. API processes a test started itself). */
  baseUrl?: string;
}

/** Calls `path` on the app with real HTTP. */
export async function call<T = any>(path: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
  const baseUrl = options.baseUrl ?? (await getStack()).baseUrl;
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(baseUrl + path, { method: options.method ?? (body ? 'POST' : 'GET'), headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed as T };
}

/** A registered developer: merchant id, session token and sandbox secret key. */
export interface TestDeveloper {
  email: string;
  password: string;
  merchantId: string;
  token: string;
  key: string;
}

/** Registers a new developer with a unique e-mail. */
export async function registerDeveloper(): Promise<TestDeveloper> {
  const email = `dev-${randomBytes(6).toString('hex')}@example.com`;
  const password = 'correct horse battery';
  const response = await call('/v1/auth/register', { body: { email, password, name: 'Test Developer' } });
  if (response.status !== 201) throw new Error(`register failed: ${response.status} ${JSON.stringify(response.body)}`);
  const data = response.body.data;
  return { email, password, merchantId: data.developer.merchant_id, token: data.token, key: data.api_key.secret };
}

/** Polls `GET /v1/payments/{id}` until `predicate` holds or `timeoutMs` passes; returns the last payment. */
export async function waitForPayment(
  key: string,
  id: string,
  predicate: (payment: any) => boolean,
  timeoutMs = 15_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await call(`/v1/payments/${id}`, { key });
    if (predicate(response.body.data) || Date.now() > deadline) return response.body.data;
    await new Promise((r) => setTimeout(r, 200));
  }
}
