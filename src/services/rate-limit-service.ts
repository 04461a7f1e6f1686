/**
 * Counting requests against their rate-limit windows (docs/limits.md#rate-limits); the HTTP side (who a request counts
 * against, the headers, the 429) is src/api/middleware/rate-limit.ts.
 */
import type { Db } from '../db/knex';
import { countInWindows, type WindowCount } from '../db/rate-limits';

export type { WindowCount };

/**
 * Counts one request in every window of `windows` at once (one statement, docs/limits.md#rate-limits).
 * @param nowMs when the request is counted (Unix milliseconds)
 * @returns each counter's points after the count, by key
 */
export async function countRequest(
  db: Db,
  windows: readonly WindowCount[],
  nowMs: number,
): Promise<Map<string, number>> {
  return countInWindows(db, windows, nowMs);
}
