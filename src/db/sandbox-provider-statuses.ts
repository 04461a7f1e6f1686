/**
 * A merchant's own status of a provider, country and operation in its sandbox (docs/availability.md#sandbox-override):
 * `sandbox_provider_statuses`, one row per merchant and key, read only until its `expires_at`. The one writer of the
 * table; a change of the status the merchant sees writes its `provider.status_changed` event, to that merchant only,
 * in the same transaction.
 */
import { createHash } from 'node:crypto';
import { base62FromDigest, ID_PREFIXES, ID_RANDOM_LENGTH } from '../domain/ids';
import {
  STATUS_CHANGED_EVENT,
  type HealthKey,
  type ProviderStatus,
  type StatusChangedData,
} from '../domain/provider-health';
import type { Db } from './knex';
import { insertEventOnce, type EventInput } from './payments';
import { healthKeyOf } from './provider-health';
import { subscribedWebhookIdsQuery } from './webhook-subscribers';

/** A merchant's sandbox status of one key while it holds: its status, reason and end (epoch ms). */
export interface SandboxStatus extends HealthKey {
  status: ProviderStatus;
  reason: string;
  expiresAt: number;
}

interface SandboxStatusRow extends HealthKey {
  status: ProviderStatus;
  reason: string;
  expires_at: Date;
}

const rowToStatus = (row: SandboxStatusRow): SandboxStatus => ({
  provider: row.provider,
  country: row.country.trim(),
  operation: row.operation,
  status: row.status,
  reason: row.reason,
  expiresAt: row.expires_at.getTime(),
});

/** The sandbox statuses of `merchantId` that still hold at `now` (epoch ms), by `healthKeyOf`. One indexed read. */
export async function readSandboxStatuses(
  db: Db,
  merchantId: string,
  now: number,
): Promise<Map<string, SandboxStatus>> {
  const rows = (await db('sandbox_provider_statuses')
    .where({ merchant_id: merchantId })
    .where('expires_at', '>', new Date(now))
    .select('provider', 'country', 'operation', 'status', 'reason', 'expires_at')) as SandboxStatusRow[];
  return new Map(rows.map((row) => [healthKeyOf(row), rowToStatus(row)] as const));
}

/** What a sandbox status write did: the status the merchant saw before and sees now, and the event it wrote. */
export interface SandboxStatusWrite {
  before: ProviderStatus;
  after: ProviderStatus;
  /** The `provider.status_changed` event to the merchant, when its status changed and one of its webhooks takes it. */
  event: Pick<EventInput, 'id' | 'merchantId' | 'environment' | 'type'> | null;
}

/**
 * Sets the status `merchantId` sees for `key` in its sandbox from `now` until `expiresAt` (epoch ms), replacing any
 * earlier one of the key. `pooled` is the status the sandbox shows every merchant without one (the measured or an
 * operator's). When what the merchant sees changes, writes one `provider.status_changed` event to that merchant, if a
 * webhook of its sandbox takes it (docs/availability.md#events).
 */
export async function setSandboxStatus(
  db: Db,
  merchantId: string,
  key: HealthKey,
  set: { status: ProviderStatus; reason: string; pooled: ProviderStatus },
  now: number,
  expiresAt: number,
): Promise<SandboxStatusWrite> {
  const at = new Date(now);
  return db.transaction(async (trx) => {
    const earlier = (await trx('sandbox_provider_statuses')
      .where({ merchant_id: merchantId, ...key })
      .where('expires_at', '>', at)
      .forUpdate()
      .first('status')) as { status: ProviderStatus } | undefined;
    const before = earlier?.status ?? set.pooled;
    await trx('sandbox_provider_statuses')
      .insert({
        merchant_id: merchantId,
        ...key,
        status: set.status,
        reason: set.reason,
        set_at: at,
        expires_at: new Date(expiresAt),
      })
      .onConflict(['merchant_id', 'provider', 'country', 'operation'])
      .merge(['status', 'reason', 'set_at', 'expires_at']);
    if (before === set.status) return { before, after: set.status, event: null };
    const subscribed = await subscribedWebhookIdsQuery(
      trx,
      { merchantId, environment: 'sandbox' },
      STATUS_CHANGED_EVENT,
    ).first();
    if (!subscribed) return { before, after: set.status, event: null };
    const data: StatusChangedData = {
      ...key,
      status: set.status,
      previous_status: before,
      since: at.toISOString(),
      reason: set.reason,
      success_rate: null,
      window_attempts: 0,
    };
    const ref = `sandbox-provider-status:${merchantId}:${healthKeyOf(key)}:${data.since}`;
    const event: EventInput = {
      id: ID_PREFIXES.event + base62FromDigest(createHash('sha256').update(ref).digest(), ID_RANDOM_LENGTH),
      merchantId,
      environment: 'sandbox',
      type: STATUS_CHANGED_EVENT,
      objectId: ref,
      data,
      createdAt: data.since,
    };
    await insertEventOnce(trx, event);
    return { before, after: set.status, event: { id: event.id, merchantId, environment: 'sandbox', type: event.type } };
  });
}
