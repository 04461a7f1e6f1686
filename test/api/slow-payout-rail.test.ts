/**
 * A payout whose rail is slow answers `pending` by PROVIDER_ANSWER_WAIT_MS (docs/payouts.md#workflow), and its events
 * say the rest: the real API app and a real worker on a task queue of their own, with the real activities except that
 * the sandbox rail takes 6 s to answer a send (as a live rail may, within its 10 s call time-out). Before, the create
 * held the request until the rail answered (up to CREATE_WAIT_MS, 10 s).
 */
import { randomBytes } from 'node:crypto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { expect } from 'chai';
import { createActivities } from '../../src/activities';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import { createMailer } from '../../src/lib/mailer';
import { providerRegistryFromConfig } from '../../src/providers/registry';
import { PROVIDER_ANSWER_WAIT_MS } from '../../src/workflows/messages';
import { call } from '../helpers/http';
import { fundedMerchant, waitForPayout, wallet } from '../helpers/payouts';
import { startApp } from '../helpers/processes';
import { getStack, testConfig, workflowBundle } from '../helpers/stack';

/** How long the slow rail takes to answer a send, in milliseconds. */
const RAIL_ANSWER_MS = 6_000;

describe('A payout to a slow rail (docs/payouts.md#workflow)', function () {
  this.timeout(120_000);
  const taskQueue = `slow-rail-${randomBytes(4).toString('hex')}`;
  const config = testConfig({ TEMPORAL_TASK_QUEUE: taskQueue, RATE_LIMIT_MULTIPLIER: '1000' });
  let app: Awaited<ReturnType<typeof startApp>>;
  let connection: NativeConnection;
  let worker: Worker;
  let running: Promise<void>;

  before(async () => {
    app = await startApp(config);
    const { db, client } = await getStack();
    const activities = createActivities({
      db,
      providers: providerRegistryFromConfig(createSandboxLedger(db), config),
      temporal: client,
      mailer: createMailer(config),
      config,
    });
    const send = activities.sendPayoutToRail;
    connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
    worker = await Worker.create({
      connection,
      taskQueue,
      workflowBundle: await workflowBundle(),
      activities: {
        ...activities,
        sendPayoutToRail: async (payoutId: string) => {
          await new Promise((resolve) => setTimeout(resolve, RAIL_ANSWER_MS));
          return send(payoutId);
        },
      },
    });
    running = worker.run();
  });

  after(async () => {
    worker?.shutdown();
    await running;
    await connection?.close();
    await app?.close();
  });

  it('answers 201 pending by the wait, then the payout is paid with its events', async () => {
    const merchant = await fundedMerchant(20_000);
    const destination = await wallet(merchant.key, '0001');
    const sent = Date.now();
    const created = await call('/v1/payouts', {
      baseUrl: app.baseUrl,
      key: merchant.key,
      headers: { 'idempotency-key': `slow-${randomBytes(4).toString('hex')}` },
      body: { amount: 1_000, currency: 'RWF', destination },
    });
    expect(Date.now() - sent).to.be.below(PROVIDER_ANSWER_WAIT_MS + 3_000);
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.body.data.status).to.equal('pending');
    const paid = await waitForPayout(merchant.key, created.body.data.id, (p) => p.status === 'paid', 60_000);
    const timeline = paid.timeline.map((s: { status: string }) => s.status);
    expect(timeline[0]).to.equal('pending');
    expect(timeline.at(-1)).to.equal('paid');
    const events = await call('/v1/developer/events?limit=100', { key: merchant.key });
    const types = (events.body.data.events as { event: string; data: { id: string } }[])
      .filter((e) => e.data.id === created.body.data.id)
      .map((e) => e.event)
      .sort();
    expect(types).to.deep.equal(['payout.created', 'payout.paid']);
  });
});
