/**
 * The worker process: runs the payment work on task queue `TEMPORAL_TASK_QUEUE` (`payments`,
 * docs/payments.md#workflow) and the webhook deliveries on `TEMPORAL_WEBHOOK_TASK_QUEUE`
 * (docs/webhooks.md#isolation), each with its own Worker and activity slots, so a hanging endpoint
 * cannot take the slots payments need; `WORKER_ROLE` runs one of them only (the production topology,
 * docs/operations.md#workers). Started by `npm start` as its own process; stops cleanly on SIGINT/SIGTERM.
 */
import fs from 'node:fs/promises';
import { bundleWorkflowCode, Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from './activities';
import { BUSINESS_HISTOGRAM_BUCKETS } from './activities/business-metrics';
import { activityLogContext } from './activities/log-context';
import { activityRetryMetrics } from './activities/retry-metrics';
import { loadConfigOrExit, type Config } from './config';
import { createDb, dbTimeoutsOf } from './db/knex';
import { createProviderRequestLog } from './db/provider-requests';
import { createSandboxLedger } from './db/sandbox-ledger';
import { createMailer } from './lib/mailer';
import { createLogger, getProcessLogger, temporalLevelOf, temporalLogger, type Logger } from './logger';
import { liveStatementSources, providerRegistryFromConfig } from './providers/registry';
import { startSandboxCallbackPump } from './providers/sandbox/callback-pump';
import { connectClient, connectWorker } from './temporal';
import { defaultStatementSource } from './activities/reconciliation-activities';
import type { ProviderCode } from './domain/catalogue';
import { removePayoutSweepSchedule } from './services/payout-service';
import { ensureProviderHealthSchedules } from './services/provider-health-service';
import { ensureReconciliationSchedules, reconciledAccounts } from './services/reconciliation-service';

/**
 * Activity dependencies built from configuration: database pool, provider adapters (the sandbox
 * simulators keeping their ledger in that database), mailer, and a Temporal client with which
 * activities that write events start their webhook deliveries (docs/payments.md#events).
 */
export async function createActivityDeps(config: Config, logger?: Logger): Promise<ActivityDeps> {
  const db = createDb(config.DATABASE_URL, config.DATABASE_POOL_MAX, logger, dbTimeoutsOf(config));
  const providers = providerRegistryFromConfig(createSandboxLedger(db), config, createProviderRequestLog(db));
  const temporal = await connectClient(config);
  const live = liveStatementSources(config.PROVIDERS.live);
  const statementSource = defaultStatementSource(db, (account) => live(account.provider));
  return { db, providers, temporal, mailer: createMailer(config), config, statementSource };
}

/**
 * How the workflow bundle is built, for the worker and the tests' bundle alike: from `src/workflows`,
 * with those modules preloaded. The worker runs every workflow in one reusable V8 context, where a
 * module first required by a workflow is evaluated again for each workflow and kept with it in the
 * cache; preloaded modules are evaluated once and shared. Ours (the workflows, their messages and
 * the pure domain code) keep no state at module level, only constants, message definitions and
 * activity proxies, which the SDK freezes, so sharing them is safe and saves each open workflow
 * their evaluation and a copy of their objects. The interceptor module adds the payment's merchant
 * to workflow log lines (src/workflows/log-attributes.ts).
 */
export const WORKFLOW_BUNDLE = {
  workflowsPath: require.resolve('./workflows'),
  preloadModules: [require.resolve('./workflows')],
  // The merchant id on every workflow log line (docs/operations.md#logs).
  workflowInterceptorModules: [require.resolve('./workflows/log-attributes')],
};

/**
 * Worker options shared by the process and the tests: the workflows (bundled as WORKFLOW_BUNDLE
 * says), the activities, and the activity interceptors: the log context of each activity (its
 * workflow, payment and merchant ids on every line, docs/operations.md#logs) and the counts of retries and give-ups
 * (`paycollect_activity_retries`, `paycollect_activity_give_ups`, docs/limits.md#retries), exported
 * with the SDK's metrics on WORKER_METRICS_PORT.
 */
export function workerOptions(
  deps: ActivityDeps,
  taskQueue: string,
): Pick<WorkerOptions, 'taskQueue' | 'activities' | 'workflowsPath' | 'bundlerOptions' | 'interceptors'> {
  return {
    taskQueue,
    activities: createActivities(deps),
    workflowsPath: WORKFLOW_BUNDLE.workflowsPath,
    bundlerOptions: { preloadModules: WORKFLOW_BUNDLE.preloadModules },
    interceptors: {
      activity: [activityLogContext, activityRetryMetrics],
      workflowModules: WORKFLOW_BUNDLE.workflowInterceptorModules,
    },
  };
}

/** One task queue a worker process serves, with the activities it runs at once there. */
export interface WorkerQueue {
  kind: 'payments' | 'webhooks';
  taskQueue: string;
  maxConcurrentActivityTaskExecutions: number;
}

/**
 * The task queues a worker process serves by `WORKER_ROLE` (docs/operations.md#workers): payment work
 * on TEMPORAL_TASK_QUEUE with WORKER_PAYMENT_ACTIVITY_SLOTS, webhook deliveries on
 * TEMPORAL_WEBHOOK_TASK_QUEUE with WORKER_WEBHOOK_ACTIVITY_SLOTS; both for `all`.
 */
export function workerQueues(
  config: Pick<
    Config,
    | 'WORKER_ROLE'
    | 'TEMPORAL_TASK_QUEUE'
    | 'TEMPORAL_WEBHOOK_TASK_QUEUE'
    | 'WORKER_PAYMENT_ACTIVITY_SLOTS'
    | 'WORKER_WEBHOOK_ACTIVITY_SLOTS'
  >,
): WorkerQueue[] {
  const queues: WorkerQueue[] = [];
  if (config.WORKER_ROLE !== 'webhooks')
    queues.push({
      kind: 'payments',
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      maxConcurrentActivityTaskExecutions: config.WORKER_PAYMENT_ACTIVITY_SLOTS,
    });
  if (config.WORKER_ROLE !== 'payments')
    queues.push({
      kind: 'webhooks',
      taskQueue: config.TEMPORAL_WEBHOOK_TASK_QUEUE,
      maxConcurrentActivityTaskExecutions: config.WORKER_WEBHOOK_ACTIVITY_SLOTS,
    });
  return queues;
}

/**
 * Installs the Temporal SDK's runtime (once per process, before any native connection): its logger
 * is ours, the Core SDK's own lines forwarded to it at our level (docs/operations.md#metrics), and, unless
 * `metricsPort` is
 * 0, the Prometheus endpoint on `host:metricsPort` with the SDK's worker metrics (task latencies,
 * slots, polls) and ours (src/activities/business-metrics.ts, late answers, retries), docs/api.md#health,
 * docs/operations.md#metrics.
 */
export function installRuntime(logger: Logger, level: string, host: string, metricsPort: number): void {
  Runtime.install({
    logger: temporalLogger(logger),
    telemetryOptions: {
      logging: { filter: { core: temporalLevelOf(level), other: 'ERROR' }, forward: {} },
      metrics:
        metricsPort === 0
          ? undefined
          : {
              prometheus: {
                bindAddress: `${host}:${metricsPort}`,
                histogramBucketOverrides: BUSINESS_HISTOGRAM_BUCKETS,
              },
            },
    },
  });
}

/**
 * The workflow bundle built with webpack kept quiet: its statistics (an `info` of many lines) are
 * dropped, its warnings and errors logged; one `info` line says the bundle's size.
 */
export async function quietWorkflowBundle(logger: Logger): Promise<{ code: string }> {
  const bundler = logger.child({ component: 'bundler' }, { level: logger.levelVal > 40 ? logger.level : 'warn' });
  const bundle = await bundleWorkflowCode({ ...WORKFLOW_BUNDLE, logger: temporalLogger(bundler) });
  logger.info({ component: 'bundler', bytes: bundle.code.length }, 'workflow bundle built');
  return { code: bundle.code };
}

/**
 * The worker's workflow bundle: the file `WORKER_WORKFLOW_BUNDLE` names, built ahead by `npm run build:workflows`
 * (docs/operations.md#workers), read as it is; else built now ({@link quietWorkflowBundle}, a few seconds of CPU).
 * @returns the bundle's code, in memory
 * @throws Error naming the setting when the file cannot be read or is empty
 */
export async function workerWorkflowBundle(
  config: Pick<Config, 'WORKER_WORKFLOW_BUNDLE'>,
  logger: Logger,
): Promise<{ code: string }> {
  const file = config.WORKER_WORKFLOW_BUNDLE;
  if (file === undefined) return quietWorkflowBundle(logger);
  let code: string;
  try {
    code = await fs.readFile(file, 'utf8');
  } catch (error) {
    throw new Error(
      `WORKER_WORKFLOW_BUNDLE: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (code.trim() === '') throw new Error(`WORKER_WORKFLOW_BUNDLE: ${file} is empty`);
  logger.info({ component: 'bundler', bytes: code.length, file }, 'workflow bundle read');
  return { code };
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger('worker', config.LOG_LEVEL);
  installRuntime(logger, config.LOG_LEVEL, config.HOST, config.WORKER_METRICS_PORT);
  const deps = await createActivityDeps(config, logger);
  const connection = await connectWorker(config);
  const queues = workerQueues(config);
  const workflowBundle = await workerWorkflowBundle(config, logger);
  // One Worker per task queue, sharing the connection and the bundle (built here, quietly, or read as built ahead; the
  // options' own bundling settings go with it).
  const workers = await Promise.all(
    queues.map(async (queue) => {
      const {
        workflowsPath: _path,
        bundlerOptions: _bundler,
        interceptors,
        ...options
      } = workerOptions(deps, queue.taskQueue);
      return Worker.create({
        connection,
        namespace: config.TEMPORAL_NAMESPACE,
        ...options,
        interceptors: { activity: interceptors?.activity },
        workflowBundle,
        maxCachedWorkflows: config.WORKER_MAX_CACHED_WORKFLOWS,
        maxConcurrentActivityTaskExecutions: queue.maxConcurrentActivityTaskExecutions,
      });
    }),
  );
  // The sandbox simulators' callbacks, sent as a provider would (docs/payments.md#provider-callbacks), when there is a
  // URL to send them to and this process runs payment work.
  const runsPayments = queues.some((queue) => queue.kind === 'payments');
  const callbacks =
    config.PROVIDER_CALLBACK_BASE_URL && runsPayments
      ? startSandboxCallbackPump({
          callbacks: createSandboxLedger(deps.db),
          secret: config.PROVIDER_CALLBACK_SECRET,
          logger,
        })
      : undefined;
  // The daily reconciliation of each provider account (docs/reconciliation.md#runs), created once by whichever payments
  // worker starts first; a failure to create them is logged and tried again at the next start.
  if (runsPayments) {
    const live = Object.keys(config.PROVIDERS.live) as ProviderCode[];
    await ensureReconciliationSchedules(deps.temporal, config.TEMPORAL_TASK_QUEUE, reconciledAccounts(live))
      .then((created) => created.length > 0 && logger.info({ schedules: created }, 'reconciliation schedules created'))
      .catch((error: unknown) => logger.warn({ err: error }, 'reconciliation schedules not created'));
    // Operators' health, measured every 30 s (docs/availability.md#statuses).
    await ensureProviderHealthSchedules(deps.temporal, config.TEMPORAL_TASK_QUEUE)
      .then((created) => created.length > 0 && logger.info({ schedules: created }, 'provider health schedules created'))
      .catch((error: unknown) => logger.warn({ err: error }, 'provider health schedules not created'));
    // The payout sweeper's Schedule of earlier versions goes: a payout's workflow stores it (docs/payouts.md#workflow).
    await removePayoutSweepSchedule(deps.temporal)
      .then((removed) => removed && logger.info({ schedule: 'payout-sweeper' }, 'payout sweeper schedule deleted'))
      .catch((error: unknown) => logger.warn({ err: error }, 'payout sweeper schedule not deleted'));
  }
  logger.info({ role: config.WORKER_ROLE, taskQueues: queues, namespace: config.TEMPORAL_NAMESPACE }, 'worker started');
  // A worker that fails ends the process (its error is thrown); SIGINT/SIGTERM stop them all.
  await Promise.all(workers.map((worker) => worker.run()));
  await callbacks?.stop();
  await deps.db.destroy();
  await deps.temporal.connection.close();
  await connection.close();
  logger.info('worker stopped');
}

if (require.main === module) {
  main().catch((error: unknown) => {
    getProcessLogger().fatal({ err: error }, 'worker failed');
    process.exit(1);
  });
}
