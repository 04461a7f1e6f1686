/**
 * The real stack the API and workflow tests run against, built once per test run: PostgreSQL and the
 * Temporal dev server started by `npm test` (scripts/test.ts), real workers with the real
 * activities (one per task queue, as `src/worker.ts` runs them: payment work and webhook deliveries
 * apart, docs/webhooks.md#isolation), and the real Koa app listening on a free port.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import {
  bundleWorkflowCode,
  NativeConnection,
  Worker,
  type WorkerOptions,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { temporal } from '@temporalio/proto';
import {
  CUSTOM_SEARCH_ATTRIBUTES,
  initiatePaymentUpdate,
  INITIATE_UPDATE_ID,
  paymentWorkflowId,
  type PaymentWorkflowInput,
} from '../../src/workflows/messages';
import type { PaymentSnapshot } from '../../src/domain/payment';
import { createApp } from '../../src/api/app';
import { createActivities } from '../../src/activities';
import { loadConfig, type Config } from '../../src/config';
import { createDb, type Db } from '../../src/db/knex';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import { createMailer } from '../../src/lib/mailer';
import { createLogger } from '../../src/logger';
import {
  createProviderRegistry,
  providerRegistryFromConfig,
  type ProviderRegistry,
} from '../../src/providers/registry';
import type { PayoutRailRegistry } from '../../src/providers/payout-registry';
import { startSandboxCallbackPump, type CallbackPump } from '../../src/providers/sandbox/callback-pump';
import { WORKFLOW_BUNDLE, workerQueues } from '../../src/worker';

/** Everything a test can reach. */
export interface Stack {
  config: Config;
  db: Db;
  client: Client;
  baseUrl: string;
}

interface Running extends Stack {
  callbacks: CallbackPump;
  workers: Worker[];
  workerRuns: Promise<void>[];
  server: http.Server;
  connection: NativeConnection;
}

let bundlePromise: Promise<WorkflowBundleWithSourceMap> | undefined;
let stackPromise: Promise<Running> | undefined;

/** The workflow bundle, built once per run (bundling takes seconds). */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundlePromise ??= bundleWorkflowCode(WORKFLOW_BUNDLE);
  return bundlePromise;
}

/** Configuration as the test command's environment gives it, with per-test overrides. */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({ ...process.env, ...overrides });
}

