/**
 * Repository of events (docs/payments.md#events) as the developer API lists them: newest first, stable under inserts.
 */
import type { Environment } from '../domain/environment';
import { iso, type Db } from './knex';
import { numberedNewestFirstPage } from './numbered-pages';
import { findInScope, scopeColumns } from './scoped-rows';

/** A stored event as the API shows it (docs/payments.md#events). */
export interface EventRecord {
  id: string;
  event: string;
  created_at: string;
  data: unknown;
}

/** An `events` row. */
export interface EventRow {
  id: string;
  type: string;
  created_at: Date;
  data: unknown;
}

/** An event row as a record (docs/payments.md#events); `created_at` may come as a Date or, from JSON, an ISO string. */
export function toEventRecord(row: EventRow): EventRecord {
  return { id: row.id, event: row.type, created_at: iso(row.created_at), data: row.data };
}

/** Scope of a query (docs/api.md#merchants-and-environments). */
export interface Scope {
  merchantId: string;
  environment: Environment;
}

/**
 * One page of the scope's events, newest first (ties broken by id), optionally of one type.
 * @returns the page and the total number of matching events
 */
export async function listEvents(
  db: Db,
  scope: Scope,
  query: { type?: string; page: number; limit: number },
): Promise<{ events: EventRecord[]; total: number }> {
  const base = db('events').where(scopeColumns(scope));
  if (query.type) base.where({ type: query.type });
  const { rows, total } = await numberedNewestFirstPage<EventRow>(base, query);
  return { events: rows.map(toEventRecord), total };
}

/** The scope's event `id`, if any. */
export async function findEvent(db: Db, scope: Scope, id: string): Promise<EventRecord | undefined> {
  return findInScope(db, 'events', scope, id, toEventRecord);
}
