/**
 * The fault suite (docs/payments.md#idempotency, docs/payments.md#events): the API (`src/server.ts`) and the worker
 * (`src/worker.ts`) run as separate processes, as `npm start` runs them, on a task queue of their
 * own; a burst of mixed work (test/faults/burst.ts: 44 payments over eleven sandbox scenarios,
 * cancels of bank transfers and of mobile money, partial refunds, a webhook endpoint subscribed to
 * every payment and refund event on a local receiver) is under way when a process is killed with
 * SIGKILL (`kill -9`) and started again: the worker, the API (its clients retry with the same
 * Idempotency-Key on connection errors, as a merchant would), then both at once. The test run's
 * PostgreSQL and Temporal dev server keep running throughout: other test files share them.
 * After each restart: every payment reaches the final state its scenario implies and the sandbox
 * provider's ledger agrees; one payment per idempotency key and one provider request per payment;
 * the provider's refunds = our completed refunds = `amount_refunded`; each event written once; and
 * every subscribed event reached the endpoint at least once under a stable `webhook-id`, the
 * distinct ids received being exactly the events in the database. The figures are printed.
 */
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { expect } from 'chai';
import { ledgerProblems } from '../helpers/ledger';
import { createDb, type Db } from '../../src/db/knex';
import { ApiProcess, WorkerProcess } from '../helpers/processes';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { testConfig } from '../helpers/stack';
import {
  cancelWonOnRetry,
  dedupe,
  expectOnePaymentPerKey,
  FAULT_SETTINGS,
  ORDERS_PER_BURST,
  startBurst,
  SUBSCRIBED_EVENTS,
  subscribedEventIds,
  waitUntilSettled,
  type Burst,
} from './burst';

