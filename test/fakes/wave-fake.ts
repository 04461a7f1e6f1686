/**
 * A fake of Wave's Checkout API and webhooks, written from Wave's public documentation (docs.wave.com/checkout,
 * docs.wave.com/webhook; docs/providers.md#wave-wave): `Authorization: Bearer <API key>` (401 `no-matching-api-key`
 * otherwise), checkout sessions created, retrieved, searched by `client_reference`, expired and refunded, errors as
 * `{code, message}`, and the events `checkout.session.completed` and `checkout.session.payment_failed` posted to the
 * registered webhook URL with `Wave-Signature: t=…,v1=<hex HMAC-SHA256 of timestamp + body>`.
 *
 * The customer is played by the number the session is restricted to (`restrict_payer_mobile`), by its last four
 * digits ({@link WAVE_FAKE_NUMBERS}); any other number pays after `approvalDelayMs`. A failed attempt leaves the
 * session open (the customer may try again) until it expires ({@link WaveFake.lapse}). Faults: the next requests
 * answered 500, never answered, answered 200 with an undocumented body, or 404 by a gateway.
 *
 * Payouts (docs.wave.com/payout): `POST /v1/payout` with an `idempotency-key` (the same key answers the same payout
 * again, never a second one), `GET /v1/payouts/search?client_reference=…`; the recipient is played by the number's last
 * four digits ({@link WAVE_FAKE_PAYEES}).
 *
 * Where Wave's pages name no error code (an expiry of a session that is not open), the fake answers a 4xx with
 * Wave's error shape and the code `checkout-session-not-open`, and the adapter reads any such 4xx alike.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type http from 'node:http';
import { type FakeFaultKind, FaultQueue, SentLog } from './faults';
import { FakeTimers, startFakeServer, type FakeIncoming } from './server';

/** Numbers by their last four digits; any other number pays. */
export const WAVE_FAKE_NUMBERS = {
  /** The attempt fails with `insufficient-funds`; the session stays open. */
  insufficient: '0001',
  /** The attempt fails with `blocked-account`; the session stays open. */
  blocked: '0002',
  /** Never pays: the session stays open until it lapses. */
  silent: '9999',
} as const;

/** Payout recipients by their last four digits; any other number is paid at once. */
export const WAVE_FAKE_PAYEES = {
  /** Our business wallet lacks the money: the payout fails with `insufficient-funds`. */
  ourBalance: '0001',
  /** The recipient's wallet is blocked: `recipient-account-blocked`. */
  blocked: '0002',
  /** Stays `processing`. */
  slow: '9999',
} as const;

/** A payout as the fake holds it (Wave's fields). */
export interface WavePayout {
  id: string;
  currency: string;
  receive_amount: string;
  fee: string;
  mobile: string;
  client_reference: string | null;
  payment_reason: string | null;
  status: 'processing' | 'succeeded' | 'failed' | 'reversed';
  payout_error: { error_code: string; error_message: string } | null;
  timestamp: string;
}

/** The fields `POST /v1/payout` documents; any other is refused (400 `request-validation-error`). */
const PAYOUT_FIELDS: ReadonlySet<string> = new Set([
  'currency',
  'receive_amount',
  'mobile',
  'name',
  'national_id',
  'client_reference',
  'payment_reason',
  'aggregated_merchant_id',
]);

/** The `last_payment_error` of the numbers above. */
const FAILURES: Readonly<Record<string, { code: string; message: string }>> = {
  [WAVE_FAKE_NUMBERS.insufficient]: { code: 'insufficient-funds', message: 'The payer does not have enough funds' },
  [WAVE_FAKE_NUMBERS.blocked]: { code: 'blocked-account', message: "The payer's account is blocked" },
};

/** The fields `POST /v1/checkout/sessions` documents; any other is refused (400 `request-validation-error`). */
const SESSION_FIELDS: ReadonlySet<string> = new Set([
  'amount',
  'currency',
  'client_reference',
  'restrict_payer_mobile',
  'success_url',
  'error_url',
  'aggregated_merchant_id',
]);

/** How the fake sends events: once per change, never, or twice (the same event repeated). */
export type WaveWebhookMode = 'once' | 'off' | 'twice';

/** Start options; every one has a default. */
export interface WaveFakeOptions {
  apiKey?: string;
  webhookSecret?: string;
  /** Where events go (the URL registered in the Business Portal); none: no events. */
  webhookUrl?: string;
  /** How long the customer takes to pay, in milliseconds (default 100). */
  approvalDelayMs?: number;
  webhooks?: WaveWebhookMode;
}

