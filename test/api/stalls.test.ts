/**
 * Stalls and outages of PostgreSQL and Temporal keep the API's deadlines (docs/operations.md#deadlines): with
 * either one stalled (a proxy that keeps connections open and forwards nothing, as a server stopped
 * with SIGSTOP) or gone (a proxy that hangs up), a create answers within CREATE_WAIT_MS and one
 * more time bound, a cancel or refund within UPDATE_DEADLINE_MS and one more, `/readyz` 503 within
 * READINESS_TIMEOUT_MS; a database connection lost in the middle of a cancel is 503, not 500. Each
 * 503 is true: retried with the same Idempotency-Key once the stall ends, every request is carried
 * out exactly once. The real API app and a worker process (`src/worker.ts`) on a task queue of their
 * own, both reaching PostgreSQL and Temporal through the proxies; small deadlines keep it fast.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { Client, Connection } from '@temporalio/client';
import { createApp } from '../../src/api/app';
import { createDb, dbTimeoutsOf, type Db } from '../../src/db/knex';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import { createLogger } from '../../src/logger';
import { providerRegistryFromConfig } from '../../src/providers/registry';
import { registerDeveloper } from '../helpers/http';
import { WorkerProcess } from '../helpers/processes';
import { closeAfterLastTest, getStack, testConfig } from '../helpers/stack';
import { startTcpProxy, startTcpProxyTo, type TcpProxy } from '../helpers/tcp-proxy';

/** Small deadlines (milliseconds) so that each round takes seconds; the assertions use these values. */
const DEADLINES = {
  CREATE_WAIT_MS: '2000',
  UPDATE_DEADLINE_MS: '3000',
  DATABASE_CONNECT_TIMEOUT_MS: '500',
  DATABASE_STATEMENT_TIMEOUT_MS: '800',
  DATABASE_QUERY_TIMEOUT_MS: '1000',
  TEMPORAL_CALL_TIMEOUT_MS: '1000',
  READINESS_TIMEOUT_MS: '500',
};
/** What the shared, busy test machine may add to a bound: scheduling, not waiting on anything. */
const SLACK_MS = 1500;

interface Answer {
  status: number;
  body: any;
  retryAfter: string | null;
  ms: number;
}

