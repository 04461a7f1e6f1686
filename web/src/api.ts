/**
 * The dashboard's only way to the service: the public `/v1` API with the developer's session token
 * (README.md#dashboard). The token lives in sessionStorage (gone with the tab); an answer 401 to a request that
 * carried it means it expired or was revoked, so it is dropped and the app sends the developer to
 * sign in again. Errors keep what the API said: status, code, message and field details (docs/api.md#errors).
 */

/** The two environments of every resource (docs/api.md#merchants-and-environments). */
export type Environment = 'sandbox' | 'live';

/** A field problem of a `validation_error` (docs/api.md#errors). */
export interface FieldProblem {
  field: string;
  message: string;
}

/** An error answer of the API, as it came. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: FieldProblem[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const TOKEN_KEY = 'paycollect.session';

/** The stored session: the token and when it expires (ISO 8601). */
interface StoredSession {
  token: string;
  expiresAt: string;
}

let onUnauthorized: (() => void) | undefined;

/** The session token, while there is one and it has not expired. */
export function sessionToken(): string | undefined {
  const raw = sessionStorage.getItem(TOKEN_KEY);
  if (!raw) return undefined;
  try {
    const stored = JSON.parse(raw) as StoredSession;
    if (Date.parse(stored.expiresAt) <= Date.now()) {
      sessionStorage.removeItem(TOKEN_KEY);
      return undefined;
    }
    return stored.token;
  } catch {
    sessionStorage.removeItem(TOKEN_KEY);
    return undefined;
  }
}

/** Keeps the token of a sign-in or sign-up for this tab. */
export function storeSession(token: string, expiresAt: string): void {
  sessionStorage.setItem(TOKEN_KEY, JSON.stringify({ token, expiresAt } satisfies StoredSession));
}

/** Forgets the token (sign out, expiry). */
export function clearSession(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

/** What to do when the API refuses the token (the app navigates to sign-in). */
export function setUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

/** Options of one call. */
export interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** A JSON body. */
  body?: unknown;
  /** Query parameters; undefined and empty values are left out. */
  query?: Record<string, string | number | undefined>;
  /** Sent as `?environment=` (the session token's environment, docs/api.md#credentials). */
  env?: Environment;
  /** Sent as `Idempotency-Key` on money operations (docs/payments.md#idempotency). */
  idempotencyKey?: string;
  /** Sign-in and sign-up carry no token. */
  anonymous?: boolean;
}

/** The URL of `path` with the query of `options`. */
export function apiUrl(path: string, options: Pick<CallOptions, 'query' | 'env'> = {}): string {
  const params = new URLSearchParams();
  if (options.env) params.set('environment', options.env);
  for (const [name, value] of Object.entries(options.query ?? {})) {
    if (value !== undefined && value !== '') params.set(name, String(value));
  }
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

/** The JSON of an answer's text, or null when it is empty or not JSON (a proxy's HTML page). */
function parseJson(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** Turns an error answer into an {@link ApiError}; a 401 to a signed-in request also signs out. */
export function toApiError(status: number, body: unknown, hadToken: boolean): ApiError {
  const error = (body as { error?: { code?: string; message?: string; details?: FieldProblem[] } } | null)?.error;
  if (status === 401 && hadToken) {
    clearSession();
    onUnauthorized?.();
  }
  if (error?.message) return new ApiError(status, error.code ?? 'error', error.message, error.details ?? []);
  return new ApiError(status, 'error', `the API answered ${status}`);
}

/**
 * Calls the API and returns the envelope's `data` (docs/api.md#errors).
 * @throws ApiError with the API's code, message and details
 */
export async function api<T>(path: string, options: CallOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const token = options.anonymous ? undefined : sessionToken();
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  let response: Response;
  try {
    response = await fetch(apiUrl(path, options), {
      method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
  } catch {
    throw new ApiError(0, 'network_error', 'the API could not be reached; check your connection and try again');
  }
  const text = await response.text();
  const body = parseJson(text);
  if (!response.ok) throw toApiError(response.status, body, token !== undefined);
  return (body as { data: T }).data;
}

/**
 * Downloads a file answer of the API (a settlement report's CSV, docs/ledger.md#csv) with the session token, keeping
 * its bytes as sent (the byte-order mark included) and the file name its `Content-Disposition` suggests.
 * @param fallbackName the name when the answer suggests none
 * @throws ApiError with the API's answer (400 naming the field, 404 …)
 */
export async function downloadFile(
  path: string,
  options: Pick<CallOptions, 'query' | 'env'>,
  fallbackName: string,
): Promise<{ blob: Blob; filename: string }> {
  const token = sessionToken();
  let response: Response;
  try {
    response = await fetch(apiUrl(path, options), { headers: token ? { authorization: `Bearer ${token}` } : {} });
  } catch {
    throw new ApiError(0, 'network_error', 'the API could not be reached; check your connection and try again');
  }
  if (!response.ok) throw toApiError(response.status, parseJson(await response.text()), token !== undefined);
  const suggested = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1];
  return { blob: await response.blob(), filename: suggested ?? fallbackName };
}

/**
 * Uploads a multipart form with progress (fetch cannot report upload progress; XMLHttpRequest can).
 * @param onProgress called with the share sent, 0 to 1
 * @param method `POST` (a new document) or `PUT` (a setting that takes a file, such as the branding's logo)
 * @throws ApiError with the API's answer (413 `file_too_large`, 400 `unsupported_file_type` …)
 */
export function upload<T>(
  path: string,
  form: FormData,
  onProgress: (share: number) => void,
  method: 'POST' | 'PUT' = 'POST',
): Promise<T> {
  return new Promise((resolve, reject) => {
    const token = sessionToken();
    const request = new XMLHttpRequest();
    request.open(method, path);
    if (token) request.setRequestHeader('authorization', `Bearer ${token}`);
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    request.onerror = () =>
      reject(new ApiError(0, 'network_error', 'the upload did not reach the API; check your connection and try again'));
    request.onload = () => {
      const body = parseJson(request.responseText);
      if (request.status >= 200 && request.status < 300) {
        onProgress(1);
        resolve((body as { data: T }).data);
      } else {
        reject(toApiError(request.status, body, token !== undefined));
      }
    };
    request.send(form);
  });
}

/** A fresh idempotency key for one money operation the developer confirmed (docs/payments.md#idempotency). */
export function newIdempotencyKey(): string {
  // getRandomValues works outside secure contexts too (randomUUID does not).
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('');
}
