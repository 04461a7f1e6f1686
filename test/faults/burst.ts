/**
 * The fault suite's workload and its books: a burst of mixed merchant work sent
 * by clients that behave as a careful merchant's do, and the checks that, once everything has
 * settled, every payment is in the state its sandbox scenario implies, nothing was paid or refunded
 * twice, and every subscribed event reached the merchant's endpoint with a stable id.
 *
 * The burst: `ORDERS_PER_BURST` orders over `LANES` concurrent client lanes, cycling through
 * {@link KINDS} (sandbox numbers whose last four digits decide, docs/payments.md; bank transfers
 * cancelled; partial refunds of completed payments). Every POST carries an `Idempotency-Key`; a
 * connection error, a 5xx, a 429 or a 409 `conflict` (the same key still in progress) is retried
 * with the same key and body after a short back-off, as docs/payments.md#idempotency tells merchants to.
 */
import { expect } from 'chai';
import type { Db } from '../../src/db/knex';
import type { ReceivedRequest } from '../helpers/receiver';

/** Orders in one burst. */
export const ORDERS_PER_BURST = 44;
/** Concurrent client lanes; each sends its orders one after the other. */
const LANES = 6;
/** How long a client keeps retrying one request, in milliseconds. */
const REQUEST_DEADLINE_MS = 120_000;
/** One request's own time-out, in milliseconds (a hung connection counts as a connection error). */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * Settings of the API and worker processes under test: short sandbox delays, mobile money expiring
 * after 20 s (so `0003` and `0004` finish within the test), a 3 s create wait and idempotency lease
 * (a retry after a crash takes the claim over after 3 s, not 30), and the shared stack's rate
 * limits multiplied for one busy merchant.
 */
export const FAULT_SETTINGS: Record<string, string> = {
  RATE_LIMIT_MULTIPLIER: '1000',
  SANDBOX_APPROVAL_DELAY_MS: '1500',
  SANDBOX_BANK_TRANSFER_DELAY_MS: '600000',
  SANDBOX_REFUND_UNKNOWN_MS: '3000',
  EXPIRY_MOBILE_MONEY_SECONDS: '20',
  CREATE_WAIT_MS: '3000',
  IDEMPOTENCY_LEASE_MS: '3000',
  WORKER_METRICS_PORT: '0',
};

/** The events the merchant's endpoint subscribes to: every payment and refund event. */
export const SUBSCRIBED_EVENTS = [
  'payment.created',
  'payment.completed',
  'payment.failed',
  'payment.cancelled',
  'refund.completed',
  'refund.failed',
] as const;

/** One kind of order: how the payment is made, what the merchant does next, and what must come of it. */
interface Kind {
  name: string;
  /** Mobile money to a Rwandan number ending in these four digits, or a bank transfer. */
  method: { suffix: string } | 'bank_transfer';
  /** After creating: refund this much (minor units) once completed, or cancel at once. */
  then?: { refund: number } | 'cancel';
  /** The final payment status and its failure code; `reconciled` for a late success (docs/payments.md#states). */
  final: { status: string; failureCode?: string; reconciled?: boolean };
  /** The refund's final status for a refund order. */
  refundFinal?: 'completed' | 'failed';
  /** The payment's events, each once (docs/payments.md#events). */
  events: string[];
}

