/** The API's form of an event (docs/payments.md#events), as `GET /v1/developer/events` lists it. */
import { z } from '../lib/zod';
import { timestamp } from './timestamp';
import { objectName } from './fields';

/** An event (docs/payments.md#events). */
export const event = z
  .object({
    id: z.string().openapi({ description: 'Event id, `evt_` and 24 characters; the `webhook-id` of its deliveries' }),
    object: objectName('event'),
    event: z.string().openapi({ description: "The event's name (`payment.completed`)" }),
    created_at: timestamp.openapi({ description: 'When it happened (ISO 8601, UTC)' }),
    data: z.unknown().openapi({
      description: 'The object the event is about, as a webhook delivery carries it (see the `webhooks` section)',
    }),
  })
  .openapi('Event', { description: 'Something that happened to one of your objects; webhook deliveries carry it' });

/** An event as answered. */
export type EventView = z.output<typeof event>;

/**
 * An event as stored, and as webhook deliveries and the event stream carry it (docs/webhooks.md#signatures,
 * docs/developer-tools.md#event-stream): the view without `object`.
 */
export type EventPayload = Omit<EventView, 'object'>;

/** The API form of a stored event. */
export function toEventView(stored: EventPayload): EventView {
  return { id: stored.id, object: 'event', event: stored.event, created_at: stored.created_at, data: stored.data };
}
