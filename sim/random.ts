/**
 * The simulator's one seeded source (docs/simulation.md#reproducibility): every draw is `pure-rand`'s xoroshiro128+
 * seeded from the run's seed and a name (the driver's own stream, or one payment's n-th status question), so an
 * operator's answer to a call depends on the seed and on which call it is, never on the order in which Temporal
 * happened to run the activities.
 */
import { activityInfo } from '@temporalio/activity';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformInt } from 'pure-rand/distribution/uniformInt';

/** A stream of draws from one seeded generator. */
export interface Draws {
  /** An integer in [from, to], both included. */
  int(from: number, to: number): number;
  /** True with probability `p` (0 … 1, in steps of 1/10 000). */
  chance(p: number): boolean;
  /** One of `items`, each with its weight (positive integers). */
  weighted<T>(items: readonly (readonly [T, number])[]): T;
  /** One of `items` (not empty), uniformly. */
  pick<T>(items: readonly T[]): T;
}

/** FNV-1a of `text`, 32 bits: mixes a name into the seed (pure, stable across runs and machines). */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}

/** The draws of stream `name` under `seed` (an integer): the same seed and name always give the same draws. */
export function draws(seed: number, name: string): Draws {
  const rng = xoroshiro128plus(fnv1a(`${seed}\u0000${name}`));
  const int = (from: number, to: number) => uniformInt(rng, from, to);
  return {
    int,
    chance: (p) => int(0, 9_999) < Math.round(p * 10_000),
    weighted(items) {
      const total = items.reduce((sum, [, weight]) => sum + weight, 0);
      let at = int(1, total);
      for (const [item, weight] of items) {
        at -= weight;
        if (at <= 0) return item;
      }
      return items[items.length - 1][0];
    },
    pick: (items) => items[int(0, items.length - 1)],
  };
}

/**
 * A simulated counterpart's clock: inside an activity, the time the test server scheduled the attempt (simulated
 * epoch milliseconds); outside one, and inside a local activity, `clock()` (the driver's last reading of the server's
 * clock): a local activity's attempt is scheduled by the worker, not the server, and its time is not the simulated
 * one.
 */
export function simulatedNow(clock: () => number): () => number {
  return () => {
    let info: ReturnType<typeof activityInfo>;
    try {
      info = activityInfo();
    } catch {
      return clock();
    }
    return info.isLocal ? clock() : info.currentAttemptScheduledTimestampMs;
  };
}

/**
 * The draws of calls by name (docs/simulation.md#reproducibility): `of(id, name)` gives the n-th call named `name`
 * about `id` (n from 0) its own stream under `seed`, keyed by the driver's label of `id` in `labels` when it has one.
 */
export function callDraws(seed: number, labels: ReadonlyMap<string, string>): (id: string, name: string) => Draws {
  const calls = new Map<string, number>();
  return (id, name) => {
    const key = `${labels.get(id) ?? id}:${name}`;
    const n = calls.get(key) ?? 0;
    calls.set(key, n + 1);
    return draws(seed, `${key}:${n}`);
  };
}
