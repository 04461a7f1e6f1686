/**
 * A fake of MTN MoMo's Collection API (the documented subset the `momo` adapter uses): a real
 * node:http server on 127.0.0.1, usable by URL alone (a separately started service is pointed at
 * `fake.url`; callbacks go to each request's `X-Callback-Url`). Tests steer it through the
 * TypeScript API below or, from another process, through `POST /_fake/mode`, `POST /_fake/faults`,
 * `POST /_fake/requesttopay/{referenceId}` `{status, reason?}` and `GET /_fake/requesttopay`.
 *
 * Endpoints, headers and answers as MTN documents them:
 * - every call: a missing or wrong `Ocp-Apim-Subscription-Key` → 401 `{statusCode, message}` (the
 *   API gateway's answer);
 * - `POST /collection/token/`: HTTP Basic apiUser:apiKey, no body (a body → 400) →
 *   `{access_token, token_type: "access_token", expires_in}`; wrong credentials → 401 `{error}`;
 * - `POST /collection/v1_0/requesttopay`, `GET /collection/v1_0/requesttopay/{referenceId}`: a
 *   missing, unknown or expired Bearer token → 401; no `X-Target-Environment` → 400, an unknown one →
 *   500 NOT_ALLOWED_TARGET_ENVIRONMENT; an `X-Reference-Id` that is not a UUID v4 → 400, a repeated
 *   one → 409 RESOURCE_ALREADY_EXIST; a bad body (amount not a decimal string with the currency's
 *   decimals, another currency than the environment's → 400 INVALID_CURRENCY, texts empty or over 160
 *   characters or with an apostrophe, payer not MSISDN digits) → 400; accepted → 202 with no body;
 *   an unknown reference → 404 RESOURCE_NOT_FOUND; the status → 200 `{amount, currency,
 *   financialTransactionId (once SUCCESSFUL), externalId, payer, payerMessage, payeeNote, status, reason?}`.
 *
 * The payer's number decides, by its last six digits as in MTN's sandbox numbers
 * ({@link MOMO_FAKE_NUMBERS}, so `+250788123452` behaves as 46733123452); any other number succeeds
 * after `approvalDelayMs`. When a request settles, its result is sent (POST by default, or PUT:
 * MoMo says to allow both) to its `X-Callback-Url`, once, never or twice as the mode says.
 * Faults (`injectFaults`): the next N matching requests are handled (the fake acts), then answered
 * 500, never answered (a hang, until `close`), answered 200 with an undocumented body, or 404 by the
 * gateway. `decide` may also set a status MoMo does not document, for an undocumented answer.
 */
import { randomBytes, randomInt } from 'node:crypto';
import type http from 'node:http';
import { type FakeFaultKind, FaultQueue, SentLog } from './faults';
import { FakeTimers, postCallback, startFakeServer } from './server';

/** MTN's sandbox numbers (RequestToPay), by the last six digits that decide; any other number succeeds. */
export const MOMO_FAKE_NUMBERS = {
  /** 46733123450: FAILED, INTERNAL_PROCESSING_ERROR, after the approval delay. */
  failed: '123450',
  /** 46733123451: FAILED, APPROVAL_REJECTED. */
  rejected: '123451',
  /** 46733123452: FAILED, EXPIRED. */
  expired: '123452',
  /** 46733123453: PENDING for ever (the payer never answers); no callback. */
  ongoing: '123453',
  /** 46733123454: PENDING, then SUCCESSFUL after `delayedApprovalMs`. */
  delayed: '123454',
  /** 46733123455: FAILED, PAYER_NOT_FOUND. */
  notFound: '123455',
} as const;

/** MoMo's request-to-pay statuses. */
export type FakeStatus = 'PENDING' | 'SUCCESSFUL' | 'FAILED';

/** A failure reason as MoMo sends it: a string (today) or `{code, message}` (the swagger's form). */
export type FakeReason = string | { code: string; message?: string };

/** How the fake calls back: once per settlement, never, or twice (the same callback repeated). */
export type FakeCallbackMode = 'once' | 'off' | 'twice';

export type { FakeFaultKind } from './faults';

