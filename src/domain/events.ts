/** Event names (interface.md, Events; D22, D29). Pure: shared by the API, activities and workflows. */

/** Event names the service writes to the `events` table and webhooks subscribe to (D22, D25). */
export const EVENT_NAMES = ['payment.created', 'payment.completed', 'payment.failed', 'payment.cancelled', 'refund.completed', 'webhook.created'] as const;

/** One subscribable event name. */
export type EventName = (typeof EVENT_NAMES)[number];

/** The event of a webhook test (D29): sent only by `POST /developer/webhooks/{id}/test`, never subscribed to or stored as an event. */
export const TEST_EVENT_NAME = 'webhook.test';
