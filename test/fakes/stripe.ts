/**
 * A stateful Stripe for tests, in front of stripe-mock.
 *
 * Why an overlay: stripe-mock is stateless by design. It checks every request against Stripe's
 * OpenAPI spec and answers a fixture, so a PaymentIntent it "created" is forgotten at once: a
 * retrieve of any id answers the same fixture (status `requires_payment_method`, even with a
 * `last_payment_error`), a cancel never sticks, idempotency keys are ignored and a refund list
 * never shows the refund just made. A payment cannot be followed to its end against it.
 *
 * So this fake forwards EVERY request to stripe-mock first (Stripe's own validation still applies:
 * an unknown or malformed parameter fails as it would at Stripe, and that answer is returned as
 * is), then overlays state on the answers it knows:
 * - `POST /v1/payment_intents`: a new `pi_…` with its own `client_secret`, keeping amount,
 *   currency, description and metadata; status `requires_payment_method`, no `last_payment_error`;
 *   below Stripe's minimum charge (USD/EUR 50, GBP 30 smallest units) 400 `amount_too_small`;
 * - `GET /v1/payment_intents/{id}` and `POST …/{id}/cancel`: that state (404 `resource_missing`
 *   for an id it never created; 400 `payment_intent_unexpected_state` for a cancel after success);
 * - `POST /v1/refunds`, `GET /v1/refunds?payment_intent=…`, `GET /v1/refunds/{id}`: refunds kept
 *   per PaymentIntent, capped at what was collected;
 * - `Idempotency-Key` on POSTs: the same key answers the stored answer again; with other
 *   parameters, 400 `idempotency_error` (as Stripe does, docs "Idempotent requests").
 *
 * Test controls, in process or over HTTP (`/__fake/…`, so a service started as another process
 * needs only the fake's URL as its Stripe API base URL):
 * - `confirm(pi, 'succeeded' | 'declined' | 'insufficient_funds')` plays Stripe.js confirming
 *   the card (`POST /__fake/payment_intents/{id}/confirm {outcome}`);
 * - webhooks: each state change sends its event (`payment_intent.succeeded`, `.payment_failed`,
 *   `.canceled`, `charge.refunded`) to the webhook URL, signed with the webhook secret
 *   (`Stripe.webhooks.generateTestHeaderString`); `callbacks` is `off`, `once` or `twice`
 *   (`POST /__fake/settings {callbacks?, webhook_url?, refund_status?}`);
 * - faults for the next N `/v1` requests (`POST /__fake/faults {count, kind}`): `error500`
 *   (nothing done, 500 `api_error`), `lost_answer` (done, then 500), `hang` (no answer until closed);
 * - `beforeNext(method, path, action)` changes state just before a request (a race staged in process);
 * - every `/v1` request is recorded with its `Idempotency-Key` (`GET /__fake/requests`).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { randomBase62 } from '../../src/domain/ids';
import { STRIPE_API_VERSION } from '../../src/providers/stripe/adapter';

/** How a confirmation ends: a success, a generic decline, or a decline for insufficient funds. */
export type ConfirmOutcome = 'succeeded' | 'declined' | 'insufficient_funds';
/** How many times each event is sent: never, once, or twice (a redelivery). */
export type CallbackMode = 'off' | 'once' | 'twice';
/** A fault for the next requests (see the header). */
export type FaultKind = 'error500' | 'lost_answer' | 'hang';
/** The status a newly created refund gets. */
export type RefundStatus = 'succeeded' | 'pending' | 'failed';

/** One `/v1` request as the fake received it; `params` is the form body (POST) or the query (GET), flattened. */
export interface RecordedStripeRequest {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  params: Record<string, string>;
}

/** A Stripe object as JSON. */
export type StripeJson = Record<string, unknown>;

/** Options: stripe-mock's URL, the webhook signing secret, where events go and how often. */
export interface FakeStripeOptions {
  /** stripe-mock's base URL, e.g. `http://127.0.0.1:12111`. */
  upstreamUrl: string;
  /** The signing secret of the webhook endpoint (`whsec_…`). */
  webhookSecret: string;
  /** Where events are POSTed; null = nowhere (default). */
  webhookUrl?: string | null;
  /** Default `once`. */
  callbacks?: CallbackMode;
}

