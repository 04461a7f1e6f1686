/**
 * The baseline worker process: runs `bench/baseline/workflows.ts` on its own task queue of the
 * service's Temporal server. Started by the benchmark like the service worker (`--expose-gc`, the
 * memory probe's preload, an IPC channel); answers `memory` (see memory-probe) and
 * `cachedWorkflows` (workflows in its sticky cache). Stops on SIGTERM.
 *
 * Environment: TEMPORAL_ADDRESS; BENCH_MAX_CACHED_WORKFLOWS (the same value as the service worker's).
 */
import { NativeConnection, Worker } from '@temporalio/worker';
import { answerRequests } from '../lib/ipc';
import * as activities from './activities';
import { BASELINE_TASK_QUEUE } from './shared';

async function main(): Promise<void> {
  const address = process.env.TEMPORAL_ADDRESS;
  if (!address) throw new Error('TEMPORAL_ADDRESS is not set');
  const maxCached = process.env.BENCH_MAX_CACHED_WORKFLOWS ? Number(process.env.BENCH_MAX_CACHED_WORKFLOWS) : undefined;
  const connection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue: BASELINE_TASK_QUEUE,
    workflowsPath: require.resolve('./workflows'),
    activities,
    maxCachedWorkflows: maxCached,
  });
  answerRequests('cachedWorkflows', () => worker.getStatus().numCachedWorkflows);
  await worker.run();
  await connection.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`baseline worker failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
