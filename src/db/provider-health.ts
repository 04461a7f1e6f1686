/**
 * Operator health's rows (docs/availability.md): the decided attempts it is measured from (`provider_outcomes`), the
 * last measured status of each provider, country and operation (`provider_health`) and its changes
 * (`provider_status_changes`). The one writer of the last two; outcomes are recorded once per attempt and operation
 * by src/db/provider-outcomes.ts (re-exported here); statuses only by the measurement ({@link saveHealth}) and
 * operators' overrides ({@link setOverride}), each change with its `provider.status_changed` events in the same
 * transaction.
 * Durations are milliseconds in the database and seconds in the domain; times ISO 8601 UTC.
 */
import { createHash } from 'node:crypto';
import type { ProviderCode } from '../domain/catalogue';
import type { Environment } from '../domain/environment';
import { base62FromDigest, ID_PREFIXES, ID_RANDOM_LENGTH } from '../domain/ids';
import {
  BUCKET,
  type BucketFigures,
  type DecidedAttempt,
  type HealthKey,
  type HealthOperation,
  type HealthState,
  type OutcomeSide,
  type ProviderStatus,
  type RecordedChange,
  STATUS_CHANGED_EVENT,
  servedHealthKeys,
  type StatusChangedData,
  type StatusOverride,
} from '../domain/provider-health';
import { iso, type Db } from './knex';

export { providerOutcomeInsert, recordProviderOutcome, type ProviderOutcomeInput } from './provider-outcomes';
import { insertEventOnce, type EventInput } from './payments';
import { subscribedMerchantIdsQuery } from './webhook-subscribers';

/** The stored health of one key: the status with its hysteresis, the figures of its last measurement, an override. */
export interface StoredHealth extends HealthKey {
  state: HealthState;
  figures: Pick<BucketFigures, 'attempts' | 'successRate' | 'providerFailureShare' | 'p50Seconds' | 'p95Seconds'>;
  override: StatusOverride | null;
  measuredAt: string;
}

/** The status a key shows: an operator's override wins over the measured one; `operational` before any measurement. */
export function shownStatus(stored: StoredHealth | undefined): ProviderStatus {
  return stored?.override?.status ?? stored?.state.status ?? 'operational';
}

/**
 * The status `key` shows in `environment` now (docs/availability.md#overrides): an operator's override winning over the
 * measured status, `operational` before any measurement; `reason` is the override's, else null. One indexed read.
 */
export async function readShownStatus(
  db: Db,
  environment: Environment,
  key: HealthKey,
): Promise<{ status: ProviderStatus; reason: string | null }> {
  const row = (await db('provider_health')
    .where({ environment, ...key })
    .first('status', 'override_status', 'override_reason')) as
    Pick<HealthRow, 'status' | 'override_status' | 'override_reason'> | undefined;
  if (row?.override_status) return { status: row.override_status, reason: row.override_reason };
  return { status: row?.status ?? 'operational', reason: null };
}

/** `provider:country:operation`, the key of a map of keys. */
export function healthKeyOf(key: HealthKey): string {
  return `${key.provider}:${key.country}:${key.operation}`;
}

interface OutcomeRow {
  provider: ProviderCode;
  country: string;
  operation: HealthOperation;
  decided_at: Date;
  duration_ms: string | number;
  outcome: 'success' | 'failure';
  side: OutcomeSide | null;
  never_reached: boolean;
}

/**
 * Every served key's bucket in `environment` at `now` (epoch ms): its most recent {@link BUCKET}.size decided attempts
 * within {@link BUCKET}.maxAgeMs, by {@link healthKeyOf}; a key without any is absent. One statement that reads, per
 * key, at most its bucket through the `(environment, provider, country, operation, decided_at)` index, so its cost
 * does not grow with the outcomes' history (docs/availability.md#measurement-cost).
 */
export async function readBuckets(
  db: Db,
  environment: Environment,
  now: number,
): Promise<Map<string, DecidedAttempt[]>> {
  const keys = JSON.stringify(servedHealthKeys(environment));
  const result = await db.raw<{ rows: OutcomeRow[] }>(
    `SELECT k.provider, k.country, k.operation, o.decided_at, o.duration_ms, o.outcome, o.side, o.never_reached
       FROM json_to_recordset(?::json) AS k(provider text, country char(2), operation text)
       CROSS JOIN LATERAL (
         SELECT decided_at, duration_ms, outcome, side, never_reached
           FROM provider_outcomes
          WHERE environment = ? AND provider = k.provider AND country = k.country AND operation = k.operation
            AND decided_at > ? AND decided_at <= ?
          ORDER BY decided_at DESC, id DESC
          LIMIT ?
       ) o`,
    [keys, environment, new Date(now - BUCKET.maxAgeMs), new Date(now), BUCKET.size],
  );
  const rows = result.rows;
  const buckets = new Map<string, DecidedAttempt[]>();
  for (const row of rows) {
    const key = healthKeyOf({ provider: row.provider, country: row.country.trim(), operation: row.operation });
    const bucket = buckets.get(key) ?? [];
    bucket.push({
      decidedAt: row.decided_at.getTime(),
      seconds: Number(row.duration_ms) / 1000,
      outcome: row.outcome,
      side: row.side,
      neverReached: row.never_reached,
    });
    buckets.set(key, bucket);
  }
  return buckets;
}

