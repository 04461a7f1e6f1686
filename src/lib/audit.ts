/**
 * Audit entries (docs/live-access.md#audit-log) for changes made outside workflows: through the API or the admin
 * command.
 */
import type { AuditEntry } from '../domain/audit-log';
import { ID_PREFIXES } from '../domain/ids';
import { newId } from './ids';

/** What an entry records; `ip` is the API caller's address (null for the admin command). */
export type AuditInput = Omit<AuditEntry, 'id' | 'createdAt'>;

/** A new audit entry with a random `act_…` id, stamped now. */
export function auditEntry(input: AuditInput): AuditEntry {
  return { id: newId(ID_PREFIXES.auditEntry), ...input, createdAt: new Date().toISOString() };
}
