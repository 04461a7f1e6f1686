/**
 * Business days (docs/live-access.md#review): Monday to Friday in UTC; no public holidays. Pure, so the live access
 * review
 * workflow uses it for its reminder timer and tests check the same function.
 *
 * "N business days after t" keeps t's time of day and lands on the N-th business day after t's
 * day; a t on a weekend counts from the following Monday 00:00 UTC. So a request filed on Friday at
 * 18:00 is 3 business days old on Wednesday at 18:00 (not Monday), and one filed on Saturday is 3
 * business days old on Thursday at 00:00 (Monday, Tuesday and Wednesday have passed in full).
 */

/** One day in milliseconds (UTC has no daylight saving time). */
export const DAY_MS = 86_400_000;

/**
 * How many business days a request may wait under review before the reviewers are reminded
 * (docs/live-access.md#review).
 */
export const REVIEW_REMINDER_BUSINESS_DAYS = 3;

/** Reminders repeat every this many further business days while the request stays undecided. */
export const REVIEW_REMINDER_REPEAT_BUSINESS_DAYS = 1;

/** True when the instant `ms` (Unix epoch milliseconds) falls on a Monday to Friday, UTC. */
export function isBusinessDay(ms: number): boolean {
  const weekday = new Date(ms).getUTCDay();
  return weekday >= 1 && weekday <= 5;
}

/** The start (00:00 UTC) of the first business day after the day of `ms`. */
function startOfNextBusinessDay(ms: number): number {
  let day = Math.floor(ms / DAY_MS) * DAY_MS + DAY_MS;
  while (!isBusinessDay(day)) day += DAY_MS;
  return day;
}

/**
 * The instant `days` business days after `startMs` (both Unix epoch milliseconds, UTC), as the
 * module comment defines it.
 * @param days a non-negative integer
 * @throws RangeError for a negative or fractional `days` or a non-finite `startMs`
 */
export function addBusinessDays(startMs: number, days: number): number {
  if (!Number.isFinite(startMs)) throw new RangeError('startMs must be a finite number of milliseconds');
  if (!Number.isInteger(days) || days < 0) throw new RangeError('days must be a non-negative integer');
  let at = isBusinessDay(startMs) ? startMs : startOfNextBusinessDay(startMs);
  let counted = 0;
  while (counted < days) {
    at += DAY_MS;
    if (isBusinessDay(at)) counted += 1;
  }
  return at;
}

/**
 * When the next reviewer reminder is due (docs/live-access.md#review), in Unix epoch milliseconds.
 * @param lastScheduledMs when the previous reminder was due, or `undefined` before the first one
 * @param underReviewSinceMs when the request (last) entered `under_review`
 * @param nowMs the current time; a due time already past is moved on by whole business days, so a
 *   reminder late by a worker outage is sent once, not once per missed day
 */
export function nextReminderDueMs(
  lastScheduledMs: number | undefined,
  underReviewSinceMs: number,
  nowMs: number,
): number {
  let due =
    lastScheduledMs === undefined
      ? addBusinessDays(underReviewSinceMs, REVIEW_REMINDER_BUSINESS_DAYS)
      : addBusinessDays(lastScheduledMs, REVIEW_REMINDER_REPEAT_BUSINESS_DAYS);
  if (lastScheduledMs !== undefined) {
    while (due <= nowMs) due = addBusinessDays(due, REVIEW_REMINDER_REPEAT_BUSINESS_DAYS);
  }
  return due;
}
