/** Audit entries (docs/live-access.md#audit-log) for changes made through the API by a developer's session or a secret key. */
import { insertActivityEntries } from '../db/activity-log';
import type { Db } from '../db/knex';
import type { ActivityAction, ActivityEntry } from '../domain/activity-log';
import { ID_PREFIXES } from '../domain/ids';
import type { Principal } from '../domain/principal';
import { newId } from '../lib/ids';

/** The entry for `action` on `target` by `principal`, from `ip`. */
export function auditEntry(principal: Principal, action: ActivityAction, target: string, ip: string | null): ActivityEntry {
  return {
    id: newId(ID_PREFIXES.activity),
    merchantId: principal.merchantId,
    environment: principal.environment,
    actor: principal.via === 'key' ? { type: 'api_key', id: principal.keyId as string } : { type: 'developer', id: principal.developerId },
    action,
    target,
    ip,
    createdAt: new Date().toISOString(),
  };
}

/** Writes the entry for a change that was made (after it succeeded). */
export async function audit(db: Db, principal: Principal, action: ActivityAction, target: string, ip: string | null): Promise<void> {
  await insertActivityEntries(db, [auditEntry(principal, action, target, ip)]);
}
