/**
 * The worker process: runs every workflow and activity on task queue `payments` (D20).
 * Started by `npm start` as its own process; stops cleanly on SIGINT/SIGTERM.
 */
import { Runtime, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from './activities';
import { loadConfigOrExit, type Config } from './config';
import { createDb } from './db/knex';
import { createMailer } from './lib/mailer';
import { createLogger } from './logger';
import { providerRegistryFromConfig } from './providers/registry';
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
 * Worker options shared by the process and the tests: the workflows (bundled from
 * `src/workflows`, or a prebuilt bundle) and the activities.
 */
export function workerOptions(deps: ActivityDeps, taskQueue: string): Pick<WorkerOptions, 'taskQueue' | 'activities' | 'workflowsPath'> {
  return { taskQueue, activities: createActivities(deps), workflowsPath: require.resolve('./workflows') };
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger('worker', config.LOG_LEVEL);
  if (config.WORKER_METRICS_PORT !== 0) {
    // The Temporal SDK's worker metrics (task latencies, slots, polls) in the Prometheus format (D53).
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
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, namespace: config.TEMPORAL_NAMESPACE }, 'worker started');
  await worker.run();
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