async function start(): Promise<Running> {
  // The shared app serves many tests from one key a minute; the rate-limit tests build their own apps.
  const apiConfig = testConfig({ RATE_LIMIT_MULTIPLIER: '1000' });
  const db = createDb(apiConfig.DATABASE_URL, 10);
  const providers = providerRegistryFromConfig(createSandboxLedger(db), apiConfig);
  const connection = await NativeConnection.connect({ address: apiConfig.TEMPORAL_ADDRESS });
  const client = new Client({ connection: await Connection.connect({ address: apiConfig.TEMPORAL_ADDRESS }) });
  const app = createApp({
    config: apiConfig,
    db,
    temporal: client,
    providers,
    logger: createLogger('api-test', apiConfig.LOG_LEVEL),
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The simulators call back this API, as providers call the URL they are given (docs/payments.md#provider-callbacks).
  const config = { ...apiConfig, PROVIDER_CALLBACK_BASE_URL: baseUrl };
  const activities = createActivities({ db, providers, mailer: createMailer(config), temporal: client, config });
  const workers = await Promise.all(
    workerQueues(config).map(async (queue) =>
      Worker.create({
        connection,
        taskQueue: queue.taskQueue,
        maxConcurrentActivityTaskExecutions: queue.maxConcurrentActivityTaskExecutions,
        workflowBundle: await workflowBundle(),
        activities,
      }),
    ),
  );
  const workerRuns = workers.map((worker) => worker.run());
  const callbacks = startSandboxCallbackPump({
    callbacks: createSandboxLedger(db),
    secret: config.PROVIDER_CALLBACK_SECRET,
  });
  return { config, db, client, baseUrl, callbacks, workers, workerRuns, server, connection };
}

/** The shared stack, started on first use. */
export function getStack(): Promise<Stack> {
  stackPromise ??= start();
  return stackPromise;
}

const closedAtEnd: { close(): Promise<void> }[] = [];

/**
 * Closes `connection` after the last test instead of now. A gRPC call the API abandoned at its deadline through a
 * broken Temporal connection (test/api/stalls.test.ts) may still have a retry waiting in the client's retry
 * interceptor (up to 5 s × jitter); closing the channel under it makes that retry throw from a timer, an uncaught
 * error mocha pins on whichever test runs then, and the next tests run inside the abandoned request's log context.
 */
export function closeAfterLastTest(connection: { close(): Promise<void> }): void {
  closedAtEnd.push(connection);
}

/** Stops what `getStack` started, and closes the connections handed to {@link closeAfterLastTest} (root hook). */
export async function stopStack(): Promise<void> {
  await Promise.all(closedAtEnd.splice(0).map((connection) => connection.close()));
  if (!stackPromise) return;
  const running = await stackPromise;
  await new Promise<void>((resolve) => {
    running.server.close(() => resolve());
    running.server.closeAllConnections();
  });
  await running.callbacks.stop();
  for (const worker of running.workers) worker.shutdown();
  await Promise.all(running.workerRuns);
  await running.client.connection.close();
  await running.connection.close();
  await running.db.destroy();
}

/**
 * Options of {@link createTimeSkippingWorker} beyond the defaults: `workflows: false` for a worker of activities only
 * (no workflow bundle), and the SDK's own options named.
 */
export type SimWorkerOptions = Pick<WorkerOptions, 'shutdownForceTime' | 'enableNonLocalActivities'> & {
  workflows?: boolean;
};

/**
 * A worker on a time-skipping environment's task queue `taskQueue` with the real activities: the
 * sandbox simulators with no approval delay and refund answers (`0007`) unknown for an hour (their
 * clock is the wall clock, which a time-skipping test does not move; tests decide those refunds), the environment's
 * client for starting webhook deliveries on the same queue
 * (one worker serves both kinds of work here: the separation of docs/webhooks.md#isolation is tested on the shared
 * stack),
 * and private webhook targets allowed (the receivers listen on 127.0.0.1). `adjust` wraps the registry (a provider
 * with other capabilities, docs/payments.md#late-successes), `wrap` the activities (a fault of one of them);
 * `payoutRails`, when given, replaces the sandbox payout simulators (the whole-system simulation's rail); `options`
 * adds worker options (the whole-system simulation runs its workflows and its activities on separate workers, and its
 * crashing activity worker gives up its lost attempts at once).
 */
export async function createTimeSkippingWorker(
  env: TestWorkflowEnvironment,
  db: Db,
  taskQueue: string,
  adjust: (registry: ProviderRegistry) => ProviderRegistry = (registry) => registry,
  wrap: <T extends object>(activities: T) => T = (activities) => activities,
  payoutRails?: PayoutRailRegistry,
  options: SimWorkerOptions = {},
): Promise<Worker> {
  const { workflows = true, ...workerOptions } = options;
  return Worker.create({
    ...workerOptions,
    connection: env.nativeConnection,
    taskQueue,
    ...(workflows ? { workflowBundle: await workflowBundle() } : {}),
    activities: wrap(
      createActivities({
        db,
        providers: adjust(
          createProviderRegistry({
            ledger: createSandboxLedger(db),
            now: () => new Date(),
            approvalDelayMs: 0,
            bankTransferDelayMs: 0,
            refundUnknownMs: 3_600_000,
            callbackSecret: 'x'.repeat(32),
          }),
        ),
        temporal: env.client,
        mailer: createMailer(testConfig()),
        // The workflows its activities start (a checkout attempt's payment, a session told an outcome) go to the
        // queue this worker polls.
        config: {
          ...testConfig(),
          TEMPORAL_TASK_QUEUE: taskQueue,
          TEMPORAL_WEBHOOK_TASK_QUEUE: taskQueue,
          WEBHOOK_ALLOW_PRIVATE_TARGETS: true,
        },
        ...(payoutRails ? { payoutRails } : {}),
      }),
    ),
  });
}

/**
 * A time-skipping environment on the Java test server, for timers of minutes and days,
 * with the custom search attributes (docs/payments.md#workflow) registered through its operator service.
 */
export async function createTimeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  const path = process.env.TEMPORAL_TEST_SERVER_PATH;
  if (!path) throw new Error('TEMPORAL_TEST_SERVER_PATH is not set: run the tests with npm test');
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path } },
  });
  const keyword = temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: Object.fromEntries(CUSTOM_SEARCH_ATTRIBUTES.map((key) => [key.name, keyword])),
  });
  return env;
}

/** What {@link useTimeSkippingWorker} provides once its `before` hook has run. */
export interface TimeSkippingFixture {
  env: TestWorkflowEnvironment;
  db: Db;
}

/**
 * Mocha hooks for the calling `describe`: a time-skipping environment, a database pool (5
 * connections) and a worker with the real activities on `taskQueue`, started before the block's
 * tests and stopped after them. Register it before the block's own hooks, which then see it filled.
 * @returns the fixture, filled in by the `before` hook
 */
export function useTimeSkippingWorker(taskQueue: string): TimeSkippingFixture {
  const fixture = {} as TimeSkippingFixture;
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  before(async () => {
    fixture.env = await createTimeSkippingEnv();
    fixture.db = createDb(testConfig().DATABASE_URL, 5);
    worker = await createTimeSkippingWorker(fixture.env, fixture.db, taskQueue);
    running = worker.run();
  });
  after(async () => {
    worker?.shutdown();
    await running;
    await fixture.env?.teardown();
    await fixture.db?.destroy();
  });
  return fixture;
}

/**
 * Starts `payment`'s workflow as a create on `taskQueue` of the time-skipping `env` and answers its create's Update
 * (docs/payments.md#workflow): the handle and the payment as initiation left it.
 */
export async function startCreateOn(
  env: TestWorkflowEnvironment,
  taskQueue: string,
  payment: PaymentSnapshot,
  reconciliationWindowSeconds: number,
): Promise<{ handle: WorkflowHandle; initiated: PaymentSnapshot }> {
  const input: PaymentWorkflowInput = { mode: 'create', payment, reconciliationWindowSeconds };
  const handle = await env.client.workflow.start('paymentWorkflow', {
    taskQueue,
    workflowId: paymentWorkflowId(payment.id),
    args: [input],
  });
  const initiated = await handle.executeUpdate(initiatePaymentUpdate, { updateId: INITIATE_UPDATE_ID });
  return { handle, initiated };
}
