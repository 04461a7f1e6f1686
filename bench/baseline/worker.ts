/**
 * The baseline worker process: runs `bench/baseline/workflows.ts` on its own task queue of the
 * service's Temporal server. Started by the benchmark like the service worker (`--expose-gc`, the
 * memory probe's preload, an IPC channel); answers `memory` (see memory-probe) and
 * `cachedWorkflows` (workflows in its sticky cache). Stops on SIGTERM.
 *
 * Environment: TEMPORAL_ADDRESS; DATABASE_URL (the service's database, which the fair baseline's activity writes);
 * BENCH_MAX_CACHED_WORKFLOWS (the same value as the service worker's).
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { createDb } from '../../src/db/knex';
import { answerRequests } from '../lib/ipc';
import * as activities from './activities';
import { createFairActivities } from './fair-create';
import { BASELINE_TASK_QUEUE } from './shared';

async function main(): Promise<void> {
  const address = process.env.TEMPORAL_ADDRESS;
  if (!address) throw new Error('TEMPORAL_ADDRESS is not set');
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL is not set');
  // The pool size of the service worker's default (DATABASE_POOL_MAX), so both sides wait alike for connections.
  const db = createDb(databaseUrl, 10);
  const maxCached = process.env.BENCH_MAX_CACHED_WORKFLOWS ? Number(process.env.BENCH_MAX_CACHED_WORKFLOWS) : undefined;
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue: BASELINE_TASK_QUEUE,
    workflowsPath: require.resolve('./workflows'),
    activities: { ...activities, ...createFairActivities(db) },
    maxCachedWorkflows: maxCached,
  });
  answerRequests('cachedWorkflows', () => worker.getStatus().numCachedWorkflows);
  await worker.run();
  await connection.close();
  await db.destroy();
}

main().catch((error: unknown) => {
  process.stderr.write(`baseline worker failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
