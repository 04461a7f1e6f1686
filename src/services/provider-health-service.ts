/**
 * Operator health (docs/availability.md): the availability merchants read, operators' overrides, and the Schedules of
 * the measurement (src/activities/provider-health-activities.ts) every 30 seconds.
 */
import { ScheduleOverlapPolicy, type Client, type ScheduleOptions } from '@temporalio/client';
import { ENVIRONMENTS, type Environment } from '../domain/environment';
import { createMissingSchedules } from '../lib/temporal-schedules';
import { DomainError, validationError, type FieldProblem } from '../domain/errors';
import type { Principal } from '../domain/principal';
import { startWebhookDeliveries, type DispatchDeps } from '../activities/webhook-dispatch';
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
import { readSandboxStatuses, setSandboxStatus } from '../db/sandbox-provider-statuses';
import { refusesWhenProviderDown } from '../db/merchant-settings';

/**
 * Every served key of `environment` with its status, measured or not yet (then `operational` without figures). In
 * sandbox, `merchantId`'s own statuses (docs/availability.md#sandbox-override) win over the pooled ones while they
 * hold at `now` (epoch ms): their status and reason; `since` and the figures stay the pooled ones'.
 */
export async function availabilityOf(
  db: Db,
  environment: Environment,
  merchantId?: string,
  now: number = Date.now(),
): Promise<AvailabilityRow[]> {
  const [stored, own] = await Promise.all([
    readHealth(db, environment),
    environment === 'sandbox' && merchantId ? readSandboxStatuses(db, merchantId, now) : new Map<string, never>(),
  ]);
  return servedHealthKeys(environment).map((key) => {
    const health = stored.get(healthKeyOf(key));
    const mine = own.get(healthKeyOf(key));
    return {
      ...key,
      status: mine?.status ?? shownStatus(health),
      since: health && health.state.since > 0 ? new Date(health.state.since).toISOString() : null,
      successRate: health?.figures.successRate ?? null,
      p50Seconds: health?.figures.p50Seconds ?? null,
      p95Seconds: health?.figures.p95Seconds ?? null,
      windowAttempts: health?.figures.attempts ?? 0,
      reason: mine?.reason ?? health?.override?.reason ?? null,
    };
  });
}

/** Who reads an operator's status: an environment, and the merchant whose sandbox statuses win there. */
export interface StatusViewer {
  environment: Environment;
  merchantId: string;
}

/**
 * The status `viewer` sees of one key at `now` (epoch ms; docs/availability.md#effects): the merchant's own sandbox
 * status while it holds, else the shown one (an operator's override, else the measured); `operational` for a key
 * nobody measures (a provider, country or operation not served).
 */
export async function providerStatusFor(
  db: Db,
  viewer: StatusViewer,
  key: HealthKey,
  now: number = Date.now(),
): Promise<{ status: ProviderStatus; reason: string | null }> {
  if (viewer.environment === 'sandbox') {
    const mine = (await readSandboxStatuses(db, viewer.merchantId, now)).get(healthKeyOf(key));
    if (mine) return { status: mine.status, reason: mine.reason };
  }
  const health = (await readHealth(db, viewer.environment)).get(healthKeyOf(key));
  return { status: shownStatus(health), reason: health?.override?.reason ?? null };
}

/**
 * `Retry-After` of a refusal because the provider is down, in seconds (docs/availability.md#effects): the status is
 * measured every 30 seconds and leaves `down` only after minutes within bounds, so a sooner retry would meet it again.
 */
export const PROVIDER_DOWN_RETRY_AFTER_SECONDS = 60;

/**
 * Refuses an attempt before anything is sent when `viewer` sees `key` as `down` (docs/availability.md#effects).
 * @throws DomainError `provider_unavailable` (503, `Retry-After` {@link PROVIDER_DOWN_RETRY_AFTER_SECONDS}) when down
 */
export async function refuseWhenDown(db: Db, viewer: StatusViewer, key: HealthKey): Promise<void> {
  const { status, reason } = await providerStatusFor(db, viewer, key);
  if (status !== 'down') return;
  throw new DomainError(
    'provider_unavailable',
    `${key.provider} is down for ${key.operation} in ${key.country}${reason ? ` (${reason})` : ''}: nothing was sent to it; retry in ${PROVIDER_DOWN_RETRY_AFTER_SECONDS} seconds`,
    undefined,
    undefined,
    PROVIDER_DOWN_RETRY_AFTER_SECONDS,
  );
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
 * An operator's status for one key, with a reason, until cleared (`override` null clears it;
 * docs/availability.md#overrides): {@link setOverride}'s call (the same arguments and answer, the status shown before
 * and after), with the key and the reason checked first.
 * @throws DomainError `validation_error` naming `provider`, `country` or `operation` when `environment` does not serve
 *   it, or `reason` when a status comes without one
 */