/** A checkout session as the fake holds it (Wave's fields). */
export interface WaveSession {
  id: string;
  amount: string;
  currency: string;
  checkout_status: 'open' | 'complete' | 'expired';
  payment_status: 'processing' | 'cancelled' | 'succeeded';
  client_reference: string | null;
  restrict_payer_mobile: string | null;
  last_payment_error: { code: string; message: string } | null;
  transaction_id: string | null;
  business_name: string;
  success_url: string;
  error_url: string;
  wave_launch_url: string;
  when_created: string;
  when_expires: string;
  when_completed: string | null;
  /** Not Wave's: whether the session's payment was refunded. */
  refunded: boolean;
}

/** One request the fake got. */
export interface WaveRequest {
  method: string;
  path: string;
  query: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

/** One event the fake sent: its raw body, signature and what the receiver answered. */
export interface WaveSentEvent {
  body: string;
  signature: string;
  status?: number;
  error?: string;
}

/** A running fake. */
export interface WaveFake {
  /** `http://127.0.0.1:{port}`: the adapter's `baseUrl`. */
  url: string;
  apiKey: string;
  webhookSecret: string;
  requests: WaveRequest[];
  /** Every session the fake opened (a faulted answer included), in order. */
  sessions: WaveSession[];
  /** Every payout the fake took (a faulted answer included), in order. */
  payouts: WavePayout[];
  events: WaveSentEvent[];
  setMode(mode: { webhooks?: WaveWebhookMode; webhookUrl?: string }): void;
  /** The next `count` requests whose path starts with one of `paths` (default: all) get `kind`. */
  injectFaults(kind: FakeFaultKind, count: number, paths?: string[]): void;
  /** The customer pays the open session `id` now. */
  pay(id: string): void;
  /** The open session `id` expires now, as at its `when_expires`. */
  lapse(id: string): void;
  /** Sends the event of session `id` (again), whatever the mode: a duplicate or a late event. */
  sendEvent(id: string, type?: string): Promise<WaveSentEvent>;
  /** Resolves once `count` events were sent (answered or not); rejects after `timeoutMs`. */
  waitForEvents(count: number, timeoutMs?: number): Promise<WaveSentEvent[]>;
  close(): Promise<void>;
}

type Answer = { status: number; body: unknown };

const SESSIONS_PATH = '/v1/checkout/sessions';

/** Wave's error answer. */
function error(status: number, code: string, message: string): Answer {
  return { status, body: { code, message } };
}

/** A session as Wave answers it (the fake's own `refunded` left out). */
function view(session: WaveSession): Omit<WaveSession, 'refunded'> {
  const { refunded: _, ...wave } = session;
  return wave;
}

/** Starts the fake on a free port of 127.0.0.1. */
export async function startWaveFake(options: WaveFakeOptions = {}): Promise<WaveFake> {
  const apiKey = options.apiKey ?? 'wave_sn_prod_fake-api-key';
  const webhookSecret = options.webhookSecret ?? 'wave_sn_WHS_fake-webhook-secret';
  let webhookUrl = options.webhookUrl;
  const approvalDelayMs = options.approvalDelayMs ?? 100;
  let webhookMode: WaveWebhookMode = options.webhooks ?? 'once';
  const requests: WaveRequest[] = [];
  const sessions: WaveSession[] = [];
  const payouts: WavePayout[] = [];
  const payoutsByKey = new Map<string, WavePayout>();
  const sent = new SentLog<WaveSentEvent>();
  const faults = new FaultQueue(() => false);
  const timers = new FakeTimers();

  const find = (id: string) => sessions.find((s) => s.id === id);

  async function sendEvent(session: WaveSession, type: string): Promise<WaveSentEvent> {
    const body = JSON.stringify({ id: `AE_${randomBytes(6).toString('hex')}`, type, data: view(session) });
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = `t=${timestamp},v1=${createHmac('sha256', webhookSecret).update(`${timestamp}${body}`).digest('hex')}`;
    let outcome: { status: number } | { error: string };
    try {
      const response = await fetch(webhookUrl ?? 'http://127.0.0.1:9/none', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'wave-signature': signature },
        body,
        signal: AbortSignal.timeout(5_000),
      });
      await response.arrayBuffer().catch(() => undefined);
      outcome = { status: response.status };
    } catch (reason) {
      outcome = { error: reason instanceof Error ? reason.message : String(reason) };
    }
    const noted = { body, signature, ...outcome };
    sent.note(noted);
    return noted;
  }

  function notify(session: WaveSession, type: string): void {
    if (webhookMode === 'off' || !webhookUrl) return;
    void sendEvent(session, type);
    if (webhookMode === 'twice') timers.later(50, () => void sendEvent(session, type));
  }

  function pay(session: WaveSession): void {
    if (session.checkout_status !== 'open') return;
    Object.assign(session, {
      checkout_status: 'complete',
      payment_status: 'succeeded',
      last_payment_error: null,
      transaction_id: `T_${randomBytes(6).toString('hex').toUpperCase()}`,
      when_completed: new Date().toISOString(),
    });
    notify(session, 'checkout.session.completed');
  }

  /** The customer's attempt, as the restricted number says. */
  function attempt(session: WaveSession): void {
    const last4 = (session.restrict_payer_mobile ?? '').slice(-4);
    if (last4 === WAVE_FAKE_NUMBERS.silent || session.checkout_status !== 'open') return;
    const failure = FAILURES[last4];
    if (!failure) return pay(session);
    Object.assign(session, { payment_status: 'cancelled', last_payment_error: failure });
    notify(session, 'checkout.session.payment_failed');
  }

  function create(body: unknown): Answer {
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return error(400, 'request-validation-error', 'The body must be a JSON object');
    const fields = body as Record<string, unknown>;
    const unknown = Object.keys(fields).find((key) => !SESSION_FIELDS.has(key));
    if (unknown) return error(400, 'request-validation-error', `Unknown field: ${unknown}`);
    if (fields.currency !== 'XOF') return error(400, 'request-validation-error', 'currency: not a supported currency');
    // XOF has no decimals: a whole, positive number of francs as a string.
    if (typeof fields.amount !== 'string' || !/^[1-9][0-9]*$/.test(fields.amount))
      return error(400, 'request-validation-error', 'amount: not a valid amount for XOF');
    for (const url of ['success_url', 'error_url']) {
      if (typeof fields[url] !== 'string' || !/^https:\/\//.test(fields[url] as string))
        return error(400, 'request-validation-error', `${url}: an https URL is required`);
    }
    const mobile = fields.restrict_payer_mobile;
    if (mobile !== undefined && (typeof mobile !== 'string' || !/^\+[1-9][0-9]{7,14}$/.test(mobile)))
      return error(400, 'request-validation-error', 'restrict_payer_mobile: not an E.164 number');
    const reference = fields.client_reference;
    if (reference !== undefined && (typeof reference !== 'string' || reference.length > 255))
      return error(400, 'request-validation-error', 'client_reference: at most 255 characters');
    const id = `cos-${randomBytes(8).toString('hex').slice(0, 13)}`;
    const now = Date.now();
    const session: WaveSession = {
      id,
      amount: fields.amount,
      currency: 'XOF',
      checkout_status: 'open',
      payment_status: 'processing',
      client_reference: (reference as string | undefined) ?? null,
      restrict_payer_mobile: (mobile as string | undefined) ?? null,
      last_payment_error: null,
      transaction_id: null,
      business_name: 'Paycollect Test',
      success_url: fields.success_url as string,
      error_url: fields.error_url as string,
      wave_launch_url: `https://pay.wave.com/c/${id}?a=${fields.amount}&c=XOF&m=Paycollect%20Test`,
      when_created: new Date(now).toISOString(),
      when_expires: new Date(now + 30 * 60_000).toISOString(),
      when_completed: null,
      refunded: false,
    };
    sessions.push(session);
    timers.later(approvalDelayMs, () => attempt(session));
    return { status: 200, body: view(session) };
  }

  function payout(body: unknown, key: string | undefined): Answer {
    if (!key) return error(400, 'request-validation-error', 'idempotency-key header is required');
    const earlier = payoutsByKey.get(key);
    if (earlier) return { status: 200, body: earlier };
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      return error(400, 'request-validation-error', 'The body must be a JSON object');
    const fields = body as Record<string, unknown>;
    const unknown = Object.keys(fields).find((field) => !PAYOUT_FIELDS.has(field));
    if (unknown) return error(400, 'request-validation-error', `Unknown field: ${unknown}`);
    if (fields.currency !== 'XOF') return error(400, 'request-validation-error', 'currency: not a supported currency');
    if (typeof fields.receive_amount !== 'string' || !/^[1-9][0-9]*$/.test(fields.receive_amount))
      return error(400, 'request-validation-error', 'receive_amount: not a valid amount for XOF');
    if (typeof fields.mobile !== 'string' || !/^\+[1-9][0-9]{7,14}$/.test(fields.mobile))
      return error(400, 'request-validation-error', 'mobile: not an E.164 number');
    const ending = fields.mobile.slice(-4);
    const failure =
      ending === WAVE_FAKE_PAYEES.ourBalance
        ? { error_code: 'insufficient-funds', error_message: 'Insufficient funds in the business wallet' }
        : ending === WAVE_FAKE_PAYEES.blocked
          ? { error_code: 'recipient-account-blocked', error_message: "The recipient's account is blocked" }
          : null;
    const created: WavePayout = {
      id: `pt-${randomBytes(8).toString('hex').slice(0, 13)}`,
      currency: 'XOF',
      receive_amount: fields.receive_amount,
      fee: '0',
      mobile: fields.mobile,
      client_reference: typeof fields.client_reference === 'string' ? fields.client_reference : null,
      payment_reason: typeof fields.payment_reason === 'string' ? fields.payment_reason : null,
      status: failure ? 'failed' : ending === WAVE_FAKE_PAYEES.slow ? 'processing' : 'succeeded',
      payout_error: failure,
      timestamp: new Date().toISOString(),
    };
    payouts.push(created);
    payoutsByKey.set(key, created);
    return { status: 200, body: created };
  }

  function handle(request: FakeIncoming): Answer {
    requests.push({
      method: request.method,
      path: request.path,
      query: request.query.toString(),
      headers: request.headers,
      body: request.body,
    });
    if (!request.headers.authorization)
      return error(401, 'missing-auth-header', 'Your request should include an HTTP auth header');
    if (request.headers.authorization !== `Bearer ${apiKey}`)
      return error(401, 'no-matching-api-key', "The key you provided doesn't exist in our system");
    if (request.method === 'POST' && request.path === SESSIONS_PATH) return create(request.body);
    if (request.method === 'POST' && request.path === '/v1/payout') {
      const key = request.headers['idempotency-key'];
      return payout(request.body, Array.isArray(key) ? key[0] : key);
    }
    if (request.method === 'GET' && request.path === '/v1/payouts/search') {
      const reference = request.query.get('client_reference');
      if (!reference) return error(400, 'request-validation-error', 'client_reference is required');
      return { status: 200, body: { result: payouts.filter((p) => p.client_reference === reference) } };
    }
    if (request.method === 'GET' && request.path === `${SESSIONS_PATH}/search`) {
      const reference = request.query.get('client_reference');
      if (!reference) return error(400, 'request-validation-error', 'client_reference is required');
      return { status: 200, body: { result: sessions.filter((s) => s.client_reference === reference).map(view) } };
    }
    const match = /^\/v1\/checkout\/sessions\/([^/]+)(\/expire|\/refund)?$/.exec(request.path);
    const session = match ? find(match[1] as string) : undefined;
    if (!match) return error(404, 'not-found', 'No such endpoint');
    if (!session) return error(404, 'checkout-session-not-found', 'The checkout session was not found');
    if (request.method === 'GET' && !match[2]) return { status: 200, body: view(session) };
    if (request.method === 'POST' && match[2] === '/expire') {
      if (session.checkout_status !== 'open')
        return error(409, 'checkout-session-not-open', 'Only an open checkout session can be expired');
      Object.assign(session, { checkout_status: 'expired', when_completed: new Date().toISOString() });
      return { status: 200, body: view(session) };
    }
    if (request.method === 'POST' && match[2] === '/refund') {
      if (session.payment_status !== 'succeeded' || session.refunded)
        return error(400, 'checkout-refund-failed', 'The checkout session cannot be refunded');
      session.refunded = true;
      return { status: 200, body: {} };
    }
    return error(405, 'method-not-allowed', 'Method not allowed');
  }

  const server = await startFakeServer({
    faults,
    timers,
    replacements: {
      error500: error(500, 'internal-server-error', 'Internal server error'),
      undocumented: { ok: true },
    },
    handle,
  });

  return {
    url: server.url,
    apiKey,
    webhookSecret,
    requests,
    sessions,
    payouts,
    events: sent.sent,
    setMode(mode) {
      if (mode.webhooks) webhookMode = mode.webhooks;
      if (mode.webhookUrl) webhookUrl = mode.webhookUrl;
    },
    injectFaults: (kind, count, paths) => faults.inject(kind, count, paths),
    pay(id) {
      const session = find(id);
      if (session) pay(session);
    },
    lapse(id) {
      const session = find(id);
      if (session?.checkout_status !== 'open') return;
      Object.assign(session, { checkout_status: 'expired', when_completed: new Date().toISOString() });
    },
    async sendEvent(id, type) {
      const session = find(id);
      if (!session) throw new Error(`the fake has no session ${id}`);
      return sendEvent(
        session,
        type ??
          (session.payment_status === 'succeeded' ? 'checkout.session.completed' : 'checkout.session.payment_failed'),
      );
    },
    waitForEvents: (count, timeoutMs = 5_000) => sent.waitFor(count, timeoutMs),
    close: () => server.close(),
  };
}
