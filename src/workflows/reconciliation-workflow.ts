/**
 * One reconciliation run of a provider account for a UTC day (docs/reconciliation.md#runs), started
 * by the daily Schedule (for the day before it fires) or on demand by the admin command. The work is
 * one activity; the workflow gives it its retries and makes the run visible in the Temporal UI.
 */
import { proxyActivities } from '@temporalio/workflow';
import { previousUtcDay } from '../domain/reconciliation';
import type { ReconciliationActivities, ReconciliationInput, ReconciliationSummary } from './activity-contracts';
import { RECONCILIATION_OPTIONS } from './activity-options';

const { reconcileProviderDay } = proxyActivities<ReconciliationActivities>(RECONCILIATION_OPTIONS);

/**
 * Reconciles `input.day`, or, when the Schedule starts it without a day, the UTC day before now.
 * @returns what the run found
 */
export async function reconciliationWorkflow(
  input: Omit<ReconciliationInput, 'day'> & { day?: string },
): Promise<ReconciliationSummary> {
  const day = input.day ?? previousUtcDay(new Date(Date.now()));
  return reconcileProviderDay({ provider: input.provider, environment: input.environment, day });
}