/** A running fake (see the header). */
export interface FakeStripe {
  /** `http://127.0.0.1:{port}`: the Stripe API base URL to configure. */
  url: string;
  /** Every `/v1` request so far, in order. */
  requests: RecordedStripeRequest[];
  /** The PaymentIntent's state, or undefined when the fake never created it. */
  paymentIntent(id: string): StripeJson | undefined;
  /** The refunds of a PaymentIntent, oldest first. */
  refunds(paymentIntentId: string): StripeJson[];
  /** The account's balance transactions, oldest first (a test may change them to seed a difference). */
  balanceTransactions: StripeJson[];
  /**
   * Plays the customer's card confirmation (Stripe.js) and sends the event it causes.
   * @returns the HTTP status of each webhook delivery (0 when the connection failed)
   * @throws Error when the PaymentIntent is unknown or not waiting for a card
   */
  confirm(id: string, outcome: ConfirmOutcome): Promise<number[]>;
  /** Overwrites fields of a PaymentIntent (e.g. `{status: 'processing'}`), sending nothing. */
  setPaymentIntent(id: string, fields: StripeJson): void;
  /** Decides a refund left `pending`, sending `charge.refunded` when it succeeded. */
  settleRefund(id: string, status: 'succeeded' | 'failed', failureReason?: string): Promise<number[]>;
  /**
   * A signed event about `object`: the raw body and its `Stripe-Signature` (timestamp in seconds,
   * default now; another `secret` signs it wrongly).
   */
  signedEvent(
    type: string,
    object: StripeJson,
    options?: { timestamp?: number; secret?: string },
  ): { rawBody: string; signature: string };
  setCallbacks(mode: CallbackMode): void;
  setWebhookUrl(url: string | null): void;
  /** The status of the refunds created from now on (default `succeeded`). */
  setRefundStatus(status: RefundStatus): void;
  /** From now on every balance transaction page says there is more (a list that never ends). */
  setStatementPagesForever(on: boolean): void;
  /** Runs `action` just before the next `/v1` request `method path` is handled (to stage a race). */
  beforeNext(method: string, path: string, action: () => void): void;
  /** The next `count` `/v1` requests meet `kind`. */
  fail(count: number, kind: FaultKind): void;
  /** Resolves once every webhook delivery started so far has ended. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

const CANCELLABLE = ['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action'];

/**
 * Stripe's minimum charge amounts (docs "Supported currencies", minimum and maximum charge amounts), for the currencies
 * the tests use.
 */
const MINIMUM_AMOUNTS: Readonly<Record<string, number>> = { usd: 50, eur: 50, gbp: 30 };

function stripeError(status: number, error: StripeJson): { status: number; body: StripeJson } {
  return { status, body: { error } };
}

function notFound(kind: string, id: string, param: string) {
  return stripeError(404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    param,
    message: `No such ${kind}: '${id}'`,
  });
}

/** `metadata[key]=value` form fields as `{key: value}`. */
function metadataOf(params: Record<string, string>): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) {
    const match = /^metadata\[(.+)\]$/.exec(name);
    if (match) metadata[match[1] as string] = value;
  }
  return metadata;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Starts the fake on a free port of 127.0.0.1 in front of `options.upstreamUrl`. */
