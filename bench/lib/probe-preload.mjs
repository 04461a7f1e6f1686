// Preload of the processes the benchmark starts (`node [--expose-gc] --import tsx --import
// ./bench/lib/probe-preload.mjs …`). Worker threads inherit `--import` flags, so this runs in the
// Temporal SDK's workflow thread too:
// - in the main thread it installs the probes that answer the benchmark over IPC: `memory`
//   (memory-probe.ts) and `sqlStatements` (sql-counter.ts);
// - in any other thread it answers the probe's collection call on a BroadcastChannel by running a
//   full GC of that thread's heap (and telling its size), which `gc()` in the main thread cannot reach.
//   (Plain JavaScript: threads get the `--import` flags but not tsx's loader.)
import v8 from 'node:v8';
import { BroadcastChannel, isMainThread, threadId } from 'node:worker_threads';

const COLLECT_CHANNEL = 'bench-memory-probe'; // the same name as in memory-probe.ts

if (isMainThread) {
  await import('./memory-probe.ts');
  await import('./sql-counter.ts');
} else if (typeof globalThis.gc === 'function') {
  const channel = new BroadcastChannel(COLLECT_CHANNEL);
  channel.onmessage = (event) => {
    if (event.data?.type !== 'collect') return;
    globalThis.gc();
    globalThis.gc();
    channel.postMessage({ type: 'collected', threadId, heapUsedBytes: v8.getHeapStatistics().used_heap_size });
  };
  channel.unref();
}