describe('stalls and outages keep the deadlines (docs/operations.md#deadlines)', function () {
  this.timeout(240_000);
  const taskQueue = `stalls-${randomBytes(4).toString('hex')}`;
  const config = testConfig({
    ...DEADLINES,
    TEMPORAL_TASK_QUEUE: taskQueue,
    IDEMPOTENCY_LEASE_MS: '500',
    RATE_LIMIT_MULTIPLIER: '1000',
  });
  const createBoundMs =
    config.CREATE_WAIT_MS + Math.max(config.TEMPORAL_CALL_TIMEOUT_MS, config.DATABASE_QUERY_TIMEOUT_MS) + SLACK_MS;
  const updateBoundMs = config.UPDATE_DEADLINE_MS + config.DATABASE_QUERY_TIMEOUT_MS + SLACK_MS;
  let database: TcpProxy;
  let temporalProxy: TcpProxy;
  let db: Db;
  let temporal: Client;
  let server: http.Server;
  let baseUrl: string;
  let worker: WorkerProcess;

  before(async () => {
    const stack = await getStack();
    database = await startTcpProxy(stack.config.DATABASE_URL);
    temporalProxy = await startTcpProxyTo('127.0.0.1', Number(stack.config.TEMPORAL_ADDRESS.split(':')[1]));
    db = createDb(database.url, 4, undefined, dbTimeoutsOf(config));
    temporal = new Client({ connection: await Connection.connect({ address: temporalProxy.address }) });
    const app = createApp({
      config,
      db,
      temporal,
      providers: providerRegistryFromConfig(createSandboxLedger(db), config),
      logger: createLogger('stalls-test', 'silent'),
    });
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    worker = new WorkerProcess(taskQueue, {
      ...DEADLINES,
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: temporalProxy.address,
      PROVIDER_CALLBACK_BASE_URL: baseUrl,
    });
    worker.start();
  });

  after(async () => {
    database?.up();
    temporalProxy?.up();
    await worker?.kill();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    // Not closed now: a retry of a call abandoned at its deadline may still be waiting (closeAfterLastTest).
    if (temporal) closeAfterLastTest(temporal.connection);
    await db?.destroy();
    await database?.close();
    await temporalProxy?.close();
  });

  /** A request that gives up well past any bound, so that a hang fails the test instead of holding it. */
  async function request(
    method: string,
    path: string,
    key: string,
    body?: unknown,
    idempotencyKey?: string,
  ): Promise<Answer> {
    const started = Date.now();
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text ? JSON.parse(text) : null,
      retryAfter: response.headers.get('retry-after'),
      ms: Date.now() - started,
    };
  }

  /** Sends the request again (same key) until it is not 503, as a merchant told to retry does. */
  async function retried(
    method: string,
    path: string,
    key: string,
    body: unknown,
    idempotencyKey: string,
  ): Promise<Answer> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const answer = await request(method, path, key, body, idempotencyKey);
      if (answer.status !== 503 || Date.now() > deadline) return answer;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  async function paymentOnceSettled(key: string, id: string, status: string): Promise<any> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const answer = await request('GET', `/v1/payments/${id}`, key);
      if ((answer.status === 200 && answer.body.data.status === status) || Date.now() > deadline)
        return answer.body.data;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  function expect503Within(answer: Answer, boundMs: number, what: string): void {
    expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).to.equal(503);
    expect(answer.body.error.code).to.equal('service_unavailable');
    expect(answer.body.error.message).to.match(/Idempotency-Key/);
    expect(answer.retryAfter).to.match(/^\d+$/);
    expect(answer.ms, `${what} answered after ${answer.ms} ms`).to.be.below(boundMs);
  }

  async function readiness(): Promise<Answer & { started: number }> {
    const started = Date.now();
    const response = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(30_000) });
    return {
      status: response.status,
      body: await response.json(),
      retryAfter: null,
      ms: Date.now() - started,
      started,
    };
  }

  /**
   * A completed payment and a pending one (sandbox `0003` waits for the customer) of a new merchant, made while all is
   * well.
   */
  async function paymentsBefore(
    round: string,
  ): Promise<{ key: string; merchantId: string; completed: string; pending: string }> {
    const developer = await registerDeveloper();
    const order = { amount: 1500, currency: 'RWF', payment_method: 'mobile_money' };
    const paid = await request(
      'POST',
      '/v1/payments',
      developer.key,
      { ...order, phone_number: '+250788000001' },
      `${round}-paid-${taskQueue}`,
    );
    const waiting = await request(
      'POST',
      '/v1/payments',
      developer.key,
      // A card payment: its gateway can withdraw it (a mobile-money prompt cannot, docs/payments.md#cancel-and-refund).
      { amount: 2500, currency: 'USD', payment_method: 'card' },
      `${round}-waiting-${taskQueue}`,
    );
    expect([paid.status, waiting.status], JSON.stringify([paid.body, waiting.body])).to.deep.equal([201, 201]);
    expect((await paymentOnceSettled(developer.key, paid.body.data.id, 'completed')).status).to.equal('completed');
    return {
      key: developer.key,
      merchantId: developer.merchantId,
      completed: paid.body.data.id,
      pending: waiting.body.data.id,
    };
  }

  /**
   * One round: payments made, then `fault` (a stall or an outage of `proxy`); a create, a cancel
   * and a refund answer 503 within their bounds and `/readyz` 503 within its own; then the fault
   * ends, and the same requests retried with their keys are carried out exactly once.
   */
  async function round(
    name: string,
    fault: () => void,
    proxy: TcpProxy,
    dependency: 'database' | 'temporal',
  ): Promise<void> {
    const { key, merchantId, completed, pending } = await paymentsBefore(name);
    const order = { amount: 2500, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' };
    const keys = {
      create: `${name}-create-${taskQueue}`,
      cancel: `${name}-cancel-${taskQueue}`,
      refund: `${name}-refund-${taskQueue}`,
    };
    fault();
    try {
      const [create, cancel, refund, ready] = await Promise.all([
        request('POST', '/v1/payments', key, order, keys.create),
        request('POST', `/v1/payments/${pending}/cancel`, key, { reason: 'customer left' }, keys.cancel),
        request('POST', `/v1/payments/${completed}/refund`, key, { amount: 500 }, keys.refund),
        readiness(),
      ]);
      expect503Within(create, createBoundMs, 'create');
      expect503Within(cancel, updateBoundMs, 'cancel');
      expect503Within(refund, updateBoundMs, 'refund');
      expect(ready.status).to.equal(503);
      expect(ready.body.checks[dependency]).to.equal('unavailable');
      expect(ready.ms, `/readyz answered after ${ready.ms} ms`).to.be.below(config.READINESS_TIMEOUT_MS + SLACK_MS);
    } finally {
      proxy.up();
    }

    // Back by itself: the same requests again, each carried out once.
    const created = await retried('POST', '/v1/payments', key, order, keys.create);
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect((await paymentOnceSettled(key, created.body.data.id, 'completed')).status).to.equal('completed');
    const cancelled = await retried(
      'POST',
      `/v1/payments/${pending}/cancel`,
      key,
      { reason: 'customer left' },
      keys.cancel,
    );
    expect(cancelled.status, JSON.stringify(cancelled.body)).to.equal(200);
    expect(cancelled.body.data).to.include({ id: pending, status: 'cancelled' });
    const refunded = await retried('POST', `/v1/payments/${completed}/refund`, key, { amount: 500 }, keys.refund);
    expect(refunded.status, JSON.stringify(refunded.body)).to.equal(201);
    expect(
      (await retried('POST', `/v1/payments/${completed}/refund`, key, { amount: 500 }, keys.refund)).body.data.id,
    ).to.equal(refunded.body.data.id);
    expect((await paymentOnceSettled(key, completed, 'completed')).amount_refunded).to.equal(500);

    const { db: direct } = await getStack();
    expect(await direct('payments').where({ merchant_id: merchantId }).count<{ n: number }[]>('id as n')).to.deep.equal(
      [{ n: 3 }],
    );
    expect(await direct('refunds').where({ payment_id: completed }).count<{ n: number }[]>('id as n')).to.deep.equal([
      { n: 1 },
    ]);
    expect((await readiness()).status).to.equal(200);
  }

  it('PostgreSQL stalled (SIGSTOP-like): create, cancel, refund and /readyz answer 503 within their bounds; once over, each is done once', async () => {
    await round('pg-stall', () => database.stall(), database, 'database');
  });

  it('Temporal stalled (SIGSTOP-like): create, cancel, refund and /readyz answer 503 within their bounds; once over, each is done once', async () => {
    await round('temporal-stall', () => temporalProxy.stall(), temporalProxy, 'temporal');
  });

  it('Temporal gone (connections refused): create, cancel, refund and /readyz answer 503 within their bounds; once back, each is done once', async () => {
    await round('temporal-down', () => temporalProxy.down(), temporalProxy, 'temporal');
  });

  it('a database connection lost in the middle of a cancel ("Connection terminated unexpectedly") is 503, not 500; the retry cancels once', async () => {
    const { key, pending } = await paymentsBefore('pg-cut');
    const cancelKey = `pg-cut-cancel-${taskQueue}`;
    database.stall();
    const cancel = request('POST', `/v1/payments/${pending}/cancel`, key, { reason: 'customer left' }, cancelKey);
    await new Promise((resolve) => setTimeout(resolve, 200)); // the cancel's first statement is on its way
    database.down();
    try {
      const answer = await cancel;
      expect503Within(answer, updateBoundMs, 'cancel');
    } finally {
      database.up();
    }
    const cancelled = await retried(
      'POST',
      `/v1/payments/${pending}/cancel`,
      key,
      { reason: 'customer left' },
      cancelKey,
    );
    expect(cancelled.status, JSON.stringify(cancelled.body)).to.equal(200);
    expect(cancelled.body.data).to.include({ id: pending, status: 'cancelled' });
  });
});
