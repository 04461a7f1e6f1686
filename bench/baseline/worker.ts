/**
 * The baseline worker process: runs `bench/baseline/workflows.ts` on its own task queues of the
 * service's Temporal server, with one Worker per queue sharing the connection and the workflow bundle,
 * as the service's worker process runs its payment work and its webhook deliveries (src/worker.ts,
 * docs/webhooks.md#isolation): `BASELINE_TASK_QUEUE` and `BASELINE_DELIVERY_TASK_QUEUE`, 100 activity
 * slots each (the defaults of the service's WORKER_PAYMENT_ACTIVITY_SLOTS and WORKER_WEBHOOK_ACTIVITY_SLOTS).
 * Started by the benchmark like the service worker (`--expose-gc`, the memory probe's preload, an IPC
 * channel); answers `memory` (see memory-probe) and `cachedWorkflows` (workflows in both Workers' sticky
 * caches). Stops on SIGTERM.
 *
 * Environment: TEMPORAL_ADDRESS; DATABASE_URL (the service's database, which the fair baseline's activity writes);
 * BENCH_MAX_CACHED_WORKFLOWS (the same value as the service worker's); BENCH_WORKFLOW_BUNDLE (the workflow bundle built
 * once for the run, as the service worker's WORKER_WORKFLOW_BUNDLE; unset = built at the start).
 */
import fs from 'node:fs';
import { bundleWorkflowCode, NativeConnection, Worker } from '@temporalio/worker';
import { createDb } from '../../src/db/knex';
import { answerRequests } from '../lib/ipc';
import * as activities from './activities';
import { createFairActivities } from './fair-create';
import { BASELINE_DELIVERY_TASK_QUEUE, BASELINE_TASK_QUEUE } from './shared';

/** Activities each Worker runs at once: the service's default for each of its queues. */
const ACTIVITY_SLOTS = 100;

async function main(): Promise<void> {
  const address = process.env.TEMPORAL_ADDRESS;
  if (!address) throw new Error('TEMPORAL_ADDRESS is not set');
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('DATABASE_URL is not set');
  // The pool size of the service worker's default (DATABASE_POOL_MAX), so both sides wait alike for connections.
  const db = createDb(databaseUrl, 10);
  const maxCached = process.env.BENCH_MAX_CACHED_WORKFLOWS ? Number(process.env.BENCH_MAX_CACHED_WORKFLOWS) : undefined;
  const connection = await NativeConnection.connect({ address });
  // The bundle the bench built once for the run (as the service worker's WORKER_WORKFLOW_BUNDLE), else built here.
  const prebuilt = process.env.BENCH_WORKFLOW_BUNDLE;
  const workflowBundle = prebuilt
    ? { code: fs.readFileSync(prebuilt, 'utf8') }
    : await bundleWorkflowCode({ workflowsPath: require.resolve('./workflows') });
  const workers = await Promise.all(
    [BASELINE_TASK_QUEUE, BASELINE_DELIVERY_TASK_QUEUE].map((taskQueue) =>
      Worker.create({
        connection,
        namespace: 'default',
        taskQueue,
        workflowBundle,
        activities: { ...activities, ...createFairActivities(db) },
        maxCachedWorkflows: maxCached,
        maxConcurrentActivityTaskExecutions: ACTIVITY_SLOTS,
      }),
    ),
  );
  answerRequests('cachedWorkflows', () =>
    workers.reduce((sum, worker) => sum + worker.getStatus().numCachedWorkflows, 0),
  );
  // A worker that fails ends the process (its error is thrown); SIGTERM stops them all.
  await Promise.all(workers.map((worker) => worker.run()));
  await connection.close();
  await db.destroy();
}

main().catch((error: unknown) => {
  process.stderr.write(`baseline worker failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