/** The order kinds of a burst, cycled (docs/payments.md, Sandbox scenarios). */
export const KINDS: readonly Kind[] = [
  {
    name: 'instant 0001 + refund',
    method: { suffix: '0001' },
    then: { refund: 500 },
    refundFinal: 'completed',
    final: { status: 'completed' },
    events: ['payment.created', 'payment.completed', 'refund.completed'],
  },
  {
    name: 'declined 0002',
    method: { suffix: '0002' },
    final: { status: 'failed', failureCode: 'declined' },
    events: ['payment.created', 'payment.failed'],
  },
  {
    name: 'no answer 0003',
    method: { suffix: '0003' },
    final: { status: 'failed', failureCode: 'expired' },
    events: ['payment.created', 'payment.failed'],
  },
  {
    name: 'late success 0004',
    method: { suffix: '0004' },
    final: { status: 'completed', reconciled: true },
    events: ['payment.created', 'payment.failed', 'payment.completed'],
  },
  {
    name: 'duplicate callbacks 0005 + refund',
    method: { suffix: '0005' },
    then: { refund: 300 },
    refundFinal: 'completed',
    final: { status: 'completed' },
    events: ['payment.created', 'payment.completed', 'refund.completed'],
  },
  {
    name: 'refunds refused 0006 + refund',
    method: { suffix: '0006' },
    then: { refund: 400 },
    refundFinal: 'failed',
    final: { status: 'completed' },
    events: ['payment.created', 'payment.completed', 'refund.failed'],
  },
  {
    name: 'refund answer unknown 0007 + refund',
    method: { suffix: '0007' },
    then: { refund: 600 },
    refundFinal: 'completed',
    final: { status: 'completed' },
    events: ['payment.created', 'payment.completed', 'refund.completed'],
  },
  {
    name: 'initiation time-out 0008',
    method: { suffix: '0008' },
    final: { status: 'completed' },
    events: ['payment.created', 'payment.completed'],
  },
  {
    name: 'approval 0042 + refund',
    method: { suffix: '0042' },
    then: { refund: 700 },
    refundFinal: 'completed',
    final: { status: 'completed' },
    events: ['payment.created', 'payment.completed', 'refund.completed'],
  },
  {
    name: 'bank transfer + cancel',
    method: 'bank_transfer',
    then: 'cancel',
    final: { status: 'cancelled' },
    events: ['payment.created', 'payment.cancelled'],
  },
  // The request cannot be withdrawn: the cancel is refused 409 and the customer's approval that
  // follows completes the payment (docs/payments.md#cancel-and-refund).
  {
    name: 'mobile money 0043 + cancel refused',
    method: { suffix: '0043' },
    then: 'cancel',
    final: { status: 'completed' },
    events: ['payment.created', 'payment.completed'],
  },
];

/** An answer the client settled on, after its retries. */
interface Answer {
  status: number;
  body: any;
  /** Attempts made (1 = no retry). */
  attempts: number;
}

/** One order of a burst and what the API answered to it. */
export interface Order {
  index: number;
  kind: Kind;
  key: string;
  paymentId?: string;
  amount: number;
  create?: Answer;
  action?: Answer;
}

/** What the clients went through: retries by cause, and every 5xx status seen. */
export interface ClientFigures {
  requests: number;
  connectionErrors: number;
  serverErrors: Record<string, number>;
  inProgress: number;
  rateLimited: number;
}

