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
import { maskSensitiveText } from '../logger';

/** The provider's answer could not be read (time-out, network, 5xx, undocumented body): it may have acted. */
export class ProviderUnknownAnswer extends Error {
  constructor(
    message: string,
    /** The HTTP status when one came, else undefined (time-out, connection refused). */
    readonly httpStatus?: number,
    /**
     * True when the request never reached the provider (docs/availability.md#classification): the connection was
     * refused or never made, the name did not resolve, or a gateway on the way answered 502 for it.
     */
    readonly neverReached = false,
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
  /** 5xx statuses the provider documents with a body the caller reads (M-Pesa's query: 500 while processing). */
  documented5xx?: readonly number[];
}

/**
 * A provider's HTTP answer with a status below 500: its status code, raw text and parsed JSON (undefined when not
 * JSON).
 */
export interface ProviderHttpResponse {
  status: number;
  text: string;
  json: unknown;
}

/** `fetch` as the adapters use it (tests may pass another). */
export type FetchLike = typeof fetch;

/**
 * Sends `request` and returns the answer when its status is below 500 (or one of `request.documented5xx`); the caller
 * maps 2xx and the provider's documented 4xx answers.
 * @throws ProviderUnknownAnswer on a time-out, a network error or another 5xx answer
 */
export async function providerHttp(
  request: ProviderHttpRequest,
  fetchImpl: FetchLike = fetch,
): Promise<ProviderHttpResponse> {
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  let body: string | undefined;
  if (request.body !== undefined) {
    body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/json';
  }
  let response: Response;
  let text: string;
  try {
    response = await fetchImpl(request.url, {
      method: request.method,
      headers,
      body,
      signal: AbortSignal.timeout(request.timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    const unreached = !timedOut && neverConnected(error);
    const reason = timedOut ? `no answer within ${request.timeoutMs} ms` : 'the connection failed';
    throw new ProviderUnknownAnswer(
      `${request.method} ${new URL(request.url).pathname}: ${reason}`,
      undefined,
      unreached,
    );
  }
  if (response.status >= 500 && !request.documented5xx?.includes(response.status))
    throw new ProviderUnknownAnswer(
      `${request.method} ${new URL(request.url).pathname} answered ${response.status}`,
      response.status,
      response.status === 502,
    );
  let json: unknown;
  try {
    json = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json };
}

/** Node's error codes of a connection that was never made: nothing of the request left us. */
const NEVER_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** True when `error` (fetch's, or its `cause`) says the connection was never made (see {@link NEVER_CONNECTED}). */
function neverConnected(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth += 1) {
    const code = (e as Error & { code?: unknown }).code;
    if (typeof code === 'string' && NEVER_CONNECTED.has(code)) return true;
  }
  return false;
}

/**
 * `value` parsed with `schema`, the provider's documented answer.
 * @throws ProviderUnknownAnswer when it does not match (an undocumented answer is never read as a success or a refusal)
 */
export function documentedAnswer<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new ProviderUnknownAnswer(
      `${what}: the answer does not match the provider's documented schema (${mismatchOf(parsed.error.issues, value)})`,
    );
  return parsed.data;
}

/** Keys whose values are never quoted in a mismatch: they may hold credentials. */
const CREDENTIAL_KEY = /token|secret|key|passw|auth|signature|hash/i;

/**
 * What did not match, for the message: up to 3 fields with what came in their place, e.g.
 * `status: "APPROVED"` or `amount: missing`; a text is quoted to 40 characters, an object or an
 * array named only, a field that may hold a credential not quoted.
 */
function mismatchOf(issues: readonly { path: readonly PropertyKey[] }[], value: unknown): string {
  const fields = issues.slice(0, 3).map((issue) => {
    const path = issue.path.map(String);
    let found: unknown = value;
    for (const key of path)
      found = found !== null && typeof found === 'object' ? (found as Record<string, unknown>)[key] : undefined;
    const name = path.join('.') || 'the body';
    if (path.some((key) => CREDENTIAL_KEY.test(key))) return `${name}: not as documented`;
    if (found === undefined) return `${name}: missing`;
    if (found === null || typeof found === 'number' || typeof found === 'boolean') return `${name}: ${String(found)}`;
    if (typeof found === 'string')
      return `${name}: ${JSON.stringify(found.length > 40 ? `${found.slice(0, 40)}…` : found)}`;
    return `${name}: ${Array.isArray(found) ? 'an array' : 'an object'}`;
  });
  return `${fields.join('; ')}${issues.length > 3 ? `; ${issues.length - 3} more` : ''}`;
}

/**
 * Longest provider failure cause kept in a payment's `failure_message` and the logs, in characters
 * (docs/providers.md#adapters).
 */
export const PROVIDER_CAUSE_MAX_LENGTH = 300;

/**
 * Credentials a provider's or a library's error text may carry, with their replacements (besides those of
 * `maskSensitiveText`).
 */
const CREDENTIAL_TEXT: readonly [RegExp, string][] = [
  // First the credentials after an HTTP scheme, so `Authorization: Bearer <token>` loses the token, not only the word
  // Bearer.
  [/\b(Bearer|Basic)\s+[^\s"',;]+/gi, '$1 [redacted]'],
  [
    /\b((?:access_|refresh_)?token|[a-z_]*secret|api[-_]?key|subscription[-_]?key|password|authorization|signature|hash)(["']?\s*[:=]\s*["']?)[^\s"',;&}]+/gi,
    '$1$2[redacted]',
  ],
  // Long opaque strings (keys, tokens, signatures); ids such as UUIDs are shorter.
  [/[A-Za-z0-9+=_-]{40,}/g, '[redacted]'],
];

/**
 * What a failed provider call said, fit to keep in a payment's `failure_message` and in the logs:
 * the error's message on one line, credentials redacted (Bearer and Basic credentials, keys,
 * tokens, secrets, signatures, long opaque strings; phone numbers masked), at most
 * {@link PROVIDER_CAUSE_MAX_LENGTH} characters. Our adapters' messages name the call, the HTTP
 * status and what did not match, never a whole body.
 */
export function providerFailureCause(error: unknown): string {
  const message = error instanceof Error ? `${error.message}` : String(error);
  let text = message.slice(0, PROVIDER_CAUSE_MAX_LENGTH * 4).replace(/\p{Cc}+/gu, ' ');
  for (const [pattern, replacement] of CREDENTIAL_TEXT) text = text.replace(pattern, replacement);
  text = maskSensitiveText(text).replace(/\s+/g, ' ').trim();
  if (text.length === 0) return error instanceof Error ? error.name : 'no message';
  return text.length > PROVIDER_CAUSE_MAX_LENGTH ? `${text.slice(0, PROVIDER_CAUSE_MAX_LENGTH - 1)}…` : text;
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

/**
 * Sends `send(token)` with a token from `tokens`; when the provider answers 401, forgets the token and sends once
 * more with a new one (nothing was done under a refused token).
 * @returns the first answer that is not 401
 * @throws what `refusedTwice()` makes when the new token is refused too; whatever `tokens.get` or `send` throws
 */
export async function sendWithToken(
  tokens: TokenCache,
  send: (token: string) => Promise<ProviderHttpResponse>,
  refusedTwice: () => Error,
): Promise<ProviderHttpResponse> {
  for (let attempt = 1; ; attempt += 1) {
    const response = await send(await tokens.get());
    if (response.status !== 401) return response;
    tokens.invalidate();
    if (attempt === 2) throw refusedTwice();
  }
}

/**
 * A provider refused our credentials, or our access token twice: a configuration fault, retried like an unknown
 * answer. Each provider's client names its own subclass (the error's `name` is the subclass's).
 */
export class ProviderAuthenticationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** How {@link createTokenClient} obtains a provider's token and how the provider refuses. */
export interface TokenClientOptions {
  /**
   * The token request: `path` may carry a query (left out of error messages); the answer is {@link accessTokenAnswer}.
   */
  tokenRequest: { method: 'GET' | 'POST'; path: string; headers?: Record<string, string>; body?: unknown };
  /** Whether the token request's status is a token (anything else is a refusal). */
  granted: (status: number) => boolean;
  /** The error of a refused token request, from its HTTP status. */
  refused: (status: number) => Error;
  /** The error of a call whose new token was refused too (401 twice); `what` is `METHOD /path`. */
  refusedTwice: (what: string) => Error;
  /** 5xx statuses the provider documents on its calls (see {@link ProviderHttpRequest}). */
  documented5xx?: readonly number[];
}

/** A provider's client authorised by a cached Bearer token (MoMo, Airtel, Daraja). */
export interface TokenClient {
  /**
   * A valid access token, from the cache or newly obtained.
   * @throws what `refused` makes (credentials refused), ProviderUnknownAnswer (no answer, undocumented body)
   */
  token(): Promise<string>;
  /**
   * One call with `authorization: Bearer <token>` then `headers`. A 401 forgets the token and sends once more with
   * a new one (nothing was done under a refused token).
   * @throws ProviderUnknownAnswer (time-out, network, 5xx), what `refused`/`refusedTwice` make
   */
  send(
    method: 'GET' | 'POST',
    path: string,
    headers: Record<string, string>,
    body: unknown,
  ): Promise<ProviderHttpResponse>;
}

/**
 * The Bearer-token client of the provider at `settings.baseUrl` (every call, the token's included, timed out after
 * `settings.timeoutMs` milliseconds): the token cache (clock `now`), the token request of `options` and the retry
 * after a 401.
 */
export function createTokenClient(
  settings: { baseUrl: string; timeoutMs: number },
  fetchImpl: FetchLike,
  now: () => Date,
  options: TokenClientOptions,
): TokenClient {
  const { tokenRequest } = options;
  const { timeoutMs } = settings;
  const baseUrl = settings.baseUrl.replace(/\/+$/, '');
  const tokens = new TokenCache(
    async () => {
      const { path, ...request } = tokenRequest;
      const response = await providerHttp({ ...request, url: `${baseUrl}${path}`, timeoutMs }, fetchImpl);
      if (!options.granted(response.status)) throw options.refused(response.status);
      const what = `${tokenRequest.method} ${path.split('?')[0]}`;
      const answer = documentedAnswer(accessTokenAnswer, response.json, what);
      return { value: answer.access_token, expiresInSeconds: answer.expires_in };
    },
    () => now().getTime(),
  );
  return {
    token: () => tokens.get(),
    send(method, path, headers, body) {
      return sendWithToken(
        tokens,
        (token) =>
          providerHttp(
            {
              method,
              url: `${baseUrl}${path}`,
              headers: { authorization: `Bearer ${token}`, ...headers },
              body,
              timeoutMs,
              ...(options.documented5xx ? { documented5xx: options.documented5xx } : {}),
            },
            fetchImpl,
          ),
        () => options.refusedTwice(`${method} ${path}`),
      );
    },
  };
}

/**
 * An OAuth-style token answer as MoMo and Airtel give it: `{access_token, token_type?, expires_in}`, `expires_in` in
 * seconds, a number or a string of digits (Airtel documents "180").
 */
export const accessTokenAnswer = z.object({
  access_token: z.string().min(1),
  token_type: z.string().optional(),
  expires_in: z
    .union([z.number(), z.string().regex(/^[0-9]+$/)])
    .transform(Number)
    .pipe(z.number().int().positive()),
});
