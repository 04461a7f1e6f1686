/**
 * One measurement of operators' health in an environment (docs/availability.md#statuses), started every 30 seconds by
 * its Schedule. The work is one activity; the workflow gives it its retries and makes each run visible in the Temporal
 * UI. The window lives in PostgreSQL, so a worker restart loses nothing of it.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Environment } from '../domain/environment';
import type { StatusChange } from '../domain/provider-health';
import type { ProviderHealthActivities } from './activity-contracts';

const { measureProviderHealth } = proxyActivities<ProviderHealthActivities>({
  startToCloseTimeout: '20 seconds',
  // A measurement older than the next one is worth nothing: give up before the Schedule's next start.
  scheduleToCloseTimeout: '25 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 seconds' },
});

/**
 * Measures `input.environment` once, at the workflow's moment: every retry of the activity measures the same moment, so
 * one that follows a try whose changes were written still starts their events' deliveries.
 * @returns the statuses that changed
 */
export async function providerHealthWorkflow(input: { environment: Environment }): Promise<StatusChange[]> {
  return measureProviderHealth({ environment: input.environment, now: Date.now() });
}
