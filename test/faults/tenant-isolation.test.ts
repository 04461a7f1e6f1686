/**
 * Tenant isolation of webhook deliveries (docs/webhooks.md#isolation), on the real stack (real API,
 * real workers, real dev server, real PostgreSQL, real HTTP receivers on 127.0.0.1):
 * - one merchant's endpoint accepts and never answers while more of its deliveries are due than the
 *   worker has activity slots; another merchant's sandbox payments still complete in about their
 *   approval time and its events reach its healthy endpoint at once. With deliveries on the
 *   payments task queue, each hanging attempt held one of the slots payments need for its 10 s;
 * - one merchant's 16 endpoints all hang on almost five times as many deliveries as the webhooks worker
 *   has slots; another merchant's events, written meanwhile, still reach it within 10 s:
 *   the hanging merchant holds only its share of the slots (WEBHOOK_MERCHANT_CONCURRENCY) and the
 *   deliveries carry their merchant's fairness key. Before the merchant's share, E's requests held
 *   every slot for 10 s a round and B's events arrived after 30–40 s;
 * - at most WEBHOOK_ENDPOINT_CONCURRENCY requests are in flight to one endpoint, the others wait
 *   their turn and are all delivered later, once each, and waiting uses up no attempt;
 * - a backlog at one endpoint costs at most about one `endpointTurn` signal per delivery, however
 *   long the queue: a waiter already told of its turn is not told again before it asked.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { startWebhookDeliveries } from '../../src/activities/webhook-dispatch';
import { listDeliveries } from '../../src/db/webhooks';
import { createMailer } from '../../src/lib/mailer';
import { createProviderRegistry } from '../../src/providers/registry';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import type { EventInput } from '../../src/db/payments';
import { insertMerchant } from '../helpers/fixtures';
import { call, registerDeveloper } from '../helpers/http';
import { startReceiver, type Receiver } from '../helpers/receiver';
import type { Config } from '../../src/config';
import { getStack, testConfig, workflowBundle, type Stack } from '../helpers/stack';
import { workerQueues } from '../../src/worker';
import { webhookDeliveryWorkflowId } from '../../src/workflows/webhook-messages';
import { insertEvent, insertWebhook } from '../helpers/webhooks';

/**
 * Deliveries due to the hanging endpoint: more than the worker's 100 activity slots (the SDK's
 * default), so that with deliveries beside payment work every slot stays taken for a 10 s time-out.
 */
const HANGING_DELIVERIES = 120;
/** Payments of the unaffected merchant, each settled by the simulated customer approval (3 s). */
const NEIGHBOUR_PAYMENTS = 5;
/** The noisy merchant's endpoints (the most a merchant may have) and its events, each delivered to every one. */
const NOISY_ENDPOINTS = 16;
const NOISY_EVENTS = 6;
/** Activity slots of the webhooks worker in the many-endpoints case: fewer than E's 96 deliveries by far. */
const SLOTS = 20;
/** The unaffected merchant's events in the many-endpoints case. */
const NEIGHBOUR_EVENTS = 5;

/** Writes `count` events of `merchantId` and starts their deliveries on `taskQueue`, ten at a time. */
async function dispatchMany(stack: Stack, merchantId: string, taskQueue: string, count: number): Promise<EventInput[]> {
  const events: EventInput[] = [];
  for (let i = 0; i < count; i += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, count - i) }, () => insertEvent(stack.db, merchantId)),
    );
    await Promise.all(
      batch.map((event) => startWebhookDeliveries({ db: stack.db, temporal: stack.client, taskQueue }, event)),
    );
    events.push(...batch);
  }
  return events;
}

/**
 * Runs `body` with a webhooks worker of the test's own on `config.TEMPORAL_WEBHOOK_TASK_QUEUE`, with the real
 * activities and `config.WORKER_WEBHOOK_ACTIVITY_SLOTS` activity slots (as `WORKER_ROLE=webhooks` runs it);
 * the worker is shut down afterwards.
 */
