/**
 * The worker process: runs every workflow and activity on task queue `payments` (D20).
 * Started by `npm start` as its own process; stops cleanly on SIGINT/SIGTERM.
 */
import { Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from './activities';
import { activityRetryMetrics } from './activities/retry-metrics';
import { loadConfigOrExit, type Config } from './config';
import { createDb } from './db/knex';
import { createMailer } from './lib/mailer';
import { createLogger } from './logger';
import { providerRegistryFromConfig } from './providers/registry';
import { startSandboxCallbackPump } from './providers/sandbox/callback-pump';
import { connectClient, connectWorker } from './temporal';

/**
 * Activity dependencies built from configuration: database pool, provider adapters, mailer, and a Temporal
 * client with which activities that write events start their webhook deliveries (D22).
 */
export async function createActivityDeps(config: Config): Promise<ActivityDeps> {
  const db = createDb(config.DATABASE_URL, config.DATABASE_POOL_MAX);
  const providers = providerRegistryFromConfig(db, config);
  const temporal = await connectClient(config);
  return { db, providers, temporal, mailer: createMailer(config), config };
}

/**
 * How the workflow bundle is built, for the worker and the tests' bundle alike: from `src/workflows`,
 * with those modules preloaded. The worker runs every workflow in one reusable V8 context, where a
 * module first required by a workflow is evaluated again for each workflow and kept with it in the
 * cache; preloaded modules are evaluated once and shared. Ours (the workflows, their messages and
 * the pure domain code) keep no state at module level, only constants, message definitions and
 * activity proxies, which the SDK freezes, so sharing them is safe and saves each open workflow
 * their evaluation and a copy of their objects.
 */
export const WORKFLOW_BUNDLE = {
  workflowsPath: require.resolve('./workflows'),
  preloadModules: [require.resolve('./workflows')],
};

/**
 * Worker options shared by the process and the tests: the workflows (bundled as WORKFLOW_BUNDLE
 * says), the activities, and the activity interceptor counting retries and give-ups
 * (`paycollect_activity_retries`, `paycollect_activity_give_ups`, docs/limits.md#retries), exported
 * with the SDK's metrics on WORKER_METRICS_PORT.
 */
export function workerOptions(deps: ActivityDeps, taskQueue: string): Pick<WorkerOptions, 'taskQueue' | 'activities' | 'workflowsPath' | 'bundlerOptions' | 'interceptors'> {
  return {
    taskQueue,
    activities: createActivities(deps),
    workflowsPath: WORKFLOW_BUNDLE.workflowsPath,
    bundlerOptions: { preloadModules: WORKFLOW_BUNDLE.preloadModules },
    interceptors: { activity: [activityRetryMetrics] },
  };
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger('worker', config.LOG_LEVEL);
  if (config.WORKER_METRICS_PORT !== 0) {
    // The Temporal SDK's worker metrics (task latencies, slots, polls) and ours (late answers,
    // activity retries and give-ups) in the Prometheus format (D53, D70).
    Runtime.install({ telemetryOptions: { metrics: { prometheus: { bindAddress: `${config.HOST}:${config.WORKER_METRICS_PORT}` } } } });
  }
  const deps = await createActivityDeps(config);
  const connection = await connectWorker(config);
  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    ...workerOptions(deps, config.TEMPORAL_TASK_QUEUE),
    maxCachedWorkflows: config.WORKER_MAX_CACHED_WORKFLOWS,
  });
  // The sandbox simulators' callbacks, sent as a provider would (D16), when there is a URL to send them to.
  const callbacks = config.PROVIDER_CALLBACK_BASE_URL ? startSandboxCallbackPump({ db: deps.db, secret: config.PROVIDER_CALLBACK_SECRET, logger }) : undefined;
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, namespace: config.TEMPORAL_NAMESPACE }, 'worker started');
  await worker.run();
  await callbacks?.stop();
  await deps.db.destroy();
  await deps.temporal.connection.close();
  await connection.close();
  logger.info('worker stopped');
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`worker failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
