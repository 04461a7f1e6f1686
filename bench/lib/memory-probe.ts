/**
 * Loaded (through probe-preload.mjs) into a worker process started with `--expose-gc`, it
 * answers the benchmark's `memory` request with the resident set size after garbage collection of
 * every thread: the main thread with `gc()`, the Temporal SDK's workflow thread (where the cached
 * workflows live) through the preload's BroadcastChannel responder. Importing it is the installation.
 */
import { BroadcastChannel } from 'node:worker_threads';
import { answerRequests } from './ipc';

/** The preload's channel name (probe-preload.mjs). */
const COLLECT_CHANNEL = 'bench-memory-probe';
/** How long to gather the threads' answers, in milliseconds (a GC of a large heap takes a while). */
const THREAD_ANSWER_MS = 1_500;
/** How long to wait for a first answer when none came in THREAD_ANSWER_MS (a loaded machine), in milliseconds. */
const FIRST_ANSWER_MAX_MS = 20_000;

/**
 * What the probe answers, sizes in bytes: the process's RSS, the main thread's JS heap in use, and
 * how many other threads ran a GC for it with their JS heaps in use (the workflow thread's holds the
 * cached workflows' JS state; the rest of their cost is native, in the SDK's core).
 */
export interface MemoryReading {
  rssBytes: number;
  heapUsedBytes: number;
  threadsCollected: number;
  threadHeapUsedBytes: number;
}

/** Asks every other thread to collect; gathers the answers that arrive within THREAD_ANSWER_MS. */
function collectOtherThreads(): Promise<{ threads: number; heapUsedBytes: number }> {
  const channel = new BroadcastChannel(COLLECT_CHANNEL);
  const answers = { threads: 0, heapUsedBytes: 0 };
  channel.onmessage = (event) => {
    const data = (event as MessageEvent).data as { type?: string; heapUsedBytes?: number } | undefined;
    if (data?.type !== 'collected') return;
    answers.threads += 1;
    answers.heapUsedBytes += data.heapUsedBytes ?? 0;
  };
  channel.postMessage({ type: 'collect' });
  const startedAt = Date.now();
  return new Promise((resolve) => {
    const check = () => {
      const waited = Date.now() - startedAt;
      if (waited >= THREAD_ANSWER_MS && (answers.threads > 0 || waited >= FIRST_ANSWER_MAX_MS)) {
        channel.close();
        resolve(answers);
      } else {
        setTimeout(check, 100);
      }
    };
    setTimeout(check, THREAD_ANSWER_MS);
  });
}

async function collectAndMeasure(): Promise<MemoryReading> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('start the process with --expose-gc to measure memory after GC');
  const threads = await collectOtherThreads();
  for (let i = 0; i < 3; i += 1) {
    gc();
    await new Promise((resolve) => setImmediate(resolve)); // let finalizers and weak callbacks run
  }
  const usage = process.memoryUsage();
  return {
    rssBytes: usage.rss,
    heapUsedBytes: usage.heapUsed,
    threadsCollected: threads.threads,
    threadHeapUsedBytes: threads.heapUsedBytes,
  };
}

answerRequests('memory', collectAndMeasure);
