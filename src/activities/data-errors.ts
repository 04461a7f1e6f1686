/**
 * Data the database refuses is not a fault that passes (docs/api.md#errors): an activity whose statement
 * PostgreSQL refuses with SQLSTATE class 22 (NUL in text or jsonb, a number out of range, …) fails
 * non-retryably with `ApplicationFailure` type `DataError`, so no workflow retries it forever; the
 * message names the SQLSTATE and the activity, never the refused values.
 */
import { ApplicationFailure, log } from '@temporalio/activity';
import { dataErrorOf, describeDataError, type DataErrorSummary } from '../db/errors';
import { FAILURE_TYPES } from '../workflows/activity-contracts';

/**
 * The non-retryable `DataError` failure for `summary`, raised by activity `activityType`; its
 * details carry `{sqlState, condition}` for the workflow and the logs.
 */
export function dataFailure(
  summary: DataErrorSummary,
  activityType: string,
  type: string = FAILURE_TYPES.dataError,
): ApplicationFailure {
  return ApplicationFailure.create({
    type,
    message: `${activityType}: ${describeDataError(summary)}`,
    nonRetryable: true,
    details: [summary],
  });
}

/** Any async function an activity object holds. */
type AsyncFunction = (...args: never[]) => Promise<unknown>;

/**
 * The same activities, each failing a PostgreSQL data exception as the non-retryable `DataError`
 * (logged once with its SQLSTATE); every other error, and failures the activity raised itself, pass
 * through unchanged.
 * @param activities activities keyed by their registered name
 * @returns an object of the same shape and type
 */
export function failDataErrorsNonRetryably<T extends Record<string, AsyncFunction>>(activities: T): T {
  const wrapped: Record<string, AsyncFunction> = {};
  for (const [name, activity] of Object.entries(activities)) {
    wrapped[name] = async (...args: never[]) => {
      try {
        return await activity(...args);
      } catch (error) {
        const summary = error instanceof ApplicationFailure ? undefined : dataErrorOf(error);
        if (!summary) throw error;
        log.warn('PostgreSQL refused the data of an activity; not retried', {
          activity: name,
          sqlState: summary.sqlState,
          condition: summary.condition,
        });
        throw dataFailure(summary, name);
      }
    };
  }
  return wrapped as T;
}
