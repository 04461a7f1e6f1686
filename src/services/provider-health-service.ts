/**
 * Operator health (docs/availability.md): the measurement every 30 seconds, the availability merchants read, and
 * operators' overrides. The figures come from `provider_outcomes` by SQL (one query for every bucket, one for the
 * 24-hour p95s), the judgement from the pure domain (src/domain/provider-health.ts).
 */
import type { Environment } from '../domain/environment';
import { DomainError } from '../domain/errors';
import {
  bucketFigures,
  nextHealth,
  servedHealthKeys,
  statusOfFigures,
  type HealthKey,
  type ProviderStatus,
} from '../domain/provider-health';
import {
  healthKeyOf,
  readBuckets,
  readHealth,
  readTypicalP95,
  saveHealth,
  setOverride,
  type StoredHealth,
} from '../db/provider-health';
import type { Db } from '../db/knex';

/** One changed status of a measurement. */
export interface StatusChange extends HealthKey {
  from: ProviderStatus;
  to: ProviderStatus;
}

/** The status a key shows: an operator's override wins over the measured one. */
function shownOf(stored: StoredHealth | undefined): ProviderStatus {
  return stored?.override?.status ?? stored?.state.status ?? 'operational';
}

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
    const shownBefore = before ? shownOf(before) : null;
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

/** One row of `GET /v1/availability` (docs/availability.md#api); times ISO 8601 UTC, seconds, a 0–1 fraction. */
export interface AvailabilityRow extends HealthKey {
  status: ProviderStatus;
  since: string | null;
  successRate: number | null;
  p50Seconds: number | null;
  p95Seconds: number | null;
  windowAttempts: number;
  reason: string | null;
}

/** Every served key of `environment` with its status, measured or not yet (then `operational` without figures). */
export async function availabilityOf(db: Db, environment: Environment): Promise<AvailabilityRow[]> {
  const stored = await readHealth(db, environment);
  return servedHealthKeys(environment).map((key) => {
    const health = stored.get(healthKeyOf(key));
    return {
      ...key,
      status: shownOf(health),
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
