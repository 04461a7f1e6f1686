/**
 * A fake of Orange Money's Web Payment API (the documented subset the `orange` adapter uses: the OAuth token, the web
 * payment, the transaction status and the notification), a real node:http server on 127.0.0.1 usable by URL alone;
 * notifications go to each web payment's `notif_url`. Tests steer it through the TypeScript API below.
 *
 * Endpoints and answers as Orange documents them (developer.orange.com, "Orange Money Web Payment" getting started and
 * API reference), for one merchant account of one market (`dev` by default: Orange's sandbox, currency `OUV`):
 * - `POST /oauth/v3/token` with HTTP Basic clientId:clientSecret and the form body `grant_type=client_credentials` →
 *   200 `{token_type: "Bearer", access_token, expires_in: "7776000"}`; anything else → 401 `{error: "invalid_client",
 *   error_description}`;
 * - `POST /orange-money-webpay/{market}/v1/webpayment`: a missing, unknown or expired Bearer token → 401 `{code: 41 or
 *   42, message, description}`; a body with a field the page does not document, or a bad `merchant_key`, `currency`
 *   (`OUV` in `dev`, else the market's), `order_id`, `amount` (a positive whole number), `return_url`, `cancel_url`,
 *   `notif_url` (http or https URLs), `lang` (`fr`, `en`) or `reference` → 400 `{code, message, description}`; else
 *   201 `{status: 201, message: "OK", pay_token, payment_url, notif_token}`, the page at `payment_url`;
 * - `POST /orange-money-webpay/{market}/v1/transactionstatus` `{order_id, amount, pay_token}` (a pay token it did not
 *   make, or another order or amount → 400) → 201 `{status, order_id, txnid}`, `status` INITIATED until the customer
 *   confirms on the page, PENDING while Orange processes it, then SUCCESS or FAILED, or EXPIRED when nobody paid
 *   within the page's life (10 minutes at Orange; `pageLifetimeMs` here);
 * - the notification: once the payment is SUCCESS or FAILED, POST `{status, notif_token, txnid}` to `notif_url`.
 *
 * The customer is played by {@link OrangeFake.pay}: they confirm on the page (PENDING) and, after `approvalDelayMs`,
 * Orange decides (SUCCESS, or FAILED). Notifications are sent once, never or twice (`setMode`); `sendNotification`
 * sends one again, at any time (late notifications). Faults (`injectFaults`): the next N matching requests are handled
 * (the fake acts: a page is made), then answered 500, never answered (time-out after acting), answered 200 with an
 * undocumented body, or 404.
 */
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { type FakeFaultKind, FaultQueue, SentLog } from './faults';
import { FakeTimers, postCallback, startFakeServer, type FakeIncoming } from './server';

/** A Web Payment status. */
export type OrangeFakeStatus = 'INITIATED' | 'PENDING' | 'SUCCESS' | 'FAILED' | 'EXPIRED';

/** How the fake notifies: once per decided payment, never, or twice (the same notification repeated). */
export type OrangeNotificationMode = 'once' | 'off' | 'twice';

/** Start options; every one has a default. */
export interface OrangeFakeOptions {
  clientId?: string;
  clientSecret?: string;
  merchantKey?: string;
  /** The merchant account's market: `dev` (currency OUV), `sn`, `ci` (XOF) or `cm` (XAF). */
  market?: 'dev' | 'sn' | 'ci' | 'cm';
  /** Lifetime of issued tokens, in seconds (Orange: 7776000, 90 days). */
  tokenLifetimeSeconds?: number;
  /** How long Orange takes to decide once the customer confirmed, in milliseconds (default 100). */
  approvalDelayMs?: number;
  /** How long a page lives before it is EXPIRED, in milliseconds (default 10 minutes, as Orange). */
  pageLifetimeMs?: number;
  notifications?: OrangeNotificationMode;
}