/**
 * Each key's typical p95 in `environment`: the 95th percentile of its durations over the 24 hours before `now`, in
 * seconds (docs/availability.md#statuses); a key without attempts is absent.
 */
export async function readTypicalP95(db: Db, environment: Environment, now: number): Promise<Map<string, number>> {
  const rows = (await db('provider_outcomes')
    .select(
      'provider',
      'country',
      'operation',
      db.raw('percentile_disc(0.95) within group (order by duration_ms) as p95'),
    )
    .where({ environment })
    .where('decided_at', '>', new Date(now - 86_400_000))
    .where('decided_at', '<=', new Date(now))
    .groupBy('provider', 'country', 'operation')) as (HealthKey & { p95: string | number })[];
  return new Map(rows.map((row) => [healthKeyOf({ ...row, country: row.country.trim() }), Number(row.p95) / 1000]));
}

interface HealthRow {
  provider: ProviderCode;
  country: string;
  operation: HealthOperation;
  status: ProviderStatus;
  since: Date;
  better_since: Date | null;
  window_attempts: number;
  success_rate: number | null;
  provider_failure_share: number | null;
  p50_ms: string | number | null;
  p95_ms: string | number | null;
  override_status: ProviderStatus | null;
  override_reason: string | null;
  override_by: string | null;
  measured_at: Date;
}

const seconds = (ms: string | number | null) => (ms === null ? null : Number(ms) / 1000);

/** Every stored health of `environment`, by {@link healthKeyOf}. */
export async function readHealth(db: Db, environment: Environment): Promise<Map<string, StoredHealth>> {
  const rows = (await db('provider_health').where({ environment })) as HealthRow[];
  return new Map(
    rows.map((row): [string, StoredHealth] => {
      const key = { provider: row.provider, country: row.country.trim(), operation: row.operation };
      return [
        healthKeyOf(key),
        {
          ...key,
          state: { status: row.status, since: row.since.getTime(), betterSince: row.better_since?.getTime() ?? null },
          figures: {
            attempts: row.window_attempts,
            successRate: row.success_rate,
            providerFailureShare: row.provider_failure_share,
            p50Seconds: seconds(row.p50_ms),
            p95Seconds: seconds(row.p95_ms),
          },
          override:
            row.override_status && row.override_reason
              ? { status: row.override_status, reason: row.override_reason, by: row.override_by ?? 'operator' }
              : null,
          measuredAt: iso(row.measured_at),
        },
      ];
    }),
  );
}

const msOf = (value: number | null) => (value === null ? null : Math.round(value * 1000));

/**
 * Stores one key's measurement at `now` (epoch ms): its state and figures, and, when the status it shows changed
 * (`shownBefore` → the status shown now, an override winning; `shownBefore` is `operational` for a key never measured,
 * as GET /v1/availability showed it), a row of `provider_status_changes` with `reason` and its events.
 * @returns true when the shown status changed
 */
export async function saveHealth(
  db: Db,
  environment: Environment,
  key: HealthKey,
  measured: { state: HealthState; figures: BucketFigures; shownBefore: ProviderStatus; shown: ProviderStatus },
  now: number,
  reason: string | null,
): Promise<boolean> {
  const at = new Date(now);
  return db.transaction(async (trx) => {
    await trx('provider_health')
      .insert({
        environment,
        ...key,
        status: measured.state.status,
        since: new Date(measured.state.since),
        better_since: measured.state.betterSince === null ? null : new Date(measured.state.betterSince),
        window_attempts: measured.figures.attempts,
        success_rate: measured.figures.successRate,
        provider_failure_share: measured.figures.providerFailureShare,
        p50_ms: msOf(measured.figures.p50Seconds),
        p95_ms: msOf(measured.figures.p95Seconds),
        measured_at: at,
      })
      .onConflict(['environment', 'provider', 'country', 'operation'])
      .merge([
        'status',
        'since',
        'better_since',
        'window_attempts',
        'success_rate',
        'provider_failure_share',
        'p50_ms',
        'p95_ms',
        'measured_at',
      ]);
    const changed = measured.shownBefore !== measured.shown;
    if (changed) {
      const change = { ...key, status: measured.shown, previous_status: measured.shownBefore, reason };
      await trx('provider_status_changes').insert({
        environment,
        ...key,
        from_status: change.previous_status,
        to_status: change.status,
        reason,
        at,
      });
      await writeStatusChangedEvents(trx, environment, {
        ...change,
        since: at.toISOString(),
        success_rate: measured.figures.successRate,
        window_attempts: measured.figures.attempts,
      });
    }
    return changed;
  });
}

/**
 * Sets (`override` given) or clears (null) an operator's status for one key at `now`, which wins over the measured one
 * until cleared (docs/availability.md#overrides); records the change of the shown status.
 * @returns the status shown before and after
 */
