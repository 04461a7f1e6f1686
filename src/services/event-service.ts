/** The caller's events (docs/payments.md#events), newest first, as `GET /v1/developer/events` lists them. */
import { toEventView, type EventView } from '../views/event';
import { findEvent, listEvents } from '../db/events';
import type { Db } from '../db/knex';
import { orNotFound } from '../domain/errors';
import type { Principal } from '../domain/principal';

/**
 * One page of the caller's events, newest first (ties by id), of one type when `query.type` is set.
 * @returns the page and the total number of matching events
 */
export async function listEventPage(
  deps: { db: Db },
  owner: Principal,
  query: { type?: string; page: number; limit: number },
): Promise<{ events: EventView[]; total: number }> {
  const { events, total } = await listEvents(deps.db, owner, query);
  return { events: events.map(toEventView), total };
}

/**
 * The caller's event `id` (`evt_…`).
 * @throws DomainError `not_found` for unknown and foreign ids alike (docs/api.md#merchants-and-environments)
 */
export async function getEvent(deps: { db: Db }, owner: Principal, id: string): Promise<EventView> {
  const event = orNotFound(await findEvent(deps.db, owner, id), 'event', id);
  return toEventView(event);
}