/** A web payment (a payment page) as the fake holds it. */
export interface OrangePage {
  orderId: string;
  amount: number;
  currency: string;
  payToken: string;
  notifToken: string;
  paymentUrl: string;
  notifUrl: string;
  returnUrl: string;
  cancelUrl: string;
  lang: string;
  reference: string;
  status: OrangeFakeStatus;
  /** Orange Money's transaction id, once the customer confirmed. */
  txnid?: string;
  createdAt: number;
}

/** One request the fake received: path and JSON body (or raw text). */
export interface OrangeRequest {
  path: string;
  body: unknown;
}

/** A notification the fake sent, and what came of it. */
export type OrangeSentNotification = { url: string; body: string } & ({ status: number } | { error: string });

/** The running fake. */
export interface OrangeFake {
  /** `http://127.0.0.1:{port}`: the adapter's `baseUrl`. */
  url: string;
  clientId: string;
  clientSecret: string;
  merchantKey: string;
  market: string;
  requests: OrangeRequest[];
  /** Every page the fake made (a faulted answer included), in order. */
  pages: OrangePage[];
  notifications: OrangeSentNotification[];
  readonly tokensIssued: number;
  setMode(mode: { notifications?: OrangeNotificationMode }): void;
  /** The next `count` requests whose path starts with one of `paths` (default: all but the token's) get `kind`. */
  injectFaults(kind: FakeFaultKind, count: number, paths?: string[]): void;
  /** Expires every issued token now. */
  expireTokens(): void;
  /**
   * The customer confirms on the page `payToken` (PENDING); after `approvalDelayMs` Orange decides `outcome` and
   * notifies as the mode says. A page that is not INITIATED any more is left as it is.
   */
  pay(payToken: string, outcome?: 'SUCCESS' | 'FAILED'): void;
  /** The page made for `orderId` (the latest one), once there is one; rejects after `timeoutMs` (default 10 s). */
  pageFor(orderId: string, timeoutMs?: number): Promise<OrangePage>;
  /** Sends the notification of a decided page (again), whatever the mode: a duplicate or a late notification. */
  sendNotification(payToken: string): Promise<OrangeSentNotification>;
  /** Resolves once `count` notifications were sent (answered or not); rejects after `timeoutMs`. */
  waitForNotifications(count: number, timeoutMs?: number): Promise<OrangeSentNotification[]>;
  close(): Promise<void>;
}

export const ORANGE_TOKEN_PATH = '/oauth/v3/token';

/** The web payment's and the transaction status's paths for `market`. */
export const orangePaths = (market: string) => ({
  webPayment: `/orange-money-webpay/${market}/v1/webpayment`,
  transactionStatus: `/orange-money-webpay/${market}/v1/transactionstatus`,
});

/** The web payment's documented request fields; any other is refused. */
const WEB_PAYMENT_FIELDS = new Set([
  'merchant_key',
  'currency',
  'order_id',
  'amount',
  'return_url',
  'cancel_url',
  'notif_url',
  'lang',
  'reference',
]);
/** The transaction status's documented request fields; any other is refused. */
const STATUS_FIELDS = new Set(['order_id', 'amount', 'pay_token']);

const MARKET_CURRENCIES: Readonly<Record<string, string>> = { dev: 'OUV', sn: 'XOF', ci: 'XOF', cm: 'XAF' };

type Answer = { status: number; body: unknown };

/** Orange's error body. */
const error = (status: number, code: number, message: string, description: string): Answer => ({
  status,
  body: { code, message, description },
});

const isUrl = (value: unknown) => typeof value === 'string' && /^https?:\/\/[^\s]+$/.test(value);
const isText = (value: unknown, max: number) => typeof value === 'string' && value.length > 0 && value.length <= max;

