/**
 * Rate-limit counters (docs/limits.md#rate-limits) in `rate_limits`, the table shape rate-limiter-flexible's
 * PostgreSQL store uses (`key`, `points`, `expire` in Unix milliseconds), so both read and purge the same rows.
 */
import type { Db } from './knex';

/** One counter to add a point to: its key, and when a counter started now expires (Unix milliseconds). */
export interface WindowCount {
  key: string;
  expireAtMs: number;
}

/**
 * Adds one point to each counter of `windows` in one statement, as rate-limiter-flexible's `consume(key, 1)` does for
 * one: a counter whose `expire` has passed (or a new one) restarts at 1 with its new expiry, any other grows by one
 * and keeps its expiry. The rows are written in key order, so concurrent requests lock shared counters in one order.
 * @param nowMs the time the request is counted at (Unix milliseconds)
 * @returns the points of each counter after the count, by key
 */
export async function countInWindows(
  db: Db,
  windows: readonly WindowCount[],
  nowMs: number,
): Promise<Map<string, number>> {
  const sorted = [...windows].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  if (sorted.length === 0) return new Map();
  const values = sorted.map(() => '(?, 1, ?::bigint)').join(', ');
  const { rows } = (await db.raw(
    `insert into rate_limits (key, points, expire) values ${values}
     on conflict (key) do update set
       points = case when rate_limits.expire <= ? then 1 else rate_limits.points + 1 end,
       expire = case when rate_limits.expire <= ? then excluded.expire else rate_limits.expire end
     returning key, points`,
    [...sorted.flatMap((w) => [w.key, w.expireAtMs]), nowMs, nowMs],
  )) as { rows: { key: string; points: number }[] };
  return new Map(rows.map((row) => [row.key, row.points]));
}
