/**
 * The audit log (docs/live-access.md#audit-log, docs/security.md#activity-log) of changes a person's session or an API
 * key made through the API: actor, IP, request id and user agent; never a secret, code or full key.
 */
import { insertAuditEntries } from '../db/audit-log';
import type { Db } from '../db/knex';
import type { AuditAction, AuditEntry, Actor } from '../domain/audit-log';
import { ENVIRONMENTS } from '../domain/environment';
import type { Principal } from '../domain/principal';
import { auditEntry } from '../lib/audit';

/** The actor of an API change: the key it used, or the signed-in person (the merchant's account for old tokens). */
export function actorOf(principal: Principal): Actor {
  if (principal.via === 'key') return { type: 'api_key', id: principal.keyId as string };
  return { type: 'developer', id: principal.member?.personId ?? principal.developerId };
}

/**
 * Writes the entry for `action` on `target` by `principal` in the principal's merchant and environment; call it
 * once the change succeeded.
 * @param ip the caller's address (`ctx.ip`)
 */
export async function audit(
  db: Db,
  principal: Principal,
  action: AuditAction,
  target: string,
  ip: string | null,
): Promise<void> {
  await insertAuditEntries(db, [auditEntryOf(principal, action, target, ip)]);
}

/**
 * The entry {@link audit} writes, with its id, for a write that carries it along (the payment's row writes the
 * create's, docs/security.md#activity-log).
 * @param ip the caller's address (`ctx.ip`)
 */
export function auditEntryOf(principal: Principal, action: AuditAction, target: string, ip: string | null): AuditEntry {
  return auditEntry({
    merchantId: principal.merchantId,
    environment: principal.environment,
    actor: actorOf(principal),
    action,
    target,
    ip,
    requestId: principal.origin?.requestId ?? null,
    userAgent: principal.origin?.userAgent ?? null,
  });
}

/**
 * Writes an entry about the whole merchant (its team, a person's sign-in or two-factor) into both environments'
 * logs, so it shows whichever the dashboard reads (docs/security.md#activity-log).
 */
export async function auditMerchantWide(db: Db, entry: MerchantWideEntry, origin: Principal['origin']): Promise<void> {
  await insertAuditEntries(db, merchantWideEntries(entry, origin));
}

/** An entry about the whole merchant, before it is written into each environment's log. */
export interface MerchantWideEntry {
  merchantId: string;
  actor: Actor;
  action: AuditAction;
  target: string;
  ip: string | null;
}

/**
 * The entries {@link auditMerchantWide} writes, one per environment, for a write that carries them along in its own
 * transaction (docs/security.md#activity-log).
 */
export function merchantWideEntries(entry: MerchantWideEntry, origin: Principal['origin']): AuditEntry[] {
  return ENVIRONMENTS.map((environment) =>
    auditEntry({
      ...entry,
      environment,
      requestId: origin?.requestId ?? null,
      userAgent: origin?.userAgent ?? null,
    }),
  );
}

/**
 * Writes what a person did to their own account (a sign-in, a code, two-factor) into both environments' logs of
 * `merchantId`, with the person as actor and, unless another is given, as target.
 */
export async function auditPerson(
  db: Db,
  who: { personId: string; merchantId: string },
  action: AuditAction,
  request: { ip: string | null; origin?: Principal['origin'] },
  target: string = who.personId,
): Promise<void> {
  await auditMerchantWide(
    db,
    { merchantId: who.merchantId, actor: { type: 'developer', id: who.personId }, action, target, ip: request.ip },
    request.origin,
  );
}