/** How long the books and the deliveries may take to settle after the burst, in milliseconds. */
const SETTLE_TIMEOUT_MS = 120_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('fault suite: kill -9 mid-burst of payments, cancels, refunds and webhooks (docs/payments.md#idempotency)', function () {
  this.timeout(300_000);
  const taskQueue = `faults-${randomBytes(4).toString('hex')}`;
  let api: ApiProcess;
  let worker: WorkerProcess;
  let db: Db;
  const totals = { payments: 0, refunds: 0, cancels: 0, events: 0, deliveries: 0, kills: 0 };

  before(async () => {
    db = createDb(testConfig().DATABASE_URL, 4);
    api = await ApiProcess.create(taskQueue, FAULT_SETTINGS);
    // The sandbox simulators in the worker send their callbacks to this API, as providers do
    // (docs/payments.md#provider-callbacks).
    worker = new WorkerProcess(taskQueue, { ...FAULT_SETTINGS, PROVIDER_CALLBACK_BASE_URL: api.baseUrl });
    worker.start();
    await api.start();
  });

  after(async () => {
    await api?.kill();
    await worker?.kill();
    await db?.destroy();
    console.log(
      `      fault suite: ${totals.payments} payments, ${totals.refunds} refunds, ${totals.cancels} cancels, ${totals.events} events (${totals.deliveries} deliveries received), ${totals.kills} processes killed with SIGKILL`,
    );
  });

  /**
   * A developer of the API under test with its sandbox secret key, and a webhook to `receiver` for every subscribed
   * event.
   */
  async function merchant(receiver: Receiver): Promise<{ key: string; merchantId: string }> {
    const email = `faults-${randomBytes(6).toString('hex')}@example.com`;
    const registered = await fetch(`${api.baseUrl}/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'correct horse battery', name: 'Fault Suite' }),
    });
    expect(registered.status).to.equal(201);
    const { data } = (await registered.json()) as {
      data: { developer: { merchant_id: string }; api_key: { secret: string } };
    };
    const webhook = await fetch(`${api.baseUrl}/v1/developer/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${data.api_key.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${receiver.origin}/hooks`, events: SUBSCRIBED_EVENTS }),
    });
    expect(webhook.status).to.equal(201);
    return { key: data.api_key.secret, merchantId: data.developer.merchant_id };
  }

  /**
   * For a failure's report: the rows of each payment with a problem (refunds, events, the payment)
   * and a one-line summary of each run of its workflow (events, activities, Update ids).
   */
  async function diagnose(burst: Burst, problems: string[]): Promise<string> {
    const client = new Client({ connection: await Connection.connect({ address: testConfig().TEMPORAL_ADDRESS }) });
    const lines: string[] = [];
    for (const order of burst.orders.filter((o) => problems.some((p) => p.includes(`order ${o.key} `)))) {
      const id = order.paymentId as string;
      lines.push(`== ${order.key} ${id} create=${JSON.stringify(order.create)} action=${JSON.stringify(order.action)}`);
      const refundId = order.action?.body?.data?.id;
      lines.push(`refunds by id: ${JSON.stringify(await db('refunds').where({ id: refundId ?? '' }))}`);
      lines.push(`refunds by payment: ${JSON.stringify(await db('refunds').where({ payment_id: id }))}`);
      lines.push(
        `events: ${JSON.stringify(await db('events').where({ object_id: id }).select('id', 'type', 'created_at'))}`,
      );
      lines.push(`payment: ${JSON.stringify(await db('payments').where({ id }).first())}`);
      const runs = client.workflow.list({ query: `WorkflowId = 'payment:${id}'` });
      for await (const run of runs) {
        const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
        const names = (history.events ?? []).map((e) => {
          const type = String(temporal.api.enums.v1.EventType[e.eventType as number] ?? e.eventType).replace(
            'EVENT_TYPE_',
            '',
          );
          const activity = e.activityTaskScheduledEventAttributes?.activityType?.name ?? '';
          const marker = e.markerRecordedEventAttributes?.markerName ?? '';
          const update = e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.meta?.updateId ?? '';
          return `${e.eventId}:${type}${activity ? `(${activity})` : ''}${marker ? `(${marker})` : ''}${update ? `(${update})` : ''}`;
        });
        lines.push(`run ${run.runId} ${run.status.name}: ${names.join(' ')}`);
      }
    }
    await client.connection.close();
    return lines.join('\n');
  }

  /**
   * Runs a burst, calls `fault` once a third of the creates were answered, then waits for the
   * burst, for the books to settle and for every subscribed event to reach the endpoint, checks
   * them all and prints the figures.
   */
  async function burstWithFault(label: string, fault: (burst: Burst) => Promise<number>): Promise<void> {
    const started = Date.now();
    const receiver = await startReceiver();
    try {
      const { key, merchantId } = await merchant(receiver);
      const burst = startBurst(api.baseUrl, key, `${label}-${randomBytes(3).toString('hex')}`);
      await burst.created(Math.floor(ORDERS_PER_BURST / 3));
      const killed = await fault(burst);
      await burst.done;
      const refused = burst.orders
        .filter((o) => o.create?.status !== 201)
        .map((o) => `${o.key}: ${o.create?.status} ${JSON.stringify(o.create?.body)}`);
      expect(refused.length, `creates not answered 201, e.g.\n${refused.slice(0, 3).join('\n')}`).to.equal(0);

      const problems = await waitUntilSettled(db, burst.orders, SETTLE_TIMEOUT_MS);
      if (problems.length > 0) console.log(await diagnose(burst, problems));
      expect(problems.length, `orders not in the state their scenario implies:\n${problems.join('\n')}`).to.equal(0);
      await expectOnePaymentPerKey(db, merchantId, burst.orders);
      // The books (docs/ledger.md#invariants): no status without postings, nothing posted twice, simulators agree.
      expect(await ledgerProblems(db, { merchantIds: [merchantId], againstSimulators: true })).to.deep.equal([]);
      // Only 503 `service_unavailable` (with Retry-After) while a part is down; never a 500 (docs/api.md#errors).
      expect(
        Object.keys(burst.figures.serverErrors).filter((status) => !status.startsWith('503')),
        'server errors other than 503',
      ).to.deep.equal([]);

      const events = await subscribedEventIds(db, merchantId);
      const deadline = Date.now() + SETTLE_TIMEOUT_MS;
      let deliveries = dedupe(receiver.requests);
      while ([...events].some((id) => !deliveries.distinct.has(id)) && Date.now() < deadline) {
        await sleep(500);
        deliveries = dedupe(receiver.requests);
      }
      expect(
        [...deliveries.distinct].sort(),
        'distinct webhook-ids received = subscribed events in the database',
      ).to.deep.equal([...events].sort());

      const refunds = burst.orders.filter((o) => o.action && o.kind.then !== 'cancel').length;
      const cancels = burst.orders.filter((o) => o.kind.then === 'cancel').length;
      const retried = burst.orders.filter((o) => (o.create?.attempts ?? 0) > 1 || (o.action?.attempts ?? 0) > 1).length;
      Object.assign(totals, {
        payments: totals.payments + burst.orders.length,
        refunds: totals.refunds + refunds,
        cancels: totals.cancels + cancels,
        events: totals.events + events.size,
        deliveries: totals.deliveries + deliveries.requests,
        kills: totals.kills + killed,
      });
      const { figures } = burst;
      console.log(
        `      ${label}: ${burst.orders.length} payments, ${refunds} refunds, ${cancels} cancels; ${killed} killed; ` +
          `${figures.requests} requests, ${retried} orders retried (${figures.connectionErrors} connection errors, ` +
          `${JSON.stringify(figures.serverErrors)} 5xx, ${figures.inProgress} key in progress); ` +
          `${events.size} events, ${deliveries.requests} deliveries (${deliveries.requests - deliveries.distinct.size} repeats); ` +
          `${burst.orders.filter(cancelWonOnRetry).length} cancels answered 409 on a retry after they took effect; ${Math.round((Date.now() - started) / 1000)} s`,
      );
    } finally {
      await receiver.close();
    }
  }

  it('kill -9 of the worker mid-burst: every payment reaches its true state, nothing twice, every event delivered', async () => {
    await burstWithFault('worker killed', async () => {
      await worker.kill();
      // Down for 8 s, plus its start: creates answer `pending` after their 3 s wait, Updates wait
      // for the next worker, and refund calls scheduled before the kill outlive their 10 s
      // schedule-to-close time-out without having run (the path of lost-refund-call.test.ts).
      await sleep(8000);
      worker.start();
      return 1;
    });
  });

  it('kill -9 of the API mid-burst, clients retrying with the same Idempotency-Key: the same books', async () => {
    await burstWithFault('API killed', async () => {
      await api.kill();
      await sleep(1000);
      await api.start();
      return 1;
    });
  });

  it('kill -9 of API and worker together mid-burst (PostgreSQL and Temporal keep running): the same books', async () => {
    await burstWithFault('API and worker killed', async () => {
      await Promise.all([api.kill(), worker.kill()]);
      await sleep(1000);
      worker.start();
      await api.start();
      return 2;
    });
  });
});
