/**
 * The production topology on one machine (docs/operations.md#cluster), end to end: the
 * cluster command (`npm run start:cluster`, scripts/cluster.ts) with the Temporal server v1.29.1 on
 * PostgreSQL (4 history shards), two worker processes and two API processes behind one port, and
 * the Temporal UI. The merchant journeys run through that one port: payments of several sandbox
 * scenarios, a cancel, a refund, signed webhooks to a local receiver; then one worker and one API
 * process are killed with SIGKILL mid-burst (the fault suite's workload, test/faults/burst.ts) and
 * nothing is lost: every payment reaches its true final state, nothing twice, every event
 * delivered, the ledger's invariants hold (docs/ledger.md#invariants), and the command replaces both
 * processes. The figures are printed.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { expect } from 'chai';
import { createDb, type Db } from '../../src/db/knex';
import { CUSTOM_SEARCH_ATTRIBUTES } from '../../src/workflows/messages';
import {
  cancelWonOnRetry,
  dedupe,
  expectOnePaymentPerKey,
  FAULT_SETTINGS,
  ORDERS_PER_BURST,
  startBurst,
  SUBSCRIBED_EVENTS,
  subscribedEventIds,
  unsettled,
  type Order,
} from '../faults/burst';
import { ledgerProblems } from '../helpers/ledger';
import { callService, waitForLivePayment } from '../helpers/live-providers';
import { startReceiver, verifyDelivery, type Receiver } from '../helpers/receiver';
import {
  alive,
  connectionOwners,
  prepareClusterBinaries,
  startClusterCommand,
  type ClusterUnderTest,
} from './cluster-command';

/** How long the books and the deliveries may take to settle after the burst, in milliseconds. */
const SETTLE_TIMEOUT_MS = 120_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The burst's books ({@link unsettled}), with the late-success scenario's (0004) other true outcome
 * accepted: its success arrives 5 s after the payment's expiry, and when the expiry is decided late
 * (the timer fired while the worker holding the workflow was dead, and its task waited out the
 * sticky queue's time-out), the provider's success is already known and the payment completes
 * directly, with `payment.created` and `payment.completed` only and no reconciliation. Every other
 * check on those payments (one provider transaction, our status = the provider's) still applies.
 * @returns the problems left, and the late-success payments that completed directly
 */
async function problemsOf(db: Db, orders: Order[]): Promise<{ problems: string[]; direct: string[] }> {
  const problems = await unsettled(db, orders);
  const accepted = new Set<string>();
  const direct: string[] = [];
  for (const order of orders.filter((o) => o.kind.name.startsWith('late success') && o.paymentId)) {
    const about = problems.filter((problem) => problem.includes(`order ${order.key} `));
    if (about.length === 0) continue;
    const payment = await db('payments').where({ id: order.paymentId }).first('status', 'reconciled_at');
    const types = ((await db('events').where({ object_id: order.paymentId }).pluck('type')) as string[]).sort();
    if (
      payment?.status !== 'completed' ||
      payment.reconciled_at !== null ||
      types.join() !== 'payment.completed,payment.created'
    )
      continue;
    direct.push(order.paymentId as string);
    for (const problem of about)
      if (/: not reconciled$|: events payment\.completed, payment\.created, expected /.test(problem))
        accepted.add(problem);
  }
  return { problems: problems.filter((problem) => !accepted.has(problem)), direct };
}

/** Polls {@link problemsOf} every second until none is left or `timeoutMs` passed. */
async function waitUntilSettled(
  db: Db,
  orders: Order[],
  timeoutMs: number,
): Promise<{ problems: string[]; direct: string[] }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await problemsOf(db, orders);
    if (found.problems.length === 0 || Date.now() > deadline) return found;
    await sleep(1000);
  }
}

