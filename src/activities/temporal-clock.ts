/**
 * Now on Temporal's clock, for activities whose times must agree with their workflow's timers and time-outs.
 */
import { activityInfo } from '@temporalio/activity';

/**
 * Now on Temporal's clock: the time the server scheduled the running activity's attempt, the clock the workflows time
 * their timers by and the server times activities' time-outs by; outside an activity (a direct call), the process's
 * clock. On one deployment the two agree but for the hosts' skew.
 * @returns the moment, as a Date
 */
export function temporalNow(): Date {
  try {
    return new Date(activityInfo().currentAttemptScheduledTimestampMs);
  } catch {
    return new Date();
  }
}
