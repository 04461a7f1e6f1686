/** The API's form of an audit log entry (docs/live-access.md#audit-log), as `GET /v1/developer/activity` lists it. */
import { z } from '../lib/zod';
import type { AuditEntry } from '../domain/audit-log';
import { timestamp } from './timestamp';

/** An audit log entry (docs/live-access.md#audit-log). */
export const auditLogEntry = z.object({
  id: z.string(),
  actor: z.object({ type: z.enum(['developer', 'api_key', 'reviewer', 'operator', 'system']), id: z.string() }),
  action: z.string(),
  target: z.string(),
  ip: z.string().nullable(),
  request_id: z.string().nullable(),
  user_agent: z.string().nullable(),
  created_at: timestamp,
});

/** An audit log entry as answered. */
export type AuditLogEntryView = z.output<typeof auditLogEntry>;

/** The API form of an entry. */
export function toAuditLogEntryView(entry: AuditEntry): AuditLogEntryView {
  return {
    id: entry.id,
    actor: entry.actor,
    action: entry.action,
    target: entry.target,
    ip: entry.ip,
    request_id: entry.requestId ?? null,
    user_agent: entry.userAgent ?? null,
    created_at: entry.createdAt,
  };
}