describe('production topology: Temporal server on PostgreSQL, two workers and two APIs behind one port (docs/operations.md#cluster)', function () {
  this.timeout(300_000);
  let cluster: ClusterUnderTest;
  let db: Db;
  let receiver: Receiver;

  before(async function () {
    // The first run on a machine builds the server, the SQL tool and the UI server (about 5 min).
    this.timeout(1_200_000);
    await prepareClusterBinaries();
    receiver = await startReceiver();
    cluster = await startClusterCommand(FAULT_SETTINGS);
    db = createDb(cluster.databaseUrl, 4);
    const { timings } = cluster.state();
    console.log(
      `      cluster ready in ${(cluster.startMs / 1000).toFixed(1)} s (schemas at ${timings.schemas} ms, Temporal ready at ${timings.temporal} ms, all ready at ${timings.ready} ms)`,
    );
  });

  after(async function () {
    this.timeout(120_000);
    await db?.destroy();
    await cluster?.stop();
    await receiver?.close();
  });

  /** A developer registered through the cluster's port, with a webhook to `to` for every payment and refund event. */
  async function merchant(to: Receiver): Promise<{ key: string; merchantId: string; webhookSecret: string }> {
    const { apiUrl } = cluster.state();
    const registered = await fetch(`${apiUrl}/v1/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: `cluster-${randomBytes(6).toString('hex')}@example.com`,
        password: 'correct horse battery',
        name: 'Cluster',
      }),
    });
    expect(registered.status).to.equal(201);
    const { data } = (await registered.json()) as {
      data: { developer: { merchant_id: string }; api_key: { secret: string } };
    };
    const webhook = await callService(apiUrl, '/v1/developer/webhooks', data.api_key.secret, {
      body: { url: `${to.origin}/hooks`, events: SUBSCRIBED_EVENTS },
    });
    expect(webhook.status).to.equal(201);
    return {
      key: data.api_key.secret,
      merchantId: data.developer.merchant_id,
      webhookSecret: webhook.body.data.secret as string,
    };
  }

  it('persists Temporal in PostgreSQL with 4 history shards, the namespace and the search attributes registered', async () => {
    const temporalDb = createDb(cluster.temporalDatabaseUrl, 1);
    try {
      const shards = await temporalDb('shards').count<{ count: string }[]>({ count: '*' });
      expect(Number(shards[0]?.count)).to.equal(4);
      const namespaces = (await temporalDb('namespaces').select('name')).map((row: { name: string }) => row.name);
      expect(namespaces).to.include('default');
    } finally {
      await temporalDb.destroy();
    }
    const { uiUrl } = cluster.state();
    const attributes = await fetch(`${uiUrl}/api/v1/namespaces/default/search-attributes`).then(
      (response) => response.json() as Promise<{ customAttributes: Record<string, string> }>,
    );
    // Every custom attribute, PaymentId, PayoutId, DeliveryId and EventId included
    // (docs/operations.md#find-in-temporal-ui).
    expect(attributes.customAttributes).to.include(
      Object.fromEntries(CUSTOM_SEARCH_ATTRIBUTES.map((key) => [key.name, 'INDEXED_VALUE_TYPE_KEYWORD'])),
    );
  });

  it('serves one port from both API processes: connections are handed to each in turn', async () => {
    const { apiUrl, apiPids } = cluster.state();
    const port = Number(new URL(apiUrl).port);
    expect(apiPids).to.have.length(2);
    const sockets = await Promise.all(
      Array.from(
        { length: 4 },
        () =>
          new Promise<net.Socket>((resolve, reject) => {
            const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
            socket.once('error', reject);
          }),
      ),
    );
    try {
      const clientPorts = sockets.map((socket) => socket.localPort as number);
      let owners = new Map<number, number>();
      for (let attempt = 0; attempt < 40 && owners.size < clientPorts.length; attempt += 1) {
        await sleep(50);
        owners = connectionOwners(port, clientPorts, apiPids);
      }
      expect(owners.size, 'connections held by an API process').to.equal(clientPorts.length);
      expect(new Set(owners.values()), 'API processes holding connections').to.deep.equal(new Set(apiPids));
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });

  it('runs the merchant journeys through the shared port: scenarios settle, a cancel, a refund, signed webhooks', async () => {
    const { apiUrl } = cluster.state();
    const journeys = await startReceiver();
    try {
      const { key, webhookSecret } = await merchant(journeys);
      const create = async (body: Record<string, unknown>) => {
        const answer = await callService(apiUrl, '/v1/payments', key, {
          body: { amount: 2500, currency: 'RWF', ...body },
          headers: { 'idempotency-key': randomBytes(8).toString('hex') },
        });
        expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
        return answer.body.data.id as string;
      };
      const approved = await create({ payment_method: 'mobile_money', phone_number: '+250788110001' });
      const declined = await create({ payment_method: 'mobile_money', phone_number: '+250788110002' });
      const transfer = await create({ payment_method: 'bank_transfer' });

      const cancel = await callService(apiUrl, `/v1/payments/${transfer}/cancel`, key, {
        body: { reason: 'order withdrawn' },
        headers: { 'idempotency-key': randomBytes(8).toString('hex') },
      });
      expect(cancel.status, JSON.stringify(cancel.body)).to.equal(200);
      expect(cancel.body.data.status).to.equal('cancelled');
      expect((await waitForLivePayment(apiUrl, key, declined, (p) => p.status === 'failed')).failure_code).to.equal(
        'declined',
      );
      await waitForLivePayment(apiUrl, key, approved, (p) => p.status === 'completed');
      const refund = await callService(apiUrl, `/v1/payments/${approved}/refund`, key, {
        body: { amount: 1000, reason: 'one item returned' },
        headers: { 'idempotency-key': randomBytes(8).toString('hex') },
      });
      expect(refund.status, JSON.stringify(refund.body)).to.equal(201);
      await waitForLivePayment(apiUrl, key, approved, (p) => p.amount_refunded === 1000);

      // Every event once by id, each signed with the endpoint's secret.
      const expected = [
        ['payment.created', approved],
        ['payment.completed', approved],
        ['refund.completed', refund.body.data.id],
        ['payment.created', declined],
        ['payment.failed', declined],
        ['payment.created', transfer],
        ['payment.cancelled', transfer],
      ]
        .map(([event, id]) => `${event} ${id}`)
        .sort();
      const deadline = Date.now() + 60_000;
      let received: string[] = [];
      for (;;) {
        const payloads = new Map(
          journeys.requests.map((request) => {
            const payload = verifyDelivery(request, webhookSecret);
            return [payload.id, `${payload.event} ${payload.data.id}`] as const;
          }),
        );
        received = [...payloads.values()].sort();
        if (received.length >= expected.length || Date.now() > deadline) break;
        await sleep(250);
      }
      expect(received).to.deep.equal(expected);
    } finally {
      await journeys.close();
    }
  });

  it('shows a payment in the Temporal UI with its search attributes once it changes state', async () => {
    const { apiUrl, uiUrl } = cluster.state();
    expect(uiUrl, 'the UI runs').to.be.a('string');
    const page = await fetch(`${uiUrl}/`);
    expect(page.status).to.equal(200);
    expect(await page.text()).to.match(/<!doctype html>/i);

    const own = await startReceiver();
    const { key } = await merchant(own).finally(() => own.close());
    const created = await callService(apiUrl, '/v1/payments', key, {
      body: { amount: 1800, currency: 'RWF', payment_method: 'bank_transfer' },
      headers: { 'idempotency-key': randomBytes(8).toString('hex') },
    });
    expect(created.status).to.equal(201);
    const id = created.body.data.id as string;
    const cancel = await callService(apiUrl, `/v1/payments/${id}/cancel`, key, {
      body: { reason: 'order withdrawn' },
      headers: { 'idempotency-key': randomBytes(8).toString('hex') },
    });
    expect(cancel.status).to.equal(200);
    const query = encodeURIComponent(`WorkflowId = 'payment:${id}' AND PaymentStatus = 'cancelled'`);
    let workflowIds: string[] = [];
    for (let attempt = 0; attempt < 40 && workflowIds.length === 0; attempt += 1) {
      if (attempt > 0) await sleep(250);
      const listed = (await fetch(`${uiUrl}/api/v1/namespaces/default/workflows?query=${query}`).then((response) =>
        response.json(),
      )) as { executions?: { execution: { workflowId: string } }[] };
      workflowIds = (listed.executions ?? []).map((execution) => execution.execution.workflowId);
    }
    expect(workflowIds, 'the payment listed by the UI by its status').to.deep.equal([`payment:${id}`]);
  });

  it('kill -9 of one worker and one API process mid-burst: every payment reaches its true state, nothing twice, both replaced', async () => {
    const started = Date.now();
    const { key, merchantId } = await merchant(receiver);
    const before = cluster.state();
    const burst = startBurst(before.apiUrl, key, `cluster-${randomBytes(3).toString('hex')}`);
    await burst.created(Math.floor(ORDERS_PER_BURST / 3));
    const [workerPid] = before.workerPids as [number];
    const [apiPid] = before.apiPids as [number];
    process.kill(workerPid, 'SIGKILL');
    process.kill(apiPid, 'SIGKILL');
    await burst.done;

    const refused = burst.orders
      .filter((o) => o.create?.status !== 201)
      .map((o) => `${o.key}: ${o.create?.status} ${JSON.stringify(o.create?.body)}`);
    expect(refused, 'creates not answered 201').to.deep.equal([]);
    const { problems, direct } = await waitUntilSettled(db, burst.orders, SETTLE_TIMEOUT_MS);
    expect(problems, 'orders not in the state their scenario implies').to.deep.equal([]);
    await expectOnePaymentPerKey(db, merchantId, burst.orders);
    // The books (docs/ledger.md#invariants) with two APIs and two workers posting for one merchant, one of each
    // killed: no status without postings, nothing posted twice, the simulators agree, the whole ledger balances.
    expect(await ledgerProblems(db, { merchantIds: [merchantId], againstSimulators: true })).to.deep.equal([]);
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

    // The command replaced both: two live workers and two live API processes, the killed ones gone.
    const after = cluster.state();
    expect(after.workerPids).to.have.length(2).and.not.include(workerPid);
    expect(after.apiPids).to.have.length(2).and.not.include(apiPid);
    expect([...after.workerPids, ...after.apiPids].every(alive), 'replacements alive').to.equal(true);
    expect(alive(workerPid) || alive(apiPid), 'killed processes gone').to.equal(false);

    const { figures } = burst;
    const retried = burst.orders.filter((o) => (o.create?.attempts ?? 0) > 1 || (o.action?.attempts ?? 0) > 1).length;
    console.log(
      `      cluster kill -9: ${burst.orders.length} payments, ${burst.orders.filter((o) => o.action && o.kind.then !== 'cancel').length} refunds, ` +
        `${burst.orders.filter((o) => o.kind.then === 'cancel').length} cancels; 1 worker + 1 API killed; ${figures.requests} requests, ${retried} orders retried ` +
        `(${figures.connectionErrors} connection errors, ${JSON.stringify(figures.serverErrors)} 5xx, ${figures.inProgress} key in progress); ` +
        `${events.size} events, ${deliveries.requests} deliveries (${deliveries.requests - deliveries.distinct.size} repeats); ` +
        `${burst.orders.filter(cancelWonOnRetry).length} cancels answered 409 on a retry after they took effect; ` +
        `${direct.length} late successes completed before their delayed expiry; ${Math.round((Date.now() - started) / 1000)} s`,
    );
  });
});