export const overrideProviderStatus: typeof setOverride = async (db, environment, key, override, now) => {
  const problem = unservedKeyProblem(environment, key);
  if (problem) throw new DomainError('validation_error', `${problem.field}: ${problem.message}`, [problem]);
  if (override && !override.reason.trim())
    throw new DomainError('validation_error', 'reason: an override needs a reason');
  return setOverride(db, environment, key, override, now);
};

/** The field of `key` that `environment` does not serve (`provider`, then `country`, then `operation`), if any. */
function unservedKeyProblem(environment: Environment, key: HealthKey): FieldProblem | undefined {
  const served = servedHealthKeys(environment);
  if (!served.some((k) => k.provider === key.provider))
    return { field: 'provider', message: `${environment} serves no provider ${key.provider}` };
  if (!served.some((k) => k.provider === key.provider && k.country === key.country))
    return { field: 'country', message: `${key.provider} is not served in ${key.country}` };
  if (!served.some((k) => healthKeyOf(k) === healthKeyOf(key)))
    return { field: 'operation', message: `${key.provider} in ${key.country} has no ${key.operation}` };
  return undefined;
}

/**
 * Refuses a merchant's API create to a `down` operator when the merchant's `refuse_when_provider_down` is on
 * (docs/availability.md#api-create); with it off (the default) the create is accepted and waits (docs/payments.md).
 * Only a payment with a country (mobile money) has an operator to judge. The setting comes with `owner` when its key's
 * lookup read it (`refusesWhenProviderDown`, at most 5 s old, docs/api.md#credentials), else from the database.
 * @throws DomainError `provider_unavailable` (503 with `Retry-After`) when refused
 */
export async function refuseCreateWhenDown(
  db: Db,
  owner: StatusViewer & { refusesWhenProviderDown?: boolean },
  resolved: { provider: HealthKey['provider']; country?: string | undefined },
): Promise<void> {
  if (!resolved.country) return;
  if (!(owner.refusesWhenProviderDown ?? (await refusesWhenProviderDown(db, owner.merchantId)))) return;
  await refuseWhenDown(db, owner, { provider: resolved.provider, country: resolved.country, operation: 'collection' });
}

/** How long a merchant's sandbox status holds, in milliseconds (docs/availability.md#sandbox-override). */
export const SANDBOX_STATUS_MS = 10 * 60_000;

/**
 * Sets the status `owner`'s sandbox sees for `key` for {@link SANDBOX_STATUS_MS} from `now` (epoch ms;
 * docs/availability.md#sandbox-override): its availability, its hosted pages' warnings and refusals and its
 * `refuse_when_provider_down` follow it; the simulator keeps answering. A change of what the merchant sees sends
 * `provider.status_changed` to that merchant's webhooks only.
 * @returns the status before and after, and when the status holds until (ISO 8601)
 * @throws DomainError `not_found` for a live key (a sandbox-only endpoint); `validation_error` naming `provider`,
 *   `country` or `operation` when the sandbox does not serve it
 */
export async function setSandboxProviderStatus(
  deps: DispatchDeps,
  owner: Pick<Principal, 'merchantId' | 'environment'>,
  key: HealthKey,
  set: { status: ProviderStatus; reason: string },
  now: number = Date.now(),
): Promise<{ before: ProviderStatus; after: ProviderStatus; expiresAt: string }> {
  if (owner.environment !== 'sandbox')
    throw new DomainError('not_found', "no such endpoint in live: a provider's status is set in the sandbox only");
  const problem = unservedKeyProblem('sandbox', key);
  if (problem) throw validationError([problem]);
  const pooled = shownStatus((await readHealth(deps.db, 'sandbox')).get(healthKeyOf(key)));
  const expiresAt = now + SANDBOX_STATUS_MS;
  const write = await setSandboxStatus(deps.db, owner.merchantId, key, { ...set, pooled }, now, expiresAt);
  if (write.event) await startWebhookDeliveries(deps, write.event);
  return { before: write.before, after: write.after, expiresAt: new Date(expiresAt).toISOString() };
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
  return createMissingSchedules(
    temporal,
    ENVIRONMENTS.map((environment): ScheduleOptions => ({
      scheduleId: providerHealthScheduleId(environment),
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
    })),
  );
}
