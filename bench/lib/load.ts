/** Load shapes for the benchmark's Temporal-client baselines and its latency runs. */

/** When a closed loop stops: after `durationMs` milliseconds, or once `count` tasks were started. */
export type LoopLimit = { durationMs: number } | { count: number };

/**
 * Closed loop: `concurrency` loops each call `task` again as soon as it settles, until the limit.
 * @returns the successes and failures, the elapsed time in milliseconds, and when each success
 *   settled, in milliseconds since the start (for {@link steadyRate})
 */
export async function runClosedLoop(
  concurrency: number,
  limit: LoopLimit,
  task: (index: number) => Promise<void>,
): Promise<{ ok: number; failed: number; elapsedMs: number; completedAtMs: number[]; firstError?: unknown }> {
  const started = performance.now();
  const more = 'durationMs' in limit ? () => performance.now() < started + limit.durationMs : () => next < limit.count;
  let next = 0;
  let ok = 0;
  let failed = 0;
  let firstError: unknown;
  const completedAtMs: number[] = [];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (more()) {
        try {
          await task(next++);
          ok += 1;
          completedAtMs.push(performance.now() - started);
        } catch (error) {
          failed += 1;
          firstError ??= error;
        }
      }
    }),
  );
  return { ok, failed, elapsedMs: performance.now() - started, completedAtMs, firstError };
}

/**
 * How long a closed loop of `durationMs` runs before its rate is counted: the first answers of a
 * closed loop come only after one whole latency, so counting from the start undercounts a slower
 * side by about half its concurrency. 2 s, or a third of a shorter run.
 */
export function rampUpMs(durationMs: number): number {
  return Math.min(2_000, durationMs / 3);
}

/**
 * The steady rate of a closed loop of `durationMs`: the successes that settled between the end of
 * its ramp-up ({@link rampUpMs}) and `durationMs`, per second. Both sides of a throughput figure are
 * counted so, whatever drives them, so that neither gains from how the other's start or end is cut.
 * @param completedAtMs when each success settled, in milliseconds since the loop started
 */
export function steadyRate(completedAtMs: readonly number[], durationMs: number): number {
  const fromMs = rampUpMs(durationMs);
  const counted = completedAtMs.filter((at) => at >= fromMs && at < durationMs).length;
  return counted / ((durationMs - fromMs) / 1000);
}

/**
 * Open loop: starts `task(i)` at `ratePerSecond` for `count` tasks, on schedule whether or not the
 * earlier ones have finished (so a slow answer does not hide the delay of the ones behind it), and
 * resolves when all have settled. @returns the failures
 */
export async function runOpenLoop(
  ratePerSecond: number,
  count: number,
  task: (index: number) => Promise<void>,
): Promise<{ failed: number; firstError?: unknown }> {
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