/** Start options; every one has a default. */
export interface MomoFakeOptions {
  apiUser?: string;
  apiKey?: string;
  subscriptionKey?: string;
  /**
   * The target environments served, with the one currency each takes (default: sandbox EUR, mtnrwanda RWF, mtnuganda
   * UGX, mtnghana GHS).
   */
  environments?: Record<string, string>;
  /** Lifetime of issued tokens, in seconds (MoMo: 3600). */
  tokenLifetimeSeconds?: number;
  /** How long a request waits for the payer before it settles, in milliseconds (default 100). */
  approvalDelayMs?: number;
  /** When the "delayed" number succeeds, in milliseconds (default 1000). */
  delayedApprovalMs?: number;
  callbacks?: FakeCallbackMode;
  /** The callbacks' HTTP method (default POST). */
  callbackMethod?: 'POST' | 'PUT';
  /** Port to listen on (default: a free one). */
  port?: number;
}

/** One request the fake got (the token endpoint's too). */
export interface FakeRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body, and its JSON when it parsed. */
  raw: string;
  body: unknown;
}

/** A request-to-pay as the fake holds it; `amount` as sent (a decimal string in major units). */
export interface FakeRequestToPay {
  referenceId: string;
  environment: string;
  amount: string;
  currency: string;
  externalId: string;
  payer: { partyIdType: string; partyId: string };
  payerMessage: string;
  payeeNote: string;
  status: FakeStatus;
  reason: FakeReason | null;
  /** Set once SUCCESSFUL. */
  financialTransactionId: string | null;
  callbackUrl: string | null;
}

/** One callback the fake sent: where, how, its raw body and what the receiver answered. */
export interface SentCallback {
  url: string;
  method: string;
  body: string;
  status?: number;
  error?: string;
}

/** A running fake. */
export interface MomoFake {
  /** `http://127.0.0.1:{port}`: the adapter's `baseUrl`. */
  url: string;
  requests: FakeRequest[];
  transactions: ReadonlyMap<string, FakeRequestToPay>;
  callbacks: SentCallback[];
  /** Tokens issued so far. */
  readonly tokensIssued: number;
  /** Changes how it calls back. */
  setMode(mode: { callbacks?: FakeCallbackMode; callbackMethod?: 'POST' | 'PUT' }): void;
  /**
   * The next `count` requests whose path starts with one of `paths` (default: every API path but the token's) get
   * `kind`.
   */
  injectFaults(kind: FakeFaultKind, count: number, paths?: string[]): void;
  /** Expires every issued token now (the next API call with one answers 401). */
  expireTokens(): void;
  /** Settles (or re-opens, with PENDING) a request by hand and calls back as the mode says. */
  decide(referenceId: string, status: FakeStatus, reason?: FakeReason): void;
  /** Resolves once `count` callbacks were sent (answered or not); rejects after `timeoutMs`. */
  waitForCallbacks(count: number, timeoutMs?: number): Promise<SentCallback[]>;
  close(): Promise<void>;
}

/** Minor-unit exponent of the currencies the fake knows (others: 2). */
const DECIMALS: Readonly<Record<string, number>> = { RWF: 0, UGX: 0, EUR: 2, GHS: 2 };

/** A UUID v4 (version nibble 4, RFC 4122 variant), as MoMo requires for X-Reference-Id. */
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

const TOKEN_PATH = '/collection/token/';
const REQUEST_TO_PAY_PATH = '/collection/v1_0/requesttopay';

interface Answer {
  status: number;
  body: unknown;
}

/** MoMo's error answer `{code, message}` (a `message` alone when MoMo gives no code). */
function error(status: number, message: string, code?: string): Answer {
  return { status, body: code ? { code, message } : { message } };
}

/** True when `amount` is a positive decimal string with at most `decimals` decimals. */
function isAmount(amount: unknown, decimals: number): amount is string {
  if (typeof amount !== 'string') return false;
  const match = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/.exec(amount);
  if (!match) return false;
  if ((match[2] ?? '').length > decimals) return false;
  return Number(amount) > 0;
}

