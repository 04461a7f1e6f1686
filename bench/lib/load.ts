/** Load shapes for the benchmark's Temporal-client baselines and its latency runs. */

/** When a closed loop stops: after `durationMs` milliseconds, or once `count` tasks were started. */
export type LoopLimit = { durationMs: number } | { count: number };

/**
 * Closed loop: `concurrency` loops each call `task` again as soon as it settles, until the limit.
 * @returns the successes and failures, and the elapsed time in milliseconds
 */
export async function runClosedLoop(
  concurrency: number,
  limit: LoopLimit,
  task: (index: number) => Promise<void>,
): Promise<{ ok: number; failed: number; elapsedMs: number; firstError?: unknown }> {
  const started = performance.now();
  const more = 'durationMs' in limit ? () => performance.now() < started + limit.durationMs : () => next < limit.count;
  let next = 0;
  let ok = 0;
  let failed = 0;
  let firstError: unknown;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (more()) {
        try {
          await task(next++);
          ok += 1;
        } catch (error) {
          failed += 1;
          firstError ??= error;
        }
      }
    }),
  );
  return { ok, failed, elapsedMs: performance.now() - started, firstError };
}

/**
 * Open loop: starts `task(i)` at `ratePerSecond` for `count` tasks, on schedule whether or not the
 * earlier ones have finished (so a slow answer does not hide the delay of the ones behind it), and
 * resolves when all have settled. @returns the failures
 */
export async function runOpenLoop(ratePerSecond: number, count: number, task: (index: number) => Promise<void>): Promise<{ failed: number; firstError?: unknown }> {
  const intervalMs = 1000 / ratePerSecond;
  const started = performance.now();
  const running: Promise<void>[] = [];
  let failed = 0;
  let firstError: unknown;
  for (let i = 0; i < count; i += 1) {
    const waitMs = started + i * intervalMs - performance.now();
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    running.push(
      task(i).catch((error: unknown) => {
        failed += 1;
        firstError ??= error;
      }),
    );
  }
  await Promise.all(running);
  return { failed, firstError };
}