/** A running burst: `created(n)` resolves once `n` creates were answered; `done` once every order was. */
export interface Burst {
  orders: Order[];
  figures: ClientFigures;
  created(count: number): Promise<void>;
  done: Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends one request as a merchant's client would: retried with the same key and body on a
 * connection error, a time-out, a 5xx, a 429 (after its Retry-After) or a 409 `conflict` (the key's
 * first request still in progress), with back-off from 200 ms to 2 s, for up to two minutes.
 * @throws Error when no definite answer came within the deadline
 */
async function send(
  baseUrl: string,
  key: string,
  method: string,
  path: string,
  figures: ClientFigures,
  body?: unknown,
  idempotencyKey?: string,
): Promise<Answer> {
  const deadline = Date.now() + REQUEST_DEADLINE_MS;
  for (let attempt = 1; ; attempt += 1) {
    figures.requests += 1;
    let retryAfterMs = Math.min(200 * 2 ** (attempt - 1), 2000);
    try {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const parsed = (await response.json()) as any;
      if (response.status >= 500) {
        figures.serverErrors[`${response.status} ${parsed?.error?.code ?? ''}`.trim()] =
          (figures.serverErrors[`${response.status} ${parsed?.error?.code ?? ''}`.trim()] ?? 0) + 1;
      } else if (response.status === 429) {
        figures.rateLimited += 1;
        retryAfterMs = Number(response.headers.get('retry-after') ?? 1) * 1000;
      } else if (response.status === 409 && parsed?.error?.code === 'conflict') {
        figures.inProgress += 1;
      } else {
        return { status: response.status, body: parsed, attempts: attempt };
      }
    } catch {
      figures.connectionErrors += 1;
    }
    if (Date.now() + retryAfterMs > deadline)
      throw new Error(`${method} ${path} got no definite answer in ${REQUEST_DEADLINE_MS} ms`);
    await sleep(retryAfterMs);
  }
}

/** Polls the payment until `wanted` or a final status, retrying errors; returns the last status. */
async function waitForStatus(
  baseUrl: string,
  key: string,
  id: string,
  wanted: string,
  figures: ClientFigures,
): Promise<string> {
  const deadline = Date.now() + REQUEST_DEADLINE_MS;
  for (;;) {
    const answer = await send(baseUrl, key, 'GET', `/v1/payments/${id}`, figures);
    const status = answer.body?.data?.status as string;
    if (status === wanted || ['failed', 'cancelled', 'refunded'].includes(status) || Date.now() > deadline)
      return status;
    await sleep(250);
  }
}

/** The Rwandan MSISDN of order `index` ending in `suffix` (operator A: 078…). */
function phoneNumber(index: number, suffix: string): string {
  return `+250788${String(index % 100).padStart(2, '0')}${suffix}`;
}

/**
 * Starts a burst of {@link ORDERS_PER_BURST} orders against `baseUrl` with the secret key `key`;
 * `label` keeps the idempotency keys of different bursts apart.
 */
export function startBurst(baseUrl: string, key: string, label: string): Burst {
  const figures: ClientFigures = { requests: 0, connectionErrors: 0, serverErrors: {}, inProgress: 0, rateLimited: 0 };
  const orders: Order[] = Array.from({ length: ORDERS_PER_BURST }, (_, index) => ({
    index,
    kind: KINDS[index % KINDS.length] as Kind,
    key: `${label}-order-${index}`,
    amount: 2000 + index * 10,
  }));
  let createdCount = 0;
  const waiters: { count: number; resolve: () => void }[] = [];

  async function runOrder(order: Order): Promise<void> {
    const { kind } = order;
    const body =
      kind.method === 'bank_transfer'
        ? { amount: order.amount, currency: 'RWF', payment_method: 'bank_transfer', metadata: { order: order.key } }
        : {
            amount: order.amount,
            currency: 'RWF',
            payment_method: 'mobile_money',
            phone_number: phoneNumber(order.index, kind.method.suffix),
            metadata: { order: order.key },
          };
    order.create = await send(baseUrl, key, 'POST', '/v1/payments', figures, body, order.key);
    order.paymentId = order.create.body?.data?.id;
    createdCount += 1;
    for (const waiter of waiters.filter((w) => createdCount >= w.count)) waiter.resolve();
    if (!order.paymentId || !kind.then) return;
    if (kind.then === 'cancel') {
      order.action = await send(
        baseUrl,
        key,
        'POST',
        `/v1/payments/${order.paymentId}/cancel`,
        figures,
        { reason: 'customer changed their mind' },
        `${order.key}-cancel`,
      );
      return;
    }
    await waitForStatus(baseUrl, key, order.paymentId, 'completed', figures);
    order.action = await send(
      baseUrl,
      key,
      'POST',
      `/v1/payments/${order.paymentId}/refund`,
      figures,
      { amount: kind.then.refund, reason: 'partial return' },
      `${order.key}-refund`,
    );
  }

  const lanes = Array.from({ length: LANES }, async (_, lane) => {
    for (const order of orders.filter((o) => o.index % LANES === lane)) await runOrder(order);
  });
  return {
    orders,
    figures,
    created: (count) =>
      createdCount >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve })),
    done: Promise.all(lanes).then(() => undefined),
  };
}

/** One payment as the books hold it: ours, the provider ledger's, the refunds and the events. */
interface Books {
  payment: {
    id: string;
    status: string;
    amount: number;
    amount_refunded: number;
    failure_code: string | null;
    reconciled_at: Date | null;
    provider_reference: string | null;
  };
  /** The sandbox ledger's transactions for the payment (exactly one when all is well). */
  transactions: { provider_reference: string; status: string; settle_at: Date | null; refunded_amount: number }[];
  /** The ledger's refunds of the payment's transaction. */
  ledgerRefunds: { idempotency_key: string; amount: number; status: string; decide_at: Date | null }[];
  refunds: { id: string; status: string; amount: number; reason: string | null }[];
  events: { id: string; type: string }[];
}

/** Reads the books of every order's payment. */
async function readBooks(db: Db, orders: Order[]): Promise<Map<string, Books>> {
  const ids = orders.map((o) => o.paymentId).filter((id): id is string => typeof id === 'string');
  const payments = await db('payments')
    .whereIn('id', ids)
    .select('id', 'status', 'amount', 'amount_refunded', 'failure_code', 'reconciled_at', 'provider_reference');
  const transactions = await db('sandbox_provider_transactions')
    .whereIn('payment_id', ids)
    .select('payment_id', 'provider_reference', 'status', 'settle_at', 'refunded_amount');
  const ledgerRefunds = await db('sandbox_provider_refunds')
    .whereIn(
      'provider_reference',
      transactions.map((t: { provider_reference: string }) => t.provider_reference),
    )
    .select('provider_reference', 'idempotency_key', 'amount', 'status', 'decide_at');
  const refunds = await db('refunds')
    .whereIn('payment_id', ids)
    .select('id', 'payment_id', 'status', 'amount', 'reason');
  const events = await db('events').whereIn('object_id', ids).select('id', 'object_id', 'type');
  const books = new Map<string, Books>();
  for (const row of payments) {
    const mine = transactions
      .filter((t: { payment_id: string }) => t.payment_id === row.id)
      .map((t: any) => ({ ...t, refunded_amount: Number(t.refunded_amount) }));
    books.set(row.id, {
      payment: { ...row, amount: Number(row.amount), amount_refunded: Number(row.amount_refunded) },
      transactions: mine,
      ledgerRefunds: ledgerRefunds
        .filter((r: { provider_reference: string }) =>
          mine.some((t: { provider_reference: string }) => t.provider_reference === r.provider_reference),
        )
        .map((r: any) => ({ ...r, amount: Number(r.amount) })),
      refunds: refunds
        .filter((r: { payment_id: string }) => r.payment_id === row.id)
        .map((r: any) => ({ ...r, amount: Number(r.amount) })),
      events: events.filter((e: { object_id: string }) => e.object_id === row.id),
    });
  }
  return books;
}

