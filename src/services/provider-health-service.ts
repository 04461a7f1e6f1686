/**
 * Operator health (docs/availability.md): the availability merchants read, operators' overrides, and the Schedules of
 * the measurement (src/activities/provider-health-activities.ts) every 30 seconds.
 */
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client } from '@temporalio/client';
import { ENVIRONMENTS, type Environment } from '../domain/environment';
import { DomainError } from '../domain/errors';
import {
  dailyWorst,
  servedHealthKeys,
  STATUS_PAGE_DAYS,
  type AvailabilityRow,
  type HealthKey,
  type ProviderStatus,
  type StatusPage,
} from '../domain/provider-health';
import { healthKeyOf, readHealth, readStatusChanges, setOverride, shownStatus } from '../db/provider-health';
import type { Db } from '../db/knex';

/** Every served key of `environment` with its status, measured or not yet (then `operational` without figures). */
export async function availabilityOf(db: Db, environment: Environment): Promise<AvailabilityRow[]> {
  const stored = await readHealth(db, environment);
  return servedHealthKeys(environment).map((key) => {
    const health = stored.get(healthKeyOf(key));
    return {
      ...key,
      status: shownStatus(health),
      since: health && health.state.since > 0 ? new Date(health.state.since).toISOString() : null,
      successRate: health?.figures.successRate ?? null,
      p50Seconds: health?.figures.p50Seconds ?? null,
      p95Seconds: health?.figures.p95Seconds ?? null,
      windowAttempts: health?.figures.attempts ?? 0,
      reason: health?.override?.reason ?? null,
    };
  });
}

/**
 * The live environment's status page at `now` (epoch ms; docs/availability.md#status-page): today's status of every
 * provider, country and operation, the worst status of each of the last 90 days, and the changes of those days.
 */
export async function statusPageOf(db: Db, now: number): Promise<StatusPage> {
  const firstDay = (Math.floor(now / 86_400_000) - (STATUS_PAGE_DAYS - 1)) * 86_400_000;
  const [rows, changes] = await Promise.all([availabilityOf(db, 'live'), readStatusChanges(db, 'live', firstDay)]);
  return {
    rows: rows.map((row) => ({
      ...row,
      days: dailyWorst(
        changes.filter((change) => healthKeyOf(change) === healthKeyOf(row)),
        row.status,
        now,
      ),
    })),
    incidents: [...changes].reverse(),
    firstDay: new Date(firstDay).toISOString().slice(0, 10),
  };
}

/**
 * An operator's status for one key, with a reason, until cleared (`status` null clears it;
 * docs/availability.md#overrides).
 * @throws DomainError `validation_error` naming `provider`, `country` or `operation` when `environment` does not serve
 *   it, or `reason` when a status comes without one
 */
export async function overrideProviderStatus(
  db: Db,
  environment: Environment,
  key: HealthKey,
  override: { status: ProviderStatus; reason: string; by: string } | null,
  now: number,
): Promise<{ before: ProviderStatus; after: ProviderStatus }> {
  const served = servedHealthKeys(environment);
  if (!served.some((k) => k.provider === key.provider))
    throw new DomainError('validation_error', `provider: ${environment} serves no provider ${key.provider}`);
  if (!served.some((k) => k.provider === key.provider && k.country === key.country))
    throw new DomainError('validation_error', `country: ${key.provider} is not served in ${key.country}`);
  if (!served.some((k) => healthKeyOf(k) === healthKeyOf(key)))
    throw new DomainError('validation_error', `operation: ${key.provider} in ${key.country} has no ${key.operation}`);
  if (override && !override.reason.trim())
    throw new DomainError('validation_error', 'reason: an override needs a reason');
  return setOverride(db, environment, key, override, now);
}

/** The Schedule of `environment`'s measurement (visible in the Temporal UI under Schedules). */
export function providerHealthScheduleId(environment: Environment): string {
  return `provider-health:${environment}`;
}

/**
 * Creates the measurement's Schedule of each environment that has none: every 30 seconds, a run skipped while the
 * previous one still runs (docs/availability.md#statuses); one that exists is left as it is, so an operator's pause
 * holds across restarts.
 * @returns the ids of the Schedules created now
 */
export async function ensureProviderHealthSchedules(temporal: Client, taskQueue: string): Promise<string[]> {
  const created: string[] = [];
  for (const environment of ENVIRONMENTS) {
    const scheduleId = providerHealthScheduleId(environment);
    try {
      await temporal.schedule.create({
        scheduleId,
        spec: { intervals: [{ every: '30s' }] },
        action: {
          type: 'startWorkflow',
          workflowType: 'providerHealthWorkflow',
          workflowId: `provider-health:${environment}`,
          args: [{ environment }],
          taskQueue,
        },
        policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
        memo: { purpose: "operators' health from the service's own traffic (docs/availability.md#statuses)" },
      });
      created.push(scheduleId);
    } catch (error) {
      if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    }
  }
  return created;
}
