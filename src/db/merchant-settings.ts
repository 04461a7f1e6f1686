/**
 * Plan and custom limits of a merchant (docs/limits.md#rate-limits), changed by operators with the admin command
 * (docs/live-access.md#admin-command).
 */
import type { AuditEntry } from '../domain/audit-log';
import type { CustomLimits, Plan } from '../domain/plans';
import { insertAuditEntries } from './audit-log';
import type { Db } from './knex';

/** What the admin command shows of a merchant. */
export interface MerchantSettings {
  merchantId: string;
  developerId: string;
  email: string;
  name: string;
  businessName: string | null;
  plan: string;
  hasLiveAccess: boolean;
  customLimits: CustomLimits | null;
}

/** The merchant `merchantId`, if any. */
export async function findMerchantSettings(db: Db, merchantId: string): Promise<MerchantSettings | undefined> {
  const row = await db('developers').where({ merchant_id: merchantId }).first();
  if (!row) return undefined;
  return {
    merchantId: row.merchant_id,
    developerId: row.id,
    email: row.email,
    name: row.name,
    businessName: row.business_name,
    plan: row.plan,
    hasLiveAccess: row.has_live_access,
    customLimits:
      row.custom_limit_per_minute === null
        ? null
        : { perMinute: row.custom_limit_per_minute, perHour: row.custom_limit_per_hour },
  };
}

/** Sets the plan and writes the audit entry, in one transaction. */
export async function updateMerchantPlan(db: Db, merchantId: string, plan: Plan, activity: AuditEntry): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('developers')
      .where({ merchant_id: merchantId })
      .update({ plan, updated_at: new Date(activity.createdAt) });
    await insertAuditEntries(trx, [activity]);
  });
}

/** Stores custom limits (already checked) and writes the audit entry, in one transaction. */
export async function updateMerchantLimits(
  db: Db,
  merchantId: string,
  limits: CustomLimits,
  activity: AuditEntry,
): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('developers')
      .where({ merchant_id: merchantId })
      .update({
        custom_limit_per_minute: limits.perMinute,
        custom_limit_per_hour: limits.perHour,
        updated_at: new Date(activity.createdAt),
      });
    await insertAuditEntries(trx, [activity]);
  });
}

/**
 * Whether the merchant's API creates are refused while their provider is down (`refuse_when_provider_down`,
 * docs/availability.md#api-create); false for an unknown merchant.
 */
export async function refusesWhenProviderDown(db: Db, merchantId: string): Promise<boolean> {
  const row = (await db('developers').where({ merchant_id: merchantId }).first('refuse_when_provider_down')) as
    { refuse_when_provider_down: boolean } | undefined;
  return row?.refuse_when_provider_down === true;
}
