/**
 * The measurement of operators' health (docs/availability.md#statuses), run by its workflow every 30 seconds: reads
 * the decided attempts of the environment, judges every provider, country and operation, stores each status.
 */
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import type { Db } from '../db/knex';
import {
  findStatusChangedEvents,
  healthKeyOf,
  readBuckets,
  readHealth,
  readTypicalP95,
  saveHealth,
  shownStatus,
} from '../db/provider-health';
import type { Environment } from '../domain/environment';
import {
  bucketFigures,
  nextHealth,
  servedHealthKeys,
  statusOfFigures,
  type ProviderStatus,
  type StatusChange,
} from '../domain/provider-health';
import { getProcessLogger } from '../logger';
import { startWebhookDeliveries, type DispatchDeps } from './webhook-dispatch';

/** The reason written with a measured change: the figures that caused it. */
function reasonOf(figures: ReturnType<typeof bucketFigures>, to: ProviderStatus): string {
  const share = figures.providerFailureShare === null ? 'no' : `${Math.round(figures.providerFailureShare * 100)} %`;
  if (figures.neverReachedInARow >= 5 && to === 'down')
    return `the ${figures.neverReachedInARow} most recent attempts never reached it`;
  return `${share} provider failures in the last ${figures.attempts} attempts, p95 ${figures.p95Seconds ?? '–'} s`;
}

/**
 * Measures every provider, country and operation `environment` serves at `now` (epoch ms) and stores each result
 * (docs/availability.md#statuses). Safe to run twice: the second run at the same `now` changes nothing.
 * @returns the statuses shown that changed
 */
export async function measureProviderHealth(db: Db, environment: Environment, now: number): Promise<StatusChange[]> {
  const [buckets, typical, stored] = await Promise.all([
    readBuckets(db, environment, now),
    readTypicalP95(db, environment, now),
    readHealth(db, environment),
  ]);
  const changes: StatusChange[] = [];
  for (const key of servedHealthKeys(environment)) {
    const id = healthKeyOf(key);
    const before = stored.get(id);
    const figures = bucketFigures(buckets.get(id) ?? [], now);
    const pointsTo = statusOfFigures(figures, typical.get(id) ?? null);
    const state = nextHealth(before?.state ?? { status: 'operational', since: 0, betterSince: null }, pointsTo, now);
    const shown = before?.override?.status ?? state.status;
    // A key never measured showed `operational` (GET /v1/availability says so): a first measurement that finds it
    // worse is a change merchants are told of.
    const shownBefore = shownStatus(before);
    const changed = await saveHealth(
      db,
      environment,
      key,
      { state, figures, shownBefore, shown },
      now,
      reasonOf(figures, shown),
    );
    if (changed) changes.push({ ...key, from: shownBefore, to: shown });
  }
  return changes;
}

/**
 * Starts the deliveries of the `provider.status_changed` events the changes of `environment` at `at` (epoch ms) wrote
 * (docs/availability.md#events). Safe to repeat: a delivery already started is not started again.
 * @returns how many events it started deliveries of
 */
export async function deliverStatusChanges(deps: DispatchDeps, environment: Environment, at: number): Promise<number> {
  const events = await findStatusChangedEvents(deps.db, environment, at);
  for (const event of events) await startWebhookDeliveries(deps, event);
  return events.length;
}

/**
 * Dependencies of the health activities: the database, and the Temporal client with the deliveries' task queue
 * (`TEMPORAL_WEBHOOK_TASK_QUEUE`) that starts the deliveries of `provider.status_changed`.
 */
export interface ProviderHealthActivityDeps {
  db: Db;
  temporal: Client;
  config: Pick<Config, 'TEMPORAL_WEBHOOK_TASK_QUEUE'>;
}

/** The health activities, keyed by name. */
export function createProviderHealthActivities(deps: ProviderHealthActivityDeps) {
  return {
    /**
     * Measures `environment` at `input.now` (epoch ms, the workflow's clock, so a retry measures the same moment; the
     * activity's clock without it) and stores every status; each change is logged as a warning for the on-call
     * engineer, and the deliveries of its `provider.status_changed` events start (a retry starts those its first try
     * wrote).
     * @returns the shown statuses that changed
     */
    async measureProviderHealth(input: { environment: Environment; now?: number }): Promise<StatusChange[]> {
      const now = input.now ?? Date.now();
      const changes = await measureProviderHealth(deps.db, input.environment, now);
      for (const change of changes)
        getProcessLogger().warn({ ...change, environment: input.environment }, 'provider status changed');
      await deliverStatusChanges(
        { db: deps.db, temporal: deps.temporal, taskQueue: deps.config.TEMPORAL_WEBHOOK_TASK_QUEUE },
        input.environment,
        now,
      );
      return changes;
    },
  };
}
