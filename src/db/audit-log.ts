/**
 * Repository of the audit log (docs/live-access.md#audit-log). Entries are written in the transaction of the change
 * they describe.
 */
import type { Knex } from 'knex';
import type { AuditAction, AuditEntry, ActorType } from '../domain/audit-log';
import type { Environment } from '../domain/environment';
import { iso, type Db } from './knex';
import { NEWEST_FIRST } from './cursor-pages';
import { scopeColumns } from './scoped-rows';

interface AuditRow {
  id: string;
  merchant_id: string;
  environment: Environment;
  actor_type: ActorType;
  actor_id: string;
  action: AuditAction;
  target: string;
  ip: string | null;
  request_id: string | null;
  user_agent: string | null;
  created_at: Date;
}

/**
 * Inserts entries, skipping any whose id exists (ids derived from a workflow step make a retried
 * activity write nothing twice).
 * @param db the database or the transaction of the change
 */
export async function insertAuditEntries(db: Db | Knex.Transaction, entries: readonly AuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await db('activity_log').insert(entries.map(auditRow)).onConflict('id').ignore();
}

/** The `activity_log` row of an entry. */
export function auditRow(entry: AuditEntry): AuditRow {
  return {
    id: entry.id,
    merchant_id: entry.merchantId,
    environment: entry.environment,
    actor_type: entry.actor.type,
    actor_id: entry.actor.id,
    action: entry.action,
    target: entry.target,
    ip: entry.ip,
    request_id: entry.requestId ?? null,
    user_agent: entry.userAgent ?? null,
    created_at: new Date(entry.createdAt),
  };
}

/** Which entries: a merchant and environment, and optionally one action and one actor id. */
export interface AuditScope {
  merchantId: string;
  environment: Environment;
  action?: string;
  actorId?: string;
}

/** The `where` of a scope. */
function scopeWhere(scope: AuditScope): Record<string, string> {
  return {
    ...scopeColumns(scope),
    ...(scope.action ? { action: scope.action } : {}),
    ...(scope.actorId ? { actor_id: scope.actorId } : {}),
  };
}

/**
 * The entries of a merchant and environment (of one action or actor when the scope says), newest first; one page
 * when `page` is given (docs/live-access.md#audit-log, docs/security.md#activity-log).
 */
export async function listAuditEntries(
  db: Db,
  scope: AuditScope,
  page?: { page: number; limit: number },
): Promise<AuditEntry[]> {
  const query = db<AuditRow>('activity_log').where(scopeWhere(scope)).orderBy(NEWEST_FIRST);
  if (page) query.limit(page.limit).offset((page.page - 1) * page.limit);
  const rows = await query;
  return rows.map((row) => ({
    id: row.id,
    merchantId: row.merchant_id,
    environment: row.environment,
    actor: { type: row.actor_type, id: row.actor_id },
    action: row.action,
    target: row.target,
    ip: row.ip,
    requestId: row.request_id,
    userAgent: row.user_agent,
    createdAt: iso(row.created_at),
  }));
}

/** How many entries a merchant and environment has (docs/live-access.md#audit-log pagination). */
export async function countAuditEntries(db: Db, scope: AuditScope): Promise<number> {
  const [{ total }] = (await db('activity_log').where(scopeWhere(scope)).count('id as total')) as unknown as [
    { total: number },
  ];
  return Number(total);
}