/** Starts the fake (see the module's comment). */
export async function startOrangeFake(options: OrangeFakeOptions = {}): Promise<OrangeFake> {
  const clientId = options.clientId ?? 'orange-client-id';
  const clientSecret = options.clientSecret ?? 'orange-client-secret';
  const merchantKey = options.merchantKey ?? 'a1b2c3d4';
  const market = options.market ?? 'dev';
  const tokenLifetimeSeconds = options.tokenLifetimeSeconds ?? 7_776_000;
  const approvalDelayMs = options.approvalDelayMs ?? 100;
  const pageLifetimeMs = options.pageLifetimeMs ?? 600_000;
  let mode: OrangeNotificationMode = options.notifications ?? 'once';
  const paths = orangePaths(market);

  const requests: OrangeRequest[] = [];
  const pages: OrangePage[] = [];
  const tokens = new Map<string, number>();
  const sent = new SentLog<OrangeSentNotification>();
  const faults = new FaultQueue((path) => path.startsWith(ORANGE_TOKEN_PATH));
  const timers = new FakeTimers();
  let tokensIssued = 0;
  let baseUrl = '';

  /** `page`'s status now: an INITIATED page past its life is EXPIRED. */
  function current(page: OrangePage): OrangeFakeStatus {
    if (page.status === 'INITIATED' && Date.now() - page.createdAt >= pageLifetimeMs) page.status = 'EXPIRED';
    return page.status;
  }

  async function sendNotification(page: OrangePage): Promise<OrangeSentNotification> {
    const body = JSON.stringify({ status: page.status, notif_token: page.notifToken, txnid: page.txnid });
    const noted: OrangeSentNotification = { url: page.notifUrl, body, ...(await postCallback(page.notifUrl, body)) };
    sent.note(noted);
    return noted;
  }

  function issueToken(request: FakeIncoming): Answer {
    const expected = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
    const form = new URLSearchParams(request.raw);
    if (
      request.headers.authorization !== expected ||
      !String(request.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded') ||
      form.get('grant_type') !== 'client_credentials'
    )
      return {
        status: 401,
        body: { error: 'invalid_client', error_description: 'The requested service needs credentials' },
      };
    const token = randomBytes(20).toString('base64url');
    tokens.set(token, Date.now() + tokenLifetimeSeconds * 1000);
    tokensIssued += 1;
    return {
      status: 200,
      body: { token_type: 'Bearer', access_token: token, expires_in: String(tokenLifetimeSeconds) },
    };
  }

  /** The 401 of a missing, unknown or expired token, or undefined when the token is valid. */
  function unauthorised(headers: http.IncomingHttpHeaders): Answer | undefined {
    const match = /^Bearer (\S+)$/.exec(headers.authorization ?? '');
    const expiresAt = match ? tokens.get(match[1] as string) : undefined;
    if (expiresAt === undefined)
      return error(
        401,
        41,
        'Invalid credentials',
        'The requested service needs credentials, and the ones provided were invalid.',
      );
    if (expiresAt <= Date.now())
      return error(
        401,
        42,
        'Expired credentials',
        'The requested service needs credentials, but the ones provided were out-of-date.',
      );
    return undefined;
  }

  /** The first field of `body` the page does not document, or undefined. */
  const undocumented = (body: Record<string, unknown>, fields: ReadonlySet<string>) =>
    Object.keys(body).find((field) => !fields.has(field));

  function webPayment(body: Record<string, unknown>): Answer {
    const bad = (field: string) => error(400, 1, 'Bad request', `Invalid ${field}`);
    const extra = undocumented(body, WEB_PAYMENT_FIELDS);
    if (extra !== undefined) return bad(extra);
    if (body.merchant_key !== merchantKey) return bad('merchant_key');
    if (body.currency !== MARKET_CURRENCIES[market]) return bad('currency');
    if (!isText(body.order_id, 100)) return bad('order_id');
    if (typeof body.amount !== 'number' || !Number.isSafeInteger(body.amount) || body.amount <= 0) return bad('amount');
    for (const field of ['return_url', 'cancel_url', 'notif_url'] as const) if (!isUrl(body[field])) return bad(field);
    if (body.lang !== 'fr' && body.lang !== 'en') return bad('lang');
    if (!isText(body.reference, 30)) return bad('reference');
    const payToken = `v1${randomBytes(16).toString('hex')}`;
    const page: OrangePage = {
      orderId: body.order_id as string,
      amount: body.amount,
      currency: body.currency,
      payToken,
      notifToken: randomBytes(16).toString('hex'),
      paymentUrl: `${baseUrl}/payment/pay_token/${payToken}`,
      notifUrl: body.notif_url as string,
      returnUrl: body.return_url as string,
      cancelUrl: body.cancel_url as string,
      lang: body.lang,
      reference: body.reference as string,
      status: 'INITIATED',
      createdAt: Date.now(),
    };
    pages.push(page);
    return {
      status: 201,
      body: {
        status: 201,
        message: 'OK',
        pay_token: page.payToken,
        payment_url: page.paymentUrl,
        notif_token: page.notifToken,
      },
    };
  }

  function transactionStatus(body: Record<string, unknown>): Answer {
    const bad = (field: string) => error(400, 1, 'Bad request', `Invalid ${field}`);
    const extra = undocumented(body, STATUS_FIELDS);
    if (extra !== undefined) return bad(extra);
    const page = pages.find((p) => p.payToken === body.pay_token);
    if (!page) return bad('pay_token');
    if (page.orderId !== body.order_id) return bad('order_id');
    if (page.amount !== body.amount) return bad('amount');
    return { status: 201, body: { status: current(page), order_id: page.orderId, txnid: page.txnid } };
  }

  function handle(request: FakeIncoming): Answer {
    requests.push({ path: request.path, body: request.body ?? request.raw });
    if (request.method === 'POST' && request.path === ORANGE_TOKEN_PATH) return issueToken(request);
    if (request.method === 'GET' && request.path.startsWith('/payment/pay_token/'))
      return { status: 200, body: { page: 'Orange Money payment page' } };
    if (request.method !== 'POST' || (request.path !== paths.webPayment && request.path !== paths.transactionStatus))
      return error(404, 60, 'Resource not found', 'The requested URI or the requested resource does not exist.');
    const refused = unauthorised(request.headers);
    if (refused) return refused;
    if (typeof request.body !== 'object' || request.body === null || Array.isArray(request.body))
      return error(400, 1, 'Bad request', 'The body is not JSON');
    const body = request.body as Record<string, unknown>;
    return request.path === paths.webPayment ? webPayment(body) : transactionStatus(body);
  }

  const server = await startFakeServer({
    faults,
    timers,
    replacements: {
      error500: error(500, 1, 'Internal error', 'Internal server error'),
      undocumented: { result: 'ok' },
    },
    handle,
  });
  baseUrl = server.url;

  const byToken = (payToken: string) => {
    const page = pages.find((p) => p.payToken === payToken);
    if (!page) throw new Error(`the fake made no page ${payToken}`);
    return page;
  };

  return {
    url: server.url,
    clientId,
    clientSecret,
    merchantKey,
    market,
    requests,
    pages,
    notifications: sent.sent,
    get tokensIssued() {
      return tokensIssued;
    },
    setMode(next) {
      if (next.notifications) mode = next.notifications;
    },
    injectFaults: (kind, count, faultPaths) => faults.inject(kind, count, faultPaths),
    expireTokens() {
      for (const token of tokens.keys()) tokens.set(token, 0);
    },
    pay(payToken, outcome = 'SUCCESS') {
      const page = byToken(payToken);
      if (current(page) !== 'INITIATED') return;
      page.status = 'PENDING';
      page.txnid = `MP${new Date().toISOString().slice(2, 10).replace(/-/g, '')}.${randomBytes(4).toString('hex').toUpperCase()}`;
      timers.later(approvalDelayMs, () => {
        page.status = outcome;
        if (mode === 'off') return;
        void sendNotification(page);
        if (mode === 'twice') timers.later(50, () => void sendNotification(page));
      });
    },
    async pageFor(orderId, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const page = pages.filter((p) => p.orderId === orderId).at(-1);
        if (page) return page;
        if (Date.now() > until) throw new Error(`the fake made no page for ${orderId}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    sendNotification: async (payToken) => sendNotification(byToken(payToken)),
    waitForNotifications: (count, timeoutMs = 10_000) => sent.waitFor(count, timeoutMs),
    close: () => server.close(),
  };
}
