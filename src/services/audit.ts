/**
 * The audit log (docs/live-access.md#audit-log) of changes a developer's session or a secret key made through the API.
 */
import { insertAuditEntries } from '../db/audit-log';
import type { Db } from '../db/knex';
import type { AuditAction } from '../domain/audit-log';
import type { Principal } from '../domain/principal';
import { auditEntry } from '../lib/audit';

/**
 * Writes the entry for `action` on `target` by `principal` (actor: the secret key it used, or its
 * developer for a session) in the principal's merchant and environment; call it once the change
 * succeeded.
 * @param ip the caller's address (`ctx.ip`)
 */
export async function audit(
  db: Db,
  principal: Principal,
  action: AuditAction,
  target: string,
  ip: string | null,
): Promise<void> {
  const actor =
    principal.via === 'key'
      ? { type: 'api_key' as const, id: principal.keyId as string }
      : { type: 'developer' as const, id: principal.developerId };
  await insertAuditEntries(db, [
    auditEntry({ merchantId: principal.merchantId, environment: principal.environment, actor, action, target, ip }),
  ]);
}
