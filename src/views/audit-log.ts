/** The API's form of an audit log entry (docs/live-access.md#audit-log), as `GET /v1/developer/activity` lists it. */
import { z } from '../lib/zod';
import type { AuditEntry } from '../domain/audit-log';
import { timestamp } from './timestamp';
import { nullableText } from './fields';

/** An audit log entry (docs/live-access.md#audit-log). */
export const auditLogEntry = z.object({
  id: z.string().openapi({ description: 'Entry id, `act_…`' }),
  actor: z
    .object({
      type: z.enum(['developer', 'api_key', 'reviewer', 'operator', 'system']).openapi({
        description: 'What kind of actor: a person signed in, an API key, our reviewer, operator or system',
      }),
      id: z.string().openapi({
        description: "The actor's id: `dev_…` for a person, `key_…` for a key, a name for reviewers and the system",
      }),
    })
    .openapi({
      description: 'Who did it: a developer, an API key, a reviewer, an operator or the system, with its id',
    }),
  action: z.string().openapi({ description: 'What was done (`payment.created`, `key.rolled`, …)' }),
  target: z.string().openapi({ description: 'The id of what it was done to' }),
  ip: nullableText('The address it came from; null when not over HTTP'),
  request_id: nullableText('The request that made it (`X-Request-Id`); null when none'),
  user_agent: nullableText("The caller's User-Agent; null when none"),
  created_at: timestamp.openapi({ description: 'When (ISO 8601, UTC)' }),
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
