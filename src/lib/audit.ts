/** Audit entries (docs/live-access.md#audit-log) for changes made outside workflows: through the API or the admin command. */
import type { ActivityEntry } from '../domain/activity-log';
import { ID_PREFIXES } from '../domain/ids';
import { newId } from './ids';

/** What an entry records; `ip` is the API caller's address (null for the admin command). */
export type AuditInput = Omit<ActivityEntry, 'id' | 'createdAt'>;

/** A new audit entry with a random `act_…` id, stamped now. */
export function auditEntry(input: AuditInput): ActivityEntry {
  return { id: newId(ID_PREFIXES.activity), ...input, createdAt: new Date().toISOString() };
}