export async function setOverride(
  db: Db,
  environment: Environment,
  key: HealthKey,
  override: StatusOverride | null,
  now: number,
): Promise<{ before: ProviderStatus; after: ProviderStatus }> {
  const at = new Date(now);
  return db.transaction(async (trx) => {
    const row = (await trx('provider_health')
      .where({ environment, ...key })
      .forUpdate()
      .first()) as HealthRow | undefined;
    const measured = row?.status ?? 'operational';
    const before = row?.override_status ?? measured;
    const after = override?.status ?? measured;
    await trx('provider_health')
      .insert({
        environment,
        ...key,
        status: measured,
        since: row?.since ?? at,
        measured_at: row?.measured_at ?? at,
        override_status: override?.status ?? null,
        override_reason: override?.reason ?? null,
        override_by: override?.by ?? null,
      })
      .onConflict(['environment', 'provider', 'country', 'operation'])
      .merge(['override_status', 'override_reason', 'override_by']);
    if (before !== after) {
      const reason = override ? `${override.reason} (set by ${override.by})` : 'override cleared';
      await trx('provider_status_changes').insert({
        environment,
        ...key,
        from_status: before,
        to_status: after,
        reason,
        at,
      });
      await writeStatusChangedEvents(trx, environment, {
        ...key,
        status: after,
        previous_status: before,
        since: at.toISOString(),
        // The merchant reads the operator's own words; "cleared" when the measured status shows again.
        reason: override?.reason ?? 'override cleared',
        success_rate: row?.success_rate ?? null,
        window_attempts: row?.window_attempts ?? 0,
      });
    }
    return { before, after };
  });
}

/** What names one change of `environment` (the `object_id` of its events, indexed): its key and moment. */
function statusChangeRef(environment: Environment, key: HealthKey, since: string): string {
  return `provider-status:${environment}:${healthKeyOf(key)}:${since}`;
}

/**
 * Writes, inside the transaction `trx` of a status change, one `provider.status_changed` event (created at
 * `data.since`) per merchant of `environment` with a webhook that takes it (docs/availability.md#events); ids derive
 * from the change and the merchant, so a repeat writes nothing twice.
 */
async function writeStatusChangedEvents(trx: Db, environment: Environment, data: StatusChangedData): Promise<void> {
  const merchants = (await subscribedMerchantIdsQuery(trx, environment, STATUS_CHANGED_EVENT)) as {
    merchant_id: string;
  }[];
  const ref = statusChangeRef(environment, data, data.since);
  for (const { merchant_id: merchantId } of merchants) {
    const event: EventInput = {
      id:
        ID_PREFIXES.event +
        base62FromDigest(createHash('sha256').update(`${ref}:${merchantId}`).digest(), ID_RANDOM_LENGTH),
      merchantId,
      environment,
      type: STATUS_CHANGED_EVENT,
      objectId: ref,
      data,
      createdAt: data.since,
    };
    await insertEventOnce(trx, event);
  }
}

/**
 * The `provider.status_changed` events of `environment` written by the changes at `at` (epoch ms): what a measurement
 * or an override starts deliveries of, found again by a retry of the same moment (docs/availability.md#events). Two
 * indexed reads; none when nothing changed at `at`.
 */
export async function findStatusChangedEvents(
  db: Db,
  environment: Environment,
  at: number,
): Promise<Pick<EventInput, 'id' | 'merchantId' | 'environment' | 'type'>[]> {
  const since = new Date(at);
  const changes = (await db('provider_status_changes')
    .where({ environment, at: since })
    .select('provider', 'country', 'operation')) as HealthKey[];
  if (changes.length === 0) return [];
  const refs = changes.map((key) =>
    statusChangeRef(environment, { ...key, country: key.country.trim() }, since.toISOString()),
  );
  const rows = (await db('events')
    .whereIn('object_id', refs)
    .where({ environment, type: STATUS_CHANGED_EVENT })
    .orderBy('id')
    .select('id', 'merchant_id')) as { id: string; merchant_id: string }[];
  return rows.map((row) => ({ id: row.id, merchantId: row.merchant_id, environment, type: STATUS_CHANGED_EVENT }));
}

/** Every change of the shown status in `environment` since `from` (epoch ms), oldest first. */
export async function readStatusChanges(db: Db, environment: Environment, from: number): Promise<RecordedChange[]> {
  const rows = (await db('provider_status_changes')
    .where({ environment })
    .where('at', '>=', new Date(from))
    .orderBy([{ column: 'at' }, { column: 'id' }])
    .select('provider', 'country', 'operation', 'from_status', 'to_status', 'reason', 'at')) as (HealthKey & {
    from_status: ProviderStatus;
    to_status: ProviderStatus;
    reason: string | null;
    at: Date;
  })[];
  return rows.map((row) => ({
    provider: row.provider,
    country: row.country.trim(),
    operation: row.operation,
    at: row.at.getTime(),
    from: row.from_status,
    to: row.to_status,
    reason: row.reason,
  }));
}
