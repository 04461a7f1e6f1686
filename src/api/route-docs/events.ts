/**
 * The route docs of one feature (src/api/openapi.ts builds the document from every feature's): Events: list, retrieve
 * and the live stream.
 */
import { z } from '../../lib/zod';
import { environmentOnlyQuery } from '../schemas/developer';
import * as out from '../../views';
import * as example from '../schemas/examples';
import { listEventsQuery } from '../routes/events';
import { eventStreamQuery } from '../routes/event-stream';
import { answer, pageAnswer, DASHBOARD_CREDENTIALS, DEVELOPER, type RouteDoc } from './shared';

/** Events: list, retrieve and the live stream. */
export const eventRouteDocs: RouteDoc[] = [
  {
    method: 'get',
    path: '/v1/developer/events',
    operationId: 'listEvents',
    tag: 'Events',
    summary: 'List events',
    description: `Your events, newest first, \`limit\` per page (default 10, at most 100); \`type\` filters by event name. ${DASHBOARD_CREDENTIALS}`,
    security: DEVELOPER,
    query: listEventsQuery,
    success: pageAnswer(
      'A page of events, newest first',
      'events',
      out.event,
      'This page of events, newest first',
      'Events retrieved',
      example.paymentCompletedEvent,
    ),
  },
  {
    method: 'get',
    path: '/v1/developer/events/{id}',
    operationId: 'retrieveEvent',
    tag: 'Events',
    summary: 'Retrieve an event',
    description: DASHBOARD_CREDENTIALS,
    security: DEVELOPER,
    query: environmentOnlyQuery,
    success: answer('The event', out.event, 'Event retrieved', example.paymentCompletedEvent),
  },
  {
    method: 'get',
    path: '/v1/developer/events/stream',
    operationId: 'streamEvents',
    tag: 'Events',
    summary: 'Stream sandbox events',
    description:
      'Your sandbox events as Server-Sent Events, as `paycollect listen` reads them: `retry:`, an `id:` with its start position and a `: connected` comment, then one message per event (`id` the event id, `event` its name, `data` the webhook delivery payload as JSON), a `: heartbeat` comment every 15 seconds, and the end after an hour. Reconnect with `Last-Event-ID` to resume right after the last event you received. Sandbox secret keys and sandbox session tokens only.',
    security: ['secretKey', 'session'],
    query: eventStreamQuery,
    headers: z.object({
      'Last-Event-ID': z.string().max(100).optional().openapi({
        description:
          'Resume right after this event (evt_…), or `0` from the first event; without it the stream starts after the last event written so far and announces that position as its first `id:`',
        example: 'evt_4Zq8rT2mWc9LbX1yHn7KpD3s',
      }),
    }),
    success: {
      status: 200,
      description: 'An open stream of events',
      // One SSE message, as OpenAPI tools read a text/event-stream schema (found by the OpenAPI fuzz).
      schema: z.object({
        id: z.string().optional().openapi({ description: 'The event id (evt_…)' }),
        event: z.string().openapi({ description: 'The event name' }),
        data: z.string().openapi({ description: 'The webhook delivery payload, as JSON' }),
        retry: z.number().int().optional().openapi({ description: 'Milliseconds before a reconnection' }),
      }),
      contentType: 'text/event-stream',
      example: {
        id: 'evt_4Zq8rT2mWc9LbX1yHn7KpD3s',
        event: 'payment.completed',
        data: '{"id":"evt_4Zq8rT2mWc9LbX1yHn7KpD3s","event":"payment.completed","created_at":"2026-11-24T10:00:00.000Z","data":{"id":"pay_7Hc2WqN5xR8tLm3Kd9PzYb4V","status":"completed"}}',
      },
    },
    errors: [400, 401, 403, 429],
    codes: [
      {
        code: 'validation_error',
        when: 'An unknown query field, or a `Last-Event-ID` that names no event of your account.',
        message: 'Last-Event-ID names no event of this account',
        details: [{ field: 'Last-Event-ID', message: 'Last-Event-ID names no event of this account' }],
      },
      {
        code: 'forbidden',
        when: 'A live secret key or a live session: the stream serves sandbox events only.',
        message:
          'the event stream serves sandbox events only: use a sandbox secret key (sk_sandbox_…) or a session token with environment=sandbox',
      },
      {
        code: 'rate_limited',
        when: 'Too many requests, or your account has its most streams open already; retry after `Retry-After` seconds.',
        message: 'rate limit exceeded; retry in 12 seconds',
      },
    ],
  },
];
