/**
 * Creating Temporal Schedules that may already exist: the service's own (provider health, reconciliation) are ensured
 * at every start, and a merchant's automatic payout schedule is created or else updated. A Schedule that exists is
 * left as it is, so an operator's pause holds across restarts.
 */
import { ScheduleAlreadyRunning, type Client, type ScheduleOptions } from '@temporalio/client';

/**
 * Creates the Schedule `options` describes unless one with its `scheduleId` exists.
 * @returns true when it was created now, false when it existed (left unchanged)
 * @throws whatever else Temporal's create throws (unreachable, invalid options)
 */
export async function createScheduleIfAbsent(temporal: Client, options: ScheduleOptions): Promise<boolean> {
  try {
    await temporal.schedule.create(options);
    return true;
  } catch (error) {
    if (error instanceof ScheduleAlreadyRunning) return false;
    throw error;
  }
}

/**
 * Creates each of `schedules` that does not exist yet, in order (see {@link createScheduleIfAbsent}).
 * @returns the ids of the Schedules created now
 */
export async function createMissingSchedules(
  temporal: Client,
  schedules: readonly ScheduleOptions[],
): Promise<string[]> {
  const created: string[] = [];
  for (const options of schedules)
    if (await createScheduleIfAbsent(temporal, options)) created.push(options.scheduleId);
  return created;
}
