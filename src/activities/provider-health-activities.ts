/**
 * The measurement of operators' health (docs/availability.md#statuses), run by its workflow every 30 seconds: reads
 * the decided attempts of the environment, judges every provider, country and operation, stores each status.
 */
import type { Db } from '../db/knex';
import { healthKeyOf, readBuckets, readHealth, readTypicalP95, saveHealth, shownStatus } from '../db/provider-health';
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
    const shownBefore = before ? shownStatus(before) : null;
    const changed = await saveHealth(
      db,
      environment,
      key,
      { state, figures, shownBefore, shown },
      now,
      reasonOf(figures, shown),
    );
    if (changed && shownBefore) changes.push({ ...key, from: shownBefore, to: shown });
  }
  return changes;
}

/** Dependencies of the health activities. */
export interface ProviderHealthActivityDeps {
  db: Db;
}

/** The health activities, keyed by name. */
export function createProviderHealthActivities(deps: ProviderHealthActivityDeps) {
  return {
    /**
     * Measures `environment` now and stores every status; each change is logged as a warning for the on-call engineer.
     * @returns the shown statuses that changed
     */
    async measureProviderHealth(input: { environment: Environment }): Promise<StatusChange[]> {
      const changes = await measureProviderHealth(deps.db, input.environment, Date.now());
      for (const change of changes)
        getProcessLogger().warn({ ...change, environment: input.environment }, 'provider status changed');
      return changes;
    },
  };
}