/** The provider's own view of a transaction: a pending one whose settle time has passed has succeeded. */
function ledgerStatus(transaction: Books['transactions'][number], now: Date): string {
  return transaction.status === 'pending' && transaction.settle_at !== null && transaction.settle_at <= now
    ? 'succeeded'
    : transaction.status;
}

/** A cancel that answered 409 after a retry although it took effect (the retry found it done, see the report). */
export function cancelWonOnRetry(order: Order): boolean {
  return order.action !== undefined && order.action.status === 409 && order.action.attempts > 1;
}

/** What must hold for `order` once settled, as a list of problems (empty = as its scenario implies). */
function problemsOf(order: Order, books: Books | undefined, now: Date): string[] {
  const { kind } = order;
  const where = `order ${order.key} (${kind.name}, ${order.paymentId})`;
  if (!books) return [`${where}: no payment`];
  const problems: string[] = [];
  const { payment } = books;
  // A cancel answered 409 leaves the payment to its provider: a mobile-money prompt cannot be withdrawn, and a card or
  // transfer cancel loses the race only to a success the provider reported first (docs/payments.md#cancel-and-refund).
  const cancelLost = kind.then === 'cancel' && order.action?.status === 409 && payment.status === 'completed';
  const final = cancelLost ? { status: 'completed' } : kind.final;
  if (payment.status !== final.status) problems.push(`${where}: status ${payment.status}, expected ${final.status}`);
  if ((final as Kind['final']).failureCode && payment.failure_code !== (final as Kind['final']).failureCode)
    problems.push(`${where}: failure_code ${payment.failure_code}`);
  if ((final as Kind['final']).reconciled && payment.reconciled_at === null) problems.push(`${where}: not reconciled`);
  if (kind.then === 'cancel' && order.action?.status !== 200 && !cancelLost && !cancelWonOnRetry(order))
    problems.push(`${where}: cancel answered ${order.action?.status}`);
  // One provider request per payment (docs/payments.md#idempotency), agreeing with our status.
  if (books.transactions.length !== 1) problems.push(`${where}: ${books.transactions.length} provider transactions`);
  const transaction = books.transactions[0];
  if (transaction) {
    const provider = ledgerStatus(transaction, now);
    const agrees =
      payment.status === 'completed'
        ? provider === 'succeeded'
        : payment.status === 'failed'
          ? provider !== 'succeeded'
          : payment.status === 'cancelled'
            ? provider === (kind.method === 'bank_transfer' ? 'cancelled' : 'succeeded')
            : false;
    if (!agrees) problems.push(`${where}: ours ${payment.status}, the provider's ${provider}`);
    // The provider's refunds = our completed refunds = amount_refunded; none still undecided.
    const ledgerTotal = books.ledgerRefunds.reduce((sum, r) => sum + r.amount, 0);
    const completed = books.refunds.filter((r) => r.status === 'completed');
    const ourTotal = completed.reduce((sum, r) => sum + r.amount, 0);
    if (
      ledgerTotal !== payment.amount_refunded ||
      ourTotal !== payment.amount_refunded ||
      transaction.refunded_amount !== payment.amount_refunded
    ) {
      problems.push(
        `${where}: refunded ledger ${ledgerTotal} / ledger total ${transaction.refunded_amount} / refunds ${ourTotal} / amount_refunded ${payment.amount_refunded}`,
      );
    }
    if (books.ledgerRefunds.length !== completed.length)
      problems.push(
        `${where}: ${books.ledgerRefunds.length} provider refunds for ${completed.length} completed refunds`,
      );
  }
  if (books.refunds.some((r) => r.status === 'pending')) problems.push(`${where}: a refund still pending`);
  if (kind.then !== undefined && kind.then !== 'cancel') {
    // One refund for the one request, whatever its retries: the answer's id is the refund's.
    const refundId = order.action?.body?.data?.id;
    if (order.action?.status !== 201)
      problems.push(
        `${where}: refund answered ${order.action?.status} ${JSON.stringify(order.action?.body?.error ?? '')}`,
      );
    if (books.refunds.length !== 1 || books.refunds[0]?.id !== refundId)
      problems.push(`${where}: refunds ${JSON.stringify(books.refunds)} for the answer ${refundId}`);
    if (books.refunds[0] && books.refunds[0].status !== kind.refundFinal)
      problems.push(`${where}: refund ${books.refunds[0].status}, expected ${kind.refundFinal}`);
  }
  if (kind.then === 'cancel' && kind.method !== 'bank_transfer' && payment.status === 'cancelled') {
    // The approval that followed the cancel was refunded in full, once.
    if (payment.amount_refunded !== payment.amount || books.refunds.length !== 1)
      problems.push(
        `${where}: late success refunded ${payment.amount_refunded} of ${payment.amount} in ${books.refunds.length} refunds`,
      );
  }
  const expectedEvents = cancelLost ? ['payment.created', 'payment.completed'] : kind.events;
  const types = books.events.map((e) => e.type).sort();
  if (JSON.stringify(types) !== JSON.stringify([...expectedEvents].sort()))
    problems.push(`${where}: events ${types.join(', ')}, expected ${[...expectedEvents].sort().join(', ')}`);
  return problems;
}