async function withWebhooksWorker(stack: Stack, config: Config, body: () => Promise<void>): Promise<void> {
  const providers = createProviderRegistry({
    ledger: createSandboxLedger(stack.db),
    now: () => new Date(),
    approvalDelayMs: 0,
    bankTransferDelayMs: 0,
    callbackSecret: 'x'.repeat(32),
  });
  const [queue] = workerQueues({ ...config, WORKER_ROLE: 'webhooks' });
  const connection = await NativeConnection.connect({ address: stack.config.TEMPORAL_ADDRESS });
  const worker = await Worker.create({
    connection,
    taskQueue: config.TEMPORAL_WEBHOOK_TASK_QUEUE,
    maxConcurrentActivityTaskExecutions: queue?.maxConcurrentActivityTaskExecutions,
    workflowBundle: await workflowBundle(),
    activities: createActivities({
      db: stack.db,
      providers,
      mailer: createMailer(config),
      temporal: stack.client,
      config,
    }),
  });
  const running = worker.run();
  try {
    await body();
  } finally {
    worker.shutdown();
    await running;
    await connection.close();
  }
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('tenant isolation of webhook deliveries (docs/webhooks.md#isolation)', function () {
  this.timeout(120_000);
  let stack: Stack;
  const receivers: Receiver[] = [];
  const endpoints: string[] = [];

  before(async () => {
    stack = await getStack();
  });

  after(async () => {
    // The hanging endpoint's queued deliveries end at their next turn instead of loading later tests.
    if (endpoints.length) await stack.db('webhooks').whereIn('id', endpoints).update({ status: 'disabled' });
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });

  it("lets another merchant's payments complete and its events arrive on time while one merchant's endpoint hangs on more deliveries than there are worker slots", async () => {
    // Merchant E: an endpoint that accepts every request and never answers (the sender gives up after 10 s).
    const hanging = await startReceiver(() => ({ status: 200, delayMs: 60_000 }));
    receivers.push(hanging);
    const noisyMerchant = await insertMerchant(stack.db);
    const noisy = await insertWebhook(stack.db, noisyMerchant, `${hanging.origin}/hangs`);
    endpoints.push(noisy.id);
    await dispatchMany(stack, noisyMerchant, stack.config.TEMPORAL_WEBHOOK_TASK_QUEUE, HANGING_DELIVERIES);
    // The endpoint holds as many requests as it will be given before the neighbour starts.
    await until(
      'the hanging endpoint to hold its requests',
      () => hanging.inFlight >= stack.config.WEBHOOK_ENDPOINT_CONCURRENCY,
      30_000,
    );

    // Merchant B: a healthy endpoint and payments that complete after the simulated approval.
    const healthy = await startReceiver(() => ({ status: 204 }));
    receivers.push(healthy);
    const developer = await registerDeveloper();
    const created = await call('/v1/developer/webhooks', {
      key: developer.key,
      body: { url: `${healthy.origin}/b`, events: ['payment.completed'] },
    });
    expect(created.status).to.equal(201);
    const sentAt = new Map<string, number>();
    await Promise.all(
      Array.from({ length: NEIGHBOUR_PAYMENTS }, async (_, i) => {
        const started = Date.now();
        const response = await call('/v1/payments', {
          key: developer.key,
          body: {
            amount: 1000 + i,
            currency: 'RWF',
            payment_method: 'mobile_money',
            phone_number: '+250788123456',
            description: `neighbour ${i}`,
          },
        });
        expect(response.status).to.equal(201);
        sentAt.set(response.body.data.id as string, started);
      }),
    );
    const completed = () =>
      healthy.requests
        .filter((request) => request.path === '/b')
        .map((request) => ({
          request,
          payload: JSON.parse(request.body) as { created_at: string; data: { id: string } },
        }));
    await until(
      "the neighbour's payment.completed events",
      () => completed().length >= NEIGHBOUR_PAYMENTS,
      60_000,
    ).catch(async (error: Error) => {
      const statuses = await Promise.all(
        [...sentAt.keys()].map(
          async (id) => (await call(`/v1/payments/${id}`, { key: developer.key })).body.data?.status as string,
        ),
      );
      throw new Error(`${error.message}: ${completed().length} arrived; the payments are ${statuses.join(', ')}`);
    });

    const approvalMs = stack.config.SANDBOX_APPROVAL_DELAY_MS;
    for (const { request, payload } of completed()) {
      const paymentId = payload.data.id;
      const settledMs = Date.parse(payload.created_at) - (sentAt.get(paymentId) as number);
      const deliveredMs = request.receivedAt - Date.parse(payload.created_at);
      // About the payment's normal time (the approval plus the platform's own work), well short of
      // the 10 s a hanging attempt held a shared slot; its event sent as soon as it was written.
      expect(settledMs, `payment ${paymentId} completed ${settledMs} ms after its create`).to.be.below(
        approvalMs + 6_000,
      );
      expect(deliveredMs, `payment ${paymentId}'s event arrived ${deliveredMs} ms after it was written`).to.be.below(
        5_000,
      );
    }
    // The hanging endpoint never got more than its share.
    expect(hanging.maxInFlight).to.be.at.most(stack.config.WEBHOOK_ENDPOINT_CONCURRENCY);
  });

  it("delivers another merchant's events within 10 s of their creation while one merchant's 16 endpoints hang on more deliveries than the worker has slots", async () => {
    // A webhooks worker of its own with 20 slots, configured as `WORKER_ROLE=webhooks` would be.
    const taskQueue = `fairness-${randomBytes(4).toString('hex')}`;
    const config = testConfig({ TEMPORAL_WEBHOOK_TASK_QUEUE: taskQueue, WORKER_WEBHOOK_ACTIVITY_SLOTS: String(SLOTS) });
    // A merchant's share: a fifth of the slots by default, 4 here.
    const share = config.WEBHOOK_MERCHANT_CONCURRENCY;
    await withWebhooksWorker(stack, config, async () => {
      // Merchant E: 16 endpoints (one server, one path each) that accept every request and never answer.
      const hanging = await startReceiver(() => ({ status: 200, delayMs: 60_000 }));
      receivers.push(hanging);
      const noisyMerchant = await insertMerchant(stack.db);
      for (let i = 0; i < NOISY_ENDPOINTS; i += 1) {
        const webhook = await insertWebhook(stack.db, noisyMerchant, `${hanging.origin}/e${i}`);
        endpoints.push(webhook.id);
      }
      // Each event goes to all 16: 6 events are 96 deliveries, almost five times the worker's slots.
      await dispatchMany(stack, noisyMerchant, taskQueue, NOISY_EVENTS);
      await until('the hanging endpoints to hold their requests', () => hanging.inFlight >= share, 30_000);

      // Merchant B: one healthy endpoint and its events, written while E's requests hang.
      const healthy = await startReceiver(() => ({ status: 204 }));
      receivers.push(healthy);
      const neighbour = await insertMerchant(stack.db);
      const webhook = await insertWebhook(stack.db, neighbour, `${healthy.origin}/b`);
      endpoints.push(webhook.id);
      const events = await dispatchMany(stack, neighbour, taskQueue, NEIGHBOUR_EVENTS);
      await healthy.waitFor(NEIGHBOUR_EVENTS, 60_000);

      const latencies = healthy.requests.map((request) => {
        const payload = JSON.parse(request.body) as { id: string; created_at: string };
        return { id: payload.id, ms: request.receivedAt - Date.parse(payload.created_at) };
      });
      expect(latencies.map((latency) => latency.id).sort()).to.deep.equal(events.map((event) => event.id).sort());
      const slowest = Math.max(...latencies.map((latency) => latency.ms));
      expect(
        slowest,
        `B's events arrived ${latencies.map((latency) => latency.ms).join(', ')} ms after they were written`,
      ).to.be.below(10_000);
      // E never held more than its share of the delivery capacity, across its endpoints.
      expect(hanging.maxInFlight).to.be.at.most(share);
      // Each merchant's delivery tasks are dispatched under its own fairness key.
      const described = await stack.client.workflow
        .getHandle(webhookDeliveryWorkflowId((events[0] as EventInput).id, webhook.id))
        .describe();
      expect(described.priority?.fairnessKey).to.equal(neighbour);
    });
  });

  /**
   * Runs `body` with a webhooks worker of its own on a queue of its own, whose endpoints take `limit`
   * requests at once, once `count` events of a new merchant were dispatched to its one endpoint at a
   * receiver answering 204 after `delayMs`, and the receiver got them all.
   */
  async function withBacklog(
    { limit, count, delayMs }: { limit: number; count: number; delayMs: number },
    body: (backlog: {
      slow: Receiver;
      webhook: Awaited<ReturnType<typeof insertWebhook>>;
      events: EventInput[];
    }) => Promise<void>,
  ): Promise<void> {
    const taskQueue = `isolation-${randomBytes(4).toString('hex')}`;
    const config = { ...stack.config, TEMPORAL_WEBHOOK_TASK_QUEUE: taskQueue, WEBHOOK_ENDPOINT_CONCURRENCY: limit };
    await withWebhooksWorker(stack, config, async () => {
      const slow = await startReceiver(() => ({ status: 204, delayMs }));
      receivers.push(slow);
      const merchantId = await insertMerchant(stack.db);
      const webhook = await insertWebhook(stack.db, merchantId, `${slow.origin}/slow`);
      endpoints.push(webhook.id);
      const events = await dispatchMany(stack, merchantId, taskQueue, count);
      await until(`${count} deliveries`, () => slow.requests.length >= count, 90_000);
      await body({ slow, webhook, events });
    });
  }

  it('keeps at most WEBHOOK_ENDPOINT_CONCURRENCY requests in flight to one endpoint and delivers the others later, once each, with no attempt used up by waiting', async () => {
    const limit = 3;
    const count = 24;
    await withBacklog({ limit, count, delayMs: 300 }, async ({ slow, webhook, events }) => {
      await until(
        'every delivery recorded',
        async () =>
          (await listDeliveries(stack.db, webhook, webhook.id, { page: 1, limit: 100 })).deliveries.every(
            (d) => d.status === 'succeeded',
          ),
        20_000,
      );

      expect(slow.maxInFlight).to.equal(limit);
      // Each event once: none lost, none sent twice.
      expect(slow.requests.map((request) => request.headers['webhook-id']).sort()).to.deep.equal(
        events.map((event) => event.id).sort(),
      );
      const { deliveries } = await listDeliveries(stack.db, webhook, webhook.id, { page: 1, limit: 100 });
      expect(deliveries).to.have.length(count);
      for (const delivery of deliveries) {
        expect(delivery).to.include({ status: 'succeeded', attemptCount: 1 });
        expect(delivery.attempts.map((attempt) => [attempt.attempt, attempt.outcome.statusCode])).to.deep.equal([
          [1, 204],
        ]);
      }
      // Every turn was given back.
      expect(
        await stack
          .db('webhook_endpoint_turns')
          .where({ webhook_id: webhook.id })
          .count<{ count: number }[]>({ count: '*' }),
      ).to.deep.equal([{ count: 0 }]);
    });
  });

  it('tells each delivery of a backlog at one endpoint of its turn about once, not once per turn given back', async () => {
    const limit = 3;
    const count = 60;
    await withBacklog({ limit, count, delayMs: 200 }, async ({ slow, webhook, events }) => {
      expect(slow.maxInFlight).to.equal(limit);
      let signals = 0;
      for (const event of events) {
        const history = await stack.client.workflow
          .getHandle(webhookDeliveryWorkflowId(event.id, webhook.id))
          .fetchHistory();
        signals += (history.events ?? []).filter((e) => e.workflowExecutionSignaledEventAttributes).length;
      }
      // The first `limit` go at once; each of the others is told once when a turn comes free for it. A
      // little slack for a waiter whose told turn a waiter ahead of it took back (it is told again).
      expect(signals / count, `${signals} signals for ${count} deliveries`).to.be.at.most(1.25);
    });
  });
});
