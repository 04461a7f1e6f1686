/**
 * What the HTTP adapters (`momo`, `mobile_money_b`) share: a JSON call with a time-out that keeps
 * unknown answers apart from definite ones, zod validation of what the provider answered, and an
 * access-token cache. Stripe's adapter uses the `stripe` package instead.
 *
 * An answer is *unknown* when the provider may have acted and we cannot tell: a time-out, a
 * connection error, a 5xx, or a body that does not match the provider's documented schema.
 * {@link ProviderUnknownAnswer} says so; callers retry with the same reference or ask for the status.
 */
import { z } from '../lib/zod';

/** The provider's answer could not be read (time-out, network, 5xx, undocumented body): it may have acted. */
export class ProviderUnknownAnswer extends Error {
  constructor(
    message: string,
    /** The HTTP status when one came, else undefined (time-out, connection refused). */
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = 'ProviderUnknownAnswer';
  }
}

/** One HTTP request to a provider. */
export interface ProviderHttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  /** Serialised as JSON unless a string (sent as is). */
  body?: unknown;
  /** Time-out for the whole exchange, in milliseconds. */
  timeoutMs: number;
}

/** A provider's HTTP answer with a status below 500: its status code, raw text and parsed JSON (undefined when not JSON). */
export interface ProviderHttpResponse {
  status: number;
  text: string;
  json: unknown;
}

/** `fetch` as the adapters use it (tests may pass another). */
export type FetchLike = typeof fetch;

/**
 * Sends `request` and returns the answer when its status is below 500; the caller maps 2xx and the
 * provider's documented 4xx answers.
 * @throws ProviderUnknownAnswer on a time-out, a network error or a 5xx answer
 */
export async function providerHttp(request: ProviderHttpRequest, fetchImpl: FetchLike = fetch): Promise<ProviderHttpResponse> {
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  let body: string | undefined;
  if (request.body !== undefined) {
    body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  }
  let response: Response;
  let text: string;
  try {
    response = await fetchImpl(request.url, { method: request.method, headers, body, signal: AbortSignal.timeout(request.timeoutMs) });
    text = await response.text();
  } catch (error) {
    const reason = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError') ? `no answer within ${request.timeoutMs} ms` : 'the connection failed';
    throw new ProviderUnknownAnswer(`${request.method} ${new URL(request.url).pathname}: ${reason}`);
  }
  if (response.status >= 500) throw new ProviderUnknownAnswer(`${request.method} ${new URL(request.url).pathname} answered ${response.status}`, response.status);
  let json: unknown;
  try {
    json = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json };
}

/**
 * `value` parsed with `schema`, the provider's documented answer.
 * @throws ProviderUnknownAnswer when it does not match (an undocumented answer is never read as a success or a refusal)
 */
export function documentedAnswer<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ProviderUnknownAnswer(`${what}: the answer does not match the provider's documented schema`);
  return parsed.data;
}

/**
 * An access token cached until shortly before it expires. Concurrent callers share one request;
 * a failed request is not cached.
 */
export class TokenCache {
  private token: { value: string; expiresAt: number } | undefined;
  private inflight: Promise<string> | undefined;

  /**
   * @param obtain asks the provider for a token: its value and lifetime in seconds
   * @param now the clock, in milliseconds
   * @param marginSeconds how long before expiry a token is renewed (default 60 s)
   */
  constructor(
    private readonly obtain: () => Promise<{ value: string; expiresInSeconds: number }>,
    private readonly now: () => number = Date.now,
    private readonly marginSeconds = 60,
  ) {}

  /** A valid token, from the cache or newly obtained. @throws whatever `obtain` throws */
  async get(): Promise<string> {
    if (this.token && this.now() < this.token.expiresAt) return this.token.value;
    this.inflight ??= this.obtain()
      .then(({ value, expiresInSeconds }) => {
        const lifetimeMs = Math.max(0, expiresInSeconds - this.marginSeconds) * 1000;
        this.token = { value, expiresAt: this.now() + lifetimeMs };
        return value;
      })
      .finally(() => {
        this.inflight = undefined;
      });
    return this.inflight;
  }

  /** Forgets the cached token (after the provider answered 401 to it). */
  invalidate(): void {
    this.token = undefined;
  }
}
