/**
 * How an activity's failure reaches workflow code. A regular activity fails with an
 * `ActivityFailure` whose cause is what the activity threw; a local activity's failure comes
 * unwrapped: the `ApplicationFailure` it threw, or a `TimeoutFailure` when its time ran out (the
 * TypeScript SDK does not wrap those, as the payment workflow's data-error test showed).
 *
 * Deterministic: only `@temporalio/workflow`.
 */
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';

/** An activity's failure as workflow code catches it, regular or local. */
export type ActivityError = ActivityFailure | ApplicationFailure | TimeoutFailure;

/**
 * Whether `error`, caught around an activity call, is the activity's failure (see {@link ActivityError})
 * rather than the workflow's own error. Only meaningful around a call that throws nothing else of these types.
 */
export function isActivityError(error: unknown): error is ActivityError {
  return error instanceof ActivityFailure || error instanceof ApplicationFailure || error instanceof TimeoutFailure;
}

/**
 * The ApplicationFailure an activity failed with: the failure itself (local) or its cause (regular); undefined for a
 * time-out or a lost worker.
 */
export function applicationCause(error: ActivityError): ApplicationFailure | undefined {
  if (error instanceof ApplicationFailure) return error;
  return error.cause instanceof ApplicationFailure ? error.cause : undefined;
}

/** The failure's own message, whatever wraps it. */
export function failureReason(error: ActivityError): string {
  if (error instanceof ActivityFailure && error.cause instanceof Error) return error.cause.message;
  return error.message;
}
