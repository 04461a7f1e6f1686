/**
 * Payouts in tests over HTTP (docs/payouts.md): a funded sandbox merchant, a wallet destination, a payout awaited, and
 * an API with a worker whose payouts go to scripted rails.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities, type Activities } from '../../src/activities';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import { createMailer } from '../../src/lib/mailer';
import type { PayoutRailRegistry } from '../../src/providers/payout-registry';
import { providerRegistryFromConfig } from '../../src/providers/registry';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from './http';
import { startApp } from './processes';
import { getStack, testConfig, workflowBundle } from './stack';

/** A merchant with `amount` RWF collected on MoMo and made available (fee 1.5 %). */
export async function fundedMerchant(amount: number): Promise<TestDeveloper & { available: number }> {
  const developer = await registerDeveloper();
  const created = await call('/v1/payments', {
    key: developer.key,
    body: { amount, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' },
  });
  await waitForPayment(developer.key, created.body.data.id, (p) => p.status === 'completed');
  const settled = await call('/v1/sandbox/balance/settle', { key: developer.key, method: 'POST' });
  const available = settled.body.data.available[0].amount as number;
  return { ...developer, available };
}

/** Adds a sandbox MTN wallet destination ending `ending` (national number 78800xxxx). */
export async function wallet(key: string, ending: string): Promise<string> {
  const added = await call('/v1/payout_destinations', {
    key,
    body: { type: 'mobile_money', phone_number: `+25078800${ending}` },
  });
  expect(added.status, JSON.stringify(added.body)).to.equal(201);
  return added.body.data.id as string;
}

/** Polls the payout until `done` holds (at most `ms`). */
export async function waitForPayout(key: string, id: string, done: (p: any) => boolean, ms = 90_000): Promise<any> {
  const until = Date.now() + ms;
  for (;;) {
    const shown = await call(`/v1/payouts/${id}`, { key });
    if (done(shown.body.data)) return shown.body.data;
    if (Date.now() > until) throw new Error(`payout ${id} is still ${JSON.stringify(shown.body.data)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** An API and an in-process worker on their own task queue, whose payouts go to scripted rails. */
export interface ScriptedRailsStack {
  baseUrl: string;
  /** Stops the worker (its running activities finish) and the API. */
  stop(): Promise<void>;
}

/**
 * Starts an API and a worker on a task queue of their own (`{prefix}-…`) over the shared stack, with the worker's real
 * activities but payouts sent to `payoutRails` (a payout fault test's scripted rails); `adapt` may replace activities
 * (a scripted fault) before the worker takes them. Creates wait 3 s for their workflow; rate limits are lifted.
 */
export async function startWithPayoutRails(
  prefix: string,
  payoutRails: PayoutRailRegistry,
  adapt: (activities: Activities) => Activities = (activities) => activities,
): Promise<ScriptedRailsStack> {
  const taskQueue = `${prefix}-${randomBytes(4).toString('hex')}`;
  const config = testConfig({ TEMPORAL_TASK_QUEUE: taskQueue, CREATE_WAIT_MS: '3000', RATE_LIMIT_MULTIPLIER: '1000' });
  const stack = await getStack();
  const activities = createActivities({
    db: stack.db,
    providers: providerRegistryFromConfig(createSandboxLedger(stack.db), config),
    mailer: createMailer(config),
    temporal: stack.client,
    config,
    payoutRails,
  });
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowBundle: await workflowBundle(),
    activities: adapt(activities),
  });
  const running = worker.run();
  const app = await startApp(config);
  return {
    baseUrl: app.baseUrl,
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
      await app.close();
    },
  };
}