/** The problems left once every order should have settled: none when the books agree everywhere. */
export async function unsettled(db: Db, orders: Order[]): Promise<string[]> {
  const books = await readBooks(db, orders);
  const now = new Date();
  return orders.flatMap((order) => problemsOf(order, order.paymentId ? books.get(order.paymentId) : undefined, now));
}

/**
 * Waits until {@link unsettled} finds nothing, polling every second for at most `timeoutMs`.
 * @returns the problems still there at the deadline (empty when all settled)
 */
export async function waitUntilSettled(db: Db, orders: Order[], timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const problems = await unsettled(db, orders);
    if (problems.length === 0 || Date.now() > deadline) return problems;
    await sleep(1000);
  }
}

/** Checks the merchant's books: exactly one payment per idempotency key, and the burst's orders all answered 201. */
export async function expectOnePaymentPerKey(db: Db, merchantId: string, orders: Order[]): Promise<void> {
  const rows = await db('payments')
    .where({ merchant_id: merchantId })
    .select('id', db.raw("metadata->>'order' as order_key"));
  const byKey = new Map<string, string[]>();
  for (const row of rows as { id: string; order_key: string }[])
    byKey.set(row.order_key, [...(byKey.get(row.order_key) ?? []), row.id]);
  expect(rows.length, 'payments of the merchant').to.equal(orders.length);
  for (const order of orders) {
    expect(order.create?.status, `create of ${order.key}`).to.equal(201);
    expect(byKey.get(order.key), `payments for ${order.key}`).to.deep.equal([order.paymentId]);
  }
}

/** What the merchant's endpoint received, de-duplicated on `webhook-id` as docs/webhooks.md#signatures asks. */
export interface Deliveries {
  requests: number;
  distinct: Set<string>;
}

/**
 * De-duplicates `requests` on `webhook-id`, checking that the id is stable: it is the payload's
 * event id, and every repeat carries the same event.
 * @throws AssertionError when a repeat differs or an id is not the payload's
 */
export function dedupe(requests: ReceivedRequest[]): Deliveries {
  const seen = new Map<string, string>();
  for (const request of requests) {
    const id = String(request.headers['webhook-id']);
    const payload = JSON.parse(request.body) as { id: string; event?: string; type?: string; data: { id?: string } };
    expect(payload.id, 'webhook-id is the event id').to.equal(id);
    const fingerprint = JSON.stringify([payload.event ?? payload.type, payload.data?.id]);
    expect(seen.get(id) ?? fingerprint, `repeats of ${id} carry the same event`).to.equal(fingerprint);
    seen.set(id, fingerprint);
  }
  return { requests: requests.length, distinct: new Set(seen.keys()) };
}

/** The subscribed events of `merchantId` in the database (their ids). */
export async function subscribedEventIds(db: Db, merchantId: string): Promise<Set<string>> {
  const rows = await db('events')
    .where({ merchant_id: merchantId })
    .whereIn('type', [...SUBSCRIBED_EVENTS])
    .select('id');
  return new Set(rows.map((row: { id: string }) => row.id));
}
