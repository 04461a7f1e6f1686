/**
 * `GET /v1/developer/events/stream` (docs/developer-tools.md#event-stream): the account's sandbox
 * events as Server-Sent Events, resumable with `Last-Event-ID`, for `paycollect listen`. A sandbox
 * secret key or a session token (sandbox, the default `?environment=`); live credentials → 403
 * `forbidden`. Mounted before the events router, whose `/{id}` would otherwise take `stream`.
 */
import type Router from '@koa/router';
import { apiRouter } from '../router';
import type { Config } from '../../config';
import type { Db } from '../../db/knex';
import { DomainError } from '../../domain/errors';
import type { Logger } from '../../logger';
import { z } from '../../lib/zod';
import { EventStreams } from '../../services/event-stream';
import { sendEventStream } from '../../services/sse';
import { principalOf, sessionOrSecretKey } from '../middleware/auth';
import { parseOrThrow } from '../schemas/validate';

/** Query of the stream: only the session token's `environment` (docs/api.md#credentials), which must be sandbox. */
export const eventStreamQuery = z.strictObject({
  environment: z
    .enum(['sandbox', 'live'])
    .optional()
    .openapi({ description: 'With a session token: must be `sandbox` (the default); the stream is sandbox only' }),
});

/** What the stream route needs. */
export interface EventStreamDeps {
  db: Db;
  config: Pick<
    Config,
    | 'JWT_SECRET'
    | 'EVENT_STREAM_HEARTBEAT_MS'
    | 'EVENT_STREAM_POLL_MS'
    | 'EVENT_STREAM_MAX_PER_MERCHANT'
    | 'EVENT_STREAM_MAX_DURATION_MS'
  >;
  logger?: Logger;
}

/** The stream router under `/v1/developer/events`, with its own {@link EventStreams}. */
export function eventStreamRoutes(deps: EventStreamDeps): Router {
  const streams = new EventStreams(
    deps.db,
    {
      heartbeatMs: deps.config.EVENT_STREAM_HEARTBEAT_MS,
      pollMs: deps.config.EVENT_STREAM_POLL_MS,
      maxPerMerchant: deps.config.EVENT_STREAM_MAX_PER_MERCHANT,
      maxDurationMs: deps.config.EVENT_STREAM_MAX_DURATION_MS,
    },
    deps.logger,
  );
  const router = apiRouter('/v1/developer/events');

  /**
   * Stream → 200 `text/event-stream`, open until the client leaves or the stream's lifetime ends.
   * Header `Last-Event-ID: evt_…` resumes right after that event, `0` from the first event;
   * without it the stream starts after the last event written so far and says so in its first `id:`
   * field. Errors (JSON envelope): 400 bad
   * query or a `Last-Event-ID` naming no event of the account; 401; 403 `forbidden` for live
   * credentials; 429 `rate_limited` with `Retry-After` when the account has its most streams open.
   */
  router.get('/stream', sessionOrSecretKey(deps.db, deps.config.JWT_SECRET), async (ctx) => {
    parseOrThrow(eventStreamQuery, ctx.query);
    const owner = principalOf(ctx);
    if (owner.environment !== 'sandbox') {
      throw new DomainError(
        'forbidden',
        'the event stream serves sandbox events only: use a sandbox secret key (sk_sandbox_…) or a session token with environment=sandbox',
      );
    }
    const start = await streams.start(owner, ctx.get('last-event-id').trim() || undefined);
    sendEventStream(ctx, () => streams.open(owner, start));
  });

  return router;
}