export async function startFakeStripe(options: FakeStripeOptions): Promise<FakeStripe> {
  const intents = new Map<string, StripeJson>();
  const refundsByIntent = new Map<string, StripeJson[]>();
  const refundsById = new Map<string, StripeJson>();
  // The account's balance transactions, oldest first: a charge when a PaymentIntent succeeds, a refund when one
  // succeeds.
  const balanceTransactions: StripeJson[] = [];
  let statementPagesForever = false;
  const idempotent = new Map<string, { route: string; body: string; status: number; answer: StripeJson }>();
  const requests: RecordedStripeRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  const deliveries = new Set<Promise<unknown>>();
  let callbacks: CallbackMode = options.callbacks ?? 'once';
  let webhookUrl = options.webhookUrl ?? null;
  let refundStatus: RefundStatus = 'succeeded';
  const faults: FaultKind[] = [];
  const staged: { method: string; path: string; action: () => void }[] = [];
  const now = () => Math.floor(Date.now() / 1000);
  const newId = (prefix: string) => prefix + randomBase62(24, randomBytes);

  function signedEvent(type: string, object: StripeJson, signing: { timestamp?: number; secret?: string } = {}) {
    const event = {
      id: newId('evt_'),
      object: 'event',
      api_version: STRIPE_API_VERSION,
      created: now(),
      data: { object },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
    const rawBody = JSON.stringify(event);
    const signature = Stripe.webhooks.generateTestHeaderString({
      payload: rawBody,
      secret: signing.secret ?? options.webhookSecret,
      timestamp: signing.timestamp,
    });
    return { rawBody, signature };
  }

  /** Sends `type` about `object` as the callback mode says; resolves with each delivery's status. */
  function emit(type: string, object: StripeJson): Promise<number[]> {
    const times = callbacks === 'off' || !webhookUrl ? 0 : callbacks === 'twice' ? 2 : 1;
    const target = webhookUrl;
    const { rawBody, signature } = signedEvent(type, structuredClone(object));
    const run = (async () => {
      const statuses: number[] = [];
      for (let i = 0; i < times && target; i += 1) {
        try {
          const response = await fetch(target, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'stripe-signature': signature },
            body: rawBody,
            signal: AbortSignal.timeout(10_000),
          });
          await response.arrayBuffer();
          statuses.push(response.status);
        } catch {
          statuses.push(0);
        }
      }
      return statuses;
    })();
    deliveries.add(run);
    void run.finally(() => deliveries.delete(run));
    return run;
  }

  function chargeOf(intent: StripeJson): StripeJson {
    const refunded = (refundsByIntent.get(intent.id as string) ?? []).filter(
      (r) => r.status !== 'failed' && r.status !== 'canceled',
    );
    const amountRefunded = refunded.reduce((sum, r) => sum + (r.amount as number), 0);
    return {
      id: intent.latest_charge,
      object: 'charge',
      amount: intent.amount,
      amount_captured: intent.amount,
      amount_refunded: amountRefunded,
      currency: intent.currency,
      payment_intent: intent.id,
      refunded: amountRefunded >= (intent.amount as number),
      status: 'succeeded',
    };
  }

  /** Records a balance transaction of `amount` (negative for a refund) with Stripe's fee on charges (2.9 %). */
  function recordBalanceTransaction(
    type: 'charge' | 'refund',
    source: string,
    amount: number,
    currency: unknown,
  ): void {
    const fee = type === 'charge' ? Math.round(amount * 0.029) : 0;
    balanceTransactions.push({
      id: newId('txn_'),
      object: 'balance_transaction',
      amount,
      currency,
      fee,
      net: amount - fee,
      type,
      reporting_category: type,
      source,
      status: 'pending',
      created: now(),
      available_on: now() + 2 * 86_400,
    });
  }

  /** `GET /v1/balance_transactions`: newest first, `created[gte|lt]`, cursor, `expand[]=data.source`. */
  function listBalanceTransactions(params: Record<string, string>): StripeJson {
    const gte = params['created[gte]'] !== undefined ? Number(params['created[gte]']) : -Infinity;
    const lt = params['created[lt]'] !== undefined ? Number(params['created[lt]']) : Infinity;
    let list = balanceTransactions.filter((t) => (t.created as number) >= gte && (t.created as number) < lt).reverse();
    if (params.starting_after && !statementPagesForever)
      list = list.slice(list.findIndex((t) => t.id === params.starting_after) + 1);
    const limit = Number(params.limit ?? 10);
    const expand = Object.entries(params).some(([key, value]) => key.startsWith('expand') && value === 'data.source');
    const page = list.slice(0, limit).map((t) => {
      if (!expand) return t;
      const source = t.source as string;
      const intent = [...intents.values()].find((i) => i.latest_charge === source);
      return { ...t, source: intent ? chargeOf(intent) : (refundsById.get(source) ?? source) };
    });
    return {
      object: 'list',
      url: '/v1/balance_transactions',
      has_more: statementPagesForever || list.length > limit,
      data: page,
    };
  }

  function refundedSoFar(intentId: string): number {
    return (refundsByIntent.get(intentId) ?? [])
      .filter((r) => r.status !== 'failed' && r.status !== 'canceled')
      .reduce((sum, r) => sum + (r.amount as number), 0);
  }

  /** The overlaid answer to a request stripe-mock accepted; undefined = stripe-mock's answer stands. */
  function overlay(
    method: string,
    path: string,
    params: Record<string, string>,
    upstream: StripeJson,
  ): { status: number; body: StripeJson } | undefined {
    const segments = path.split('/').filter(Boolean); // ['v1', 'payment_intents', id?, action?]
    if (segments[1] === 'payment_intents') {
      const id = segments[2];
      if (method === 'POST' && !id) {
        const minimum = MINIMUM_AMOUNTS[params.currency ?? ''];
        if (minimum !== undefined && Number(params.amount) < minimum) {
          return stripeError(400, {
            type: 'invalid_request_error',
            code: 'amount_too_small',
            param: 'amount',
            message: `Amount must be at least ${minimum} ${String(params.currency)} (smallest unit)`,
          });
        }
        const intentId = newId('pi_');
        const intent: StripeJson = {
          ...upstream,
          id: intentId,
          client_secret: `${intentId}_secret_${randomBase62(25, randomBytes)}`,
          amount: Number(params.amount),
          currency: params.currency,
          description: params.description ?? null,
          metadata: metadataOf(params),
          status: 'requires_payment_method',
          last_payment_error: null,
          cancellation_reason: null,
          canceled_at: null,
          created: now(),
          latest_charge: null,
          amount_received: 0,
          next_action: null,
          processing: null,
          livemode: false,
        };
        intents.set(intentId, intent);
        return { status: 200, body: intent };
      }
      if (!id) return undefined;
      const intent = intents.get(id);
      if (!intent) return notFound('payment_intent', id, 'intent');
      if (method === 'GET' && segments.length === 3) return { status: 200, body: intent };
      if (method === 'POST' && segments[3] === 'cancel') {
        if (!CANCELLABLE.includes(intent.status as string)) {
          return stripeError(400, {
            type: 'invalid_request_error',
            code: 'payment_intent_unexpected_state',
            message: `You cannot cancel this PaymentIntent because it has a status of ${String(intent.status)}. Only a PaymentIntent with one of the following statuses may be canceled: ${CANCELLABLE.join(', ')}.`,
            payment_intent: intent,
          });
        }
        Object.assign(intent, {
          status: 'canceled',
          cancellation_reason: params.cancellation_reason ?? null,
          canceled_at: now(),
        });
        void emit('payment_intent.canceled', intent);
        return { status: 200, body: intent };
      }
      return undefined;
    }
    if (segments[1] === 'balance_transactions' && method === 'GET' && !segments[2])
      return { status: 200, body: listBalanceTransactions(params) };
    if (segments[1] === 'refunds') {
      const id = segments[2];
      if (method === 'POST' && !id) {
        const intentId = params.payment_intent;
        if (!intentId) return undefined;
        const intent = intents.get(intentId);
        if (!intent) return notFound('payment_intent', intentId, 'payment_intent');
        if (intent.status !== 'succeeded') {
          return stripeError(400, {
            type: 'invalid_request_error',
            code: 'payment_intent_unexpected_state',
            message: `This PaymentIntent (${intentId}) does not have a successful charge to refund.`,
          });
        }
        const left = (intent.amount as number) - refundedSoFar(intentId);
        if (left <= 0)
          return stripeError(400, {
            type: 'invalid_request_error',
            code: 'charge_already_refunded',
            message: `Charge ${String(intent.latest_charge)} has already been refunded.`,
          });
        const amount = params.amount !== undefined ? Number(params.amount) : left;
        if (amount > left) {
          return stripeError(400, {
            type: 'invalid_request_error',
            code: 'amount_too_large',
            param: 'amount',
            message: `Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`,
          });
        }
        const refund: StripeJson = {
          ...upstream,
          id: newId('re_'),
          amount,
          currency: intent.currency,
          charge: intent.latest_charge,
          payment_intent: intentId,
          metadata: metadataOf(params),
          status: refundStatus,
          failure_reason: refundStatus === 'failed' ? 'declined' : null,
          created: now(),
        };
        refundsById.set(refund.id as string, refund);
        refundsByIntent.set(intentId, [...(refundsByIntent.get(intentId) ?? []), refund]);
        if (refundStatus === 'succeeded') {
          recordBalanceTransaction('refund', refund.id as string, -amount, intent.currency);
          void emit('charge.refunded', chargeOf(intent));
        }
        return { status: 200, body: refund };
      }
      if (method === 'GET' && id) {
        const refund = refundsById.get(id);
        return refund ? { status: 200, body: refund } : notFound('refund', id, 'id');
      }
      if (method === 'GET' && params.payment_intent) {
        if (!intents.has(params.payment_intent))
          return notFound('payment_intent', params.payment_intent, 'payment_intent');
        let list = [...(refundsByIntent.get(params.payment_intent) ?? [])].reverse(); // newest first
        if (params.starting_after) list = list.slice(list.findIndex((r) => r.id === params.starting_after) + 1);
        const limit = Number(params.limit ?? 10);
        return {
          status: 200,
          body: { object: 'list', url: '/v1/refunds', has_more: list.length > limit, data: list.slice(0, limit) },
        };
      }
    }
    return undefined;
  }

  async function handleApi(req: http.IncomingMessage, res: http.ServerResponse, rawBody: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    const params = Object.fromEntries(new URLSearchParams(method === 'GET' ? url.search : rawBody));
    const idempotencyKey =
      typeof req.headers['idempotency-key'] === 'string' ? req.headers['idempotency-key'] : undefined;
    requests.push({ method, path: url.pathname + url.search, idempotencyKey, params });
    const send = (status: number, body: StripeJson) => {
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': newId('req_') });
      res.end(JSON.stringify(body));
    };

    const stagedIndex = staged.findIndex((s) => s.method === method && s.path === url.pathname);
    if (stagedIndex >= 0) staged.splice(stagedIndex, 1)[0]?.action();

    const fault = faults.shift();
    if (fault === 'hang') {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return;
    }
    if (fault === 'error500')
      return send(500, { error: { type: 'api_error', message: '(fake) An unknown error occurred' } });

    const route = `${method} ${url.pathname}`;
    if (method === 'POST' && idempotencyKey) {
      const stored = idempotent.get(idempotencyKey);
      if (stored) {
        if (stored.route !== route || stored.body !== rawBody) {
          return send(400, {
            error: {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
            },
          });
        }
        return fault === 'lost_answer'
          ? send(500, { error: { type: 'api_error', message: '(fake) answer lost' } })
          : send(stored.status, stored.answer);
      }
    }

    const headers: Record<string, string> = {
      'content-type': req.headers['content-type'] ?? 'application/x-www-form-urlencoded',
    };
    if (req.headers.authorization) headers.authorization = req.headers.authorization;
    if (typeof req.headers['stripe-version'] === 'string') headers['stripe-version'] = req.headers['stripe-version'];
    const upstream = await fetch(new URL(url.pathname + url.search, options.upstreamUrl), {
      method,
      headers,
      body: method === 'GET' || method === 'DELETE' ? undefined : rawBody,
    });
    const upstreamBody = (await upstream.json()) as StripeJson;
    if (!upstream.ok) return send(upstream.status, upstreamBody);

    const answer = overlay(method, url.pathname, params, upstreamBody) ?? {
      status: upstream.status,
      body: upstreamBody,
    };
    if (method === 'POST' && idempotencyKey)
      idempotent.set(idempotencyKey, {
        route,
        body: rawBody,
        status: answer.status,
        answer: structuredClone(answer.body),
      });
    if (fault === 'lost_answer') return send(500, { error: { type: 'api_error', message: '(fake) answer lost' } });
    send(answer.status, answer.body);
  }

  async function handleControl(req: http.IncomingMessage, res: http.ServerResponse, rawBody: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = rawBody ? (JSON.parse(rawBody) as StripeJson) : {};
    const send = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    const confirmMatch = /^\/__fake\/payment_intents\/([^/]+)\/confirm$/.exec(url.pathname);
    if (req.method === 'POST' && confirmMatch)
      return send(200, { deliveries: await fake.confirm(confirmMatch[1] as string, body.outcome as ConfirmOutcome) });
    if (req.method === 'POST' && url.pathname === '/__fake/settings') {
      if (body.callbacks !== undefined) callbacks = body.callbacks as CallbackMode;
      if (body.webhook_url !== undefined) webhookUrl = body.webhook_url as string | null;
      if (body.refund_status !== undefined) refundStatus = body.refund_status as RefundStatus;
      if (body.statement_pages_forever !== undefined) statementPagesForever = Boolean(body.statement_pages_forever);
      return send(200, { callbacks, webhook_url: webhookUrl, refund_status: refundStatus });
    }
    if (req.method === 'POST' && url.pathname === '/__fake/faults') {
      fake.fail(Number(body.count), body.kind as FaultKind);
      return send(200, { pending: faults.length });
    }
    if (req.method === 'GET' && url.pathname === '/__fake/requests') return send(200, requests);
    send(404, { error: 'no such control' });
  }

  const server = http.createServer((req, res) => {
    void (async () => {
      const rawBody = await readBody(req);
      try {
        if ((req.url ?? '').startsWith('/__fake/')) await handleControl(req, res, rawBody);
        else await handleApi(req, res, rawBody);
      } catch (error) {
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            error: { type: 'api_error', message: `(fake) ${error instanceof Error ? error.message : String(error)}` },
          }),
        );
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const fake: FakeStripe = {
    url: `http://127.0.0.1:${port}`,
    requests,
    paymentIntent: (id) => intents.get(id),
    refunds: (paymentIntentId) => refundsByIntent.get(paymentIntentId) ?? [],
    balanceTransactions,
    async confirm(id, outcome) {
      const intent = intents.get(id);
      if (!intent) throw new Error(`the fake never created PaymentIntent ${id}`);
      if (intent.status !== 'requires_payment_method')
        throw new Error(`PaymentIntent ${id} is ${String(intent.status)}, not waiting for a card`);
      if (outcome === 'succeeded') {
        Object.assign(intent, {
          status: 'succeeded',
          amount_received: intent.amount,
          latest_charge: newId('ch_'),
          last_payment_error: null,
          payment_method: newId('pm_'),
        });
        recordBalanceTransaction('charge', intent.latest_charge as string, intent.amount as number, intent.currency);
        return emit('payment_intent.succeeded', intent);
      }
      const insufficient = outcome === 'insufficient_funds';
      Object.assign(intent, {
        status: 'requires_payment_method',
        last_payment_error: {
          type: 'card_error',
          code: 'card_declined',
          decline_code: insufficient ? 'insufficient_funds' : 'generic_decline',
          message: insufficient ? 'Your card has insufficient funds.' : 'Your card was declined.',
          charge: newId('ch_'),
        },
      });
      return emit('payment_intent.payment_failed', intent);
    },
    setPaymentIntent(id, fields) {
      const intent = intents.get(id);
      if (!intent) throw new Error(`the fake never created PaymentIntent ${id}`);
      Object.assign(intent, fields);
    },
    async settleRefund(id, status, failureReason) {
      const refund = refundsById.get(id);
      if (!refund) throw new Error(`the fake never created refund ${id}`);
      Object.assign(refund, { status, failure_reason: status === 'failed' ? (failureReason ?? 'declined') : null });
      const intent = intents.get(refund.payment_intent as string) as StripeJson;
      return status === 'succeeded' ? emit('charge.refunded', chargeOf(intent)) : [];
    },
    signedEvent,
    setCallbacks(mode) {
      callbacks = mode;
    },
    setWebhookUrl(url) {
      webhookUrl = url;
    },
    setStatementPagesForever(on) {
      statementPagesForever = on;
    },
    setRefundStatus(status) {
      refundStatus = status;
    },
    beforeNext(method, path, action) {
      staged.push({ method, path, action });
    },
    fail(count, kind) {
      for (let i = 0; i < count; i += 1) faults.push(kind);
    },
    async idle() {
      while (deliveries.size > 0) await Promise.allSettled([...deliveries]);
    },
    async close() {
      for (const res of hanging) res.destroy();
      await fake.idle();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}