/** True when `text` is a payerMessage/payeeNote MoMo takes: 1 to 160 characters, no apostrophe. */
function isText(text: unknown): text is string {
  return typeof text === 'string' && text.trim().length > 0 && text.length <= 160 && !/['\u2019]/.test(text);
}

/** Starts the fake on 127.0.0.1 (see the module's comment). */
export async function startMomoFake(options: MomoFakeOptions = {}): Promise<MomoFake> {
  const apiUser = options.apiUser ?? '0b6bd5f4-5b1e-4c9f-9d3e-2d1c8f0a7e11';
  const apiKey = options.apiKey ?? 'momo-api-key';
  const subscriptionKey = options.subscriptionKey ?? 'momo-subscription-key';
  const environments = options.environments ?? { sandbox: 'EUR', mtnrwanda: 'RWF', mtnuganda: 'UGX', mtnghana: 'GHS' };
  const tokenLifetimeSeconds = options.tokenLifetimeSeconds ?? 3600;
  const approvalDelayMs = options.approvalDelayMs ?? 100;
  const delayedApprovalMs = options.delayedApprovalMs ?? 1_000;
  let callbackMode: FakeCallbackMode = options.callbacks ?? 'once';
  let callbackMethod: 'POST' | 'PUT' = options.callbackMethod ?? 'POST';

  const requests: FakeRequest[] = [];
  const transactions = new Map<string, FakeRequestToPay>();
  const tokens = new Map<string, number>();
  const sentCallbacks = new SentLog<SentCallback>();
  const faults = new FaultQueue((path) => path.startsWith('/collection/token'));
  const timers = new FakeTimers();
  let tokensIssued = 0;

  const noteCallback = (sent: SentCallback) => sentCallbacks.note(sent);

  /** The documented result body of `transaction` (the status answer and the callback body). */
  function resultOf(transaction: FakeRequestToPay): Record<string, unknown> {
    return {
      amount: transaction.amount,
      currency: transaction.currency,
      ...(transaction.financialTransactionId ? { financialTransactionId: transaction.financialTransactionId } : {}),
      externalId: transaction.externalId,
      payer: transaction.payer,
      payerMessage: transaction.payerMessage,
      payeeNote: transaction.payeeNote,
      status: transaction.status,
      ...(transaction.reason !== null ? { reason: transaction.reason } : {}),
    };
  }

  /** Sends the callback of a settled `transaction` to its X-Callback-Url, as the mode says. */
  function callBack(transaction: FakeRequestToPay): void {
    if (callbackMode === 'off' || !transaction.callbackUrl) return;
    const url = transaction.callbackUrl;
    const method = callbackMethod;
    const raw = JSON.stringify(resultOf(transaction));
    const send = () =>
      void postCallback(url, raw, method).then((came) => noteCallback({ url, method, body: raw, ...came }));
    send();
    if (callbackMode === 'twice') timers.later(50, send);
  }

  function decide(transaction: FakeRequestToPay, status: FakeStatus, reason?: FakeReason): void {
    transaction.status = status;
    transaction.reason = status === 'FAILED' ? (reason ?? null) : null;
    if (status === 'SUCCESSFUL') transaction.financialTransactionId ??= String(randomInt(100_000_000, 999_999_999));
    if (status !== 'PENDING') callBack(transaction);
  }

  /** What the payer's number does when the request is made. */
  function scheduleDecision(transaction: FakeRequestToPay): void {
    const suffix = transaction.payer.partyId.slice(-6);
    const failures: Record<string, string> = {
      [MOMO_FAKE_NUMBERS.failed]: 'INTERNAL_PROCESSING_ERROR',
      [MOMO_FAKE_NUMBERS.rejected]: 'APPROVAL_REJECTED',
      [MOMO_FAKE_NUMBERS.expired]: 'EXPIRED',
      [MOMO_FAKE_NUMBERS.notFound]: 'PAYER_NOT_FOUND',
    };
    if (suffix === MOMO_FAKE_NUMBERS.ongoing) return;
    const delay = suffix === MOMO_FAKE_NUMBERS.delayed ? delayedApprovalMs : approvalDelayMs;
    timers.later(delay, () => {
      if (transaction.status !== 'PENDING') return;
      const reason = failures[suffix];
      if (reason) decide(transaction, 'FAILED', reason);
      else decide(transaction, 'SUCCESSFUL');
    });
  }

  /** Checks the API gateway's subscription key. */
  function checkSubscription(headers: http.IncomingHttpHeaders): Answer | undefined {
    const key = headers['ocp-apim-subscription-key'];
    if (typeof key !== 'string' || key === '') {
      return {
        status: 401,
        body: {
          statusCode: 401,
          message:
            'Access denied due to missing subscription key. Make sure to include subscription key when making requests to an API.',
        },
      };
    }
    if (key !== subscriptionKey) {
      return {
        status: 401,
        body: {
          statusCode: 401,
          message:
            'Access denied due to invalid subscription key. Make sure to provide a valid key for an active subscription.',
        },
      };
    }
    return undefined;
  }

  function issueToken(headers: http.IncomingHttpHeaders, raw: string): Answer {
    if (raw.length > 0) return error(400, 'The token request takes no body.');
    const expected = `Basic ${Buffer.from(`${apiUser}:${apiKey}`).toString('base64')}`;
    if (headers.authorization !== expected) return { status: 401, body: { error: 'login_failed' } };
    const token = randomBytes(24).toString('base64url');
    tokens.set(token, Date.now() + tokenLifetimeSeconds * 1000);
    tokensIssued += 1;
    return { status: 200, body: { access_token: token, token_type: 'access_token', expires_in: tokenLifetimeSeconds } };
  }

  /** Checks the Bearer token and X-Target-Environment; the environment when they are right. */
  function authorise(headers: http.IncomingHttpHeaders): { environment: string } | Answer {
    const match = /^Bearer (\S+)$/.exec(headers.authorization ?? '');
    const expiresAt = match ? tokens.get(match[1] as string) : undefined;
    if (expiresAt === undefined || expiresAt <= Date.now())
      return { status: 401, body: { statusCode: 401, message: 'Access token is missing, invalid or expired.' } };
    const environment = headers['x-target-environment'];
    if (typeof environment !== 'string' || environment === '') return error(400, 'X-Target-Environment is required.');
    if (!Object.prototype.hasOwnProperty.call(environments, environment))
      return error(500, 'Access to target environment is forbidden.', 'NOT_ALLOWED_TARGET_ENVIRONMENT');
    return { environment };
  }

  function requestToPay(environment: string, headers: http.IncomingHttpHeaders, body: unknown): Answer {
    const referenceId = headers['x-reference-id'];
    if (typeof referenceId !== 'string' || !UUID_V4.test(referenceId))
      return error(400, 'X-Reference-Id must be a UUID version 4.');
    const callbackUrl = headers['x-callback-url'];
    if (callbackUrl !== undefined) {
      if (typeof callbackUrl !== 'string' || !/^https?:\/\//.test(callbackUrl))
        return error(400, 'X-Callback-Url is not a valid URL.');
    }
    const key = referenceId.toLowerCase();
    if (transactions.has(key))
      return error(409, 'Duplicated reference id. Creation of resource failed.', 'RESOURCE_ALREADY_EXIST');
    const given = (body ?? {}) as Record<string, unknown>;
    const payer = (given.payer ?? {}) as Record<string, unknown>;
    const currency = environments[environment] as string;
    if (given.currency !== currency)
      return error(400, `Currency not supported: ${environment} takes ${currency}.`, 'INVALID_CURRENCY');
    if (!isAmount(given.amount, DECIMALS[currency] ?? 2))
      return error(400, "amount must be a positive decimal string with the currency's decimals.");
    if (typeof given.externalId !== 'string' || given.externalId === '') return error(400, 'externalId is required.');
    if (
      payer.partyIdType !== 'MSISDN' ||
      typeof payer.partyId !== 'string' ||
      !/^[1-9][0-9]{5,14}$/.test(payer.partyId)
    ) {
      return error(400, 'payer must be an MSISDN of digits, with its country code and no +.');
    }
    if (!isText(given.payerMessage) || !isText(given.payeeNote))
      return error(400, 'payerMessage and payeeNote take 1 to 160 characters, without special characters.');
    const transaction: FakeRequestToPay = {
      referenceId: key,
      environment,
      amount: given.amount,
      currency,
      externalId: given.externalId,
      payer: { partyIdType: 'MSISDN', partyId: payer.partyId },
      payerMessage: given.payerMessage,
      payeeNote: given.payeeNote,
      status: 'PENDING',
      reason: null,
      financialTransactionId: null,
      callbackUrl: typeof callbackUrl === 'string' ? callbackUrl : null,
    };
    transactions.set(key, transaction);
    scheduleDecision(transaction);
    return { status: 202, body: undefined };
  }

  function status(environment: string, referenceId: string): Answer {
    const transaction = transactions.get(referenceId.toLowerCase());
    if (!transaction || transaction.environment !== environment)
      return error(404, 'Requested resource was not found.', 'RESOURCE_NOT_FOUND');
    return { status: 200, body: resultOf(transaction) };
  }

  /** The control API for other processes (`/_fake/...`). */
  function control(method: string, path: string, body: unknown): Answer {
    const given = (body ?? {}) as Record<string, unknown>;
    if (method === 'POST' && path === '/_fake/mode') {
      fake.setMode(given as { callbacks?: FakeCallbackMode; callbackMethod?: 'POST' | 'PUT' });
      return { status: 204, body: undefined };
    }
    if (method === 'POST' && path === '/_fake/faults') {
      fake.injectFaults(given.kind as FakeFaultKind, Number(given.count ?? 1), given.paths as string[] | undefined);
      return { status: 204, body: undefined };
    }
    if (method === 'GET' && path === '/_fake/requesttopay') return { status: 200, body: [...transactions.values()] };
    const decided = /^\/_fake\/requesttopay\/([^/]+)$/.exec(path);
    if (method === 'POST' && decided) {
      const reference = decodeURIComponent(decided[1] as string);
      if (!transactions.has(reference.toLowerCase())) return error(404, 'no such request to pay', 'RESOURCE_NOT_FOUND');
      fake.decide(reference, given.status as FakeStatus, given.reason as FakeReason | undefined);
      return { status: 204, body: undefined };
    }
    return { status: 404, body: { error: 'no such control' } };
  }

  function route(method: string, path: string, headers: http.IncomingHttpHeaders, raw: string, body: unknown): Answer {
    if (path.startsWith('/_fake/')) return control(method, path, body);
    const isToken = method === 'POST' && (path === TOKEN_PATH || path === '/collection/token');
    const isRequestToPay = method === 'POST' && path === REQUEST_TO_PAY_PATH;
    const statusOf = method === 'GET' ? /^\/collection\/v1_0\/requesttopay\/([^/]+)$/.exec(path) : null;
    if (!isToken && !isRequestToPay && !statusOf)
      return { status: 404, body: { statusCode: 404, message: 'Resource not found' } };
    const refused = checkSubscription(headers);
    if (refused) return refused;
    if (isToken) return issueToken(headers, raw);
    const auth = authorise(headers);
    if (!('environment' in auth)) return auth;
    if (isRequestToPay) return requestToPay(auth.environment, headers, body);
    return status(auth.environment, decodeURIComponent((statusOf as RegExpExecArray)[1] as string));
  }

  const server = await startFakeServer({
    port: options.port,
    faults,
    timers,
    replacements: {
      error500: error(500, 'Internal server error', 'INTERNAL_PROCESSING_ERROR'),
      undocumented: { result: 'OK', note: 'not a MoMo answer' },
    },
    handle({ method, path, headers, raw, body }) {
      requests.push({ method, path, headers, raw, body });
      return route(method, path, headers, raw, body);
    },
  });

  const fake: MomoFake = {
    url: server.url,
    requests,
    transactions,
    callbacks: sentCallbacks.sent,
    get tokensIssued() {
      return tokensIssued;
    },
    setMode(mode) {
      if (mode.callbacks) callbackMode = mode.callbacks;
      if (mode.callbackMethod) callbackMethod = mode.callbackMethod;
    },
    injectFaults(kind, count, paths) {
      faults.inject(kind, count, paths);
    },
    expireTokens() {
      for (const token of tokens.keys()) tokens.set(token, 0);
    },
    decide(referenceId, status, reason) {
      const transaction = transactions.get(referenceId.toLowerCase());
      if (!transaction) throw new Error(`the fake has no request to pay ${referenceId}`);
      decide(transaction, status, reason);
    },
    waitForCallbacks(count, timeoutMs = 5_000) {
      return sentCallbacks.waitFor(count, timeoutMs);
    },
    close: () => server.close(),
  };
  return fake;
}
