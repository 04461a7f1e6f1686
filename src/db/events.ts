/** Repository of events (docs/payments.md#events) as the developer API lists them: newest first, stable under inserts. */
import type { Environment } from '../domain/environment';
import { iso, type Db } from './knex';

/** An event as the API shows it. */
export interface EventView {
  id: string;
  object: 'event';
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

/** The API's form of an event row (docs/payments.md#events). */
export function toEventView(row: EventRow): EventView {
  return { id: row.id, object: 'event', event: row.type, created_at: iso(row.created_at), data: row.data };
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
export async function listEvents(db: Db, scope: Scope, query: { type?: string; page: number; limit: number }): Promise<{ events: EventView[]; total: number }> {
  const base = db('events').where({ merchant_id: scope.merchantId, environment: scope.environment });
  if (query.type) base.where({ type: query.type });
  const [{ total }] = (await base.clone().count('id as total')) as unknown as [{ total: number }];
  const rows = await base
    .clone()
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .limit(query.limit)
    .offset((query.page - 1) * query.limit);
  return { events: rows.map(toEventView), total };
}

/** The scope's event `id`, if any. */
export async function findEvent(db: Db, scope: Scope, id: string): Promise<EventView | undefined> {
  const row: EventRow | undefined = await db('events').where({ id, merchant_id: scope.merchantId, environment: scope.environment }).first();
  return row ? toEventView(row) : undefined;
}
