/**
 * Data PostgreSQL (or the database handle's guard before it) refused, as the API reports it
 * (docs/limits.md#request-bodies): the API's error middleware may not read the database layer itself.
 */
import { dataErrorOf, type DataErrorSummary } from '../db/errors';

/**
 * The SQLSTATE class 22 refusal `error` is or wraps (a NUL, a lone surrogate, a number out of
 * range, …), or undefined for any other error. Never the refused values.
 */
export function refusedData(error: unknown): DataErrorSummary | undefined {
  return dataErrorOf(error);
}
