/**
 * The account's events as Server-Sent Events (docs/developer-tools.md#event-stream), for
 * `GET /v1/developer/events/stream` and the `paycollect listen` command.
 *
 * Bounded polling, not LISTEN/NOTIFY: each open stream reads its scope's new events every
 * `pollMs` with one indexed query on a pooled connection, returned to the pool at once, so an open
 * stream holds no database connection, and the stream works unchanged across several API processes
 * and whatever process writes the events (the API or a worker). A stream answers:
 * - `retry: <ms>`, `id: <position>` and a `: connected` comment at once, where the position (the
 *   last event before the stream's start, or {@link FIRST_EVENT_POSITION} for an account without
 *   events) lets a client that reconnects before any event came resume where it started;
 * - one SSE message per event, `id: evt_…`, `event: <name>`, `data: {id, event, created_at, data}`
 *   (the webhook delivery payload), in the stable order of src/db/event-stream.ts;
 * - a `: heartbeat` comment every `heartbeatMs`, so proxies and clients keep it open;
 * - after `maxDurationMs` a closing comment and the end; clients reconnect with `Last-Event-ID`
 *   (credentials are then checked again, so a revoked key or an expired session stops there).
 * A client that disconnects frees everything at once: its timers, its place in the per-merchant
 * count, and no query of it runs again. A slow client is not read for (`drain` awaited) before the
 * next query, so unsent events never pile up in memory.
 */
import type { PassThrough } from 'node:stream';
import type { Db } from '../db/knex';
import {
  lastSettledStreamCursor,
  readStreamEvents,
  STREAM_START,
  streamCursorAfter,
  type StreamCursor,
} from '../db/event-stream';
import type { Scope } from '../db/events';
import { validationError } from '../domain/errors';
import type { Logger } from '../logger';
import { openPollingStream, STREAM_RETRY_MS, StreamSlots } from './sse';

/** Settings of the streams (configuration `EVENT_STREAM_*`). */
export interface EventStreamSettings {
  /** Milliseconds between heartbeat comments. */
  heartbeatMs: number;
  /** Milliseconds between two reads of new events of one stream. */
  pollMs: number;
  /** Most streams one merchant keeps open at once in this process. */
  maxPerMerchant: number;
  /** Milliseconds after which the server ends a stream. */
  maxDurationMs: number;
}

/** Events one read sends at most; a full batch is followed by the next read at once. */
export const STREAM_BATCH_SIZE = 100;

/** `Last-Event-ID` value meaning "from the account's first event" (also what an account without events starts from). */
export const FIRST_EVENT_POSITION = '0';

/** Where a stream starts, and the id it announces as its position when the client sent none. */
export interface StreamStart {
  cursor: StreamCursor;
  /** Sent as the first `id:` field (no message), so the client's Last-Event-ID points at the start. */
  announce?: string;
}

/** Shape of an event id (`evt_` and 24 base62 characters; a little slack for older forms). */
const EVENT_ID = /^evt_[A-Za-z0-9]{1,64}$/;

/** Open streams of this process across every {@link EventStreams} (the `paycollect_event_streams_open` gauge). */
let openInProcess = 0;

/** Streams open in this process now (all instances); the metrics gauge reads it. */
export function openEventStreamCount(): number {
  return openInProcess;
}

/** One SSE message (event id and name carry no line breaks; JSON.stringify writes none). */
function formatEvent(event: { id: string; event: string; created_at: string; data: unknown }): string {
  const payload = { id: event.id, event: event.event, created_at: event.created_at, data: event.data };
  return `id: ${event.id}\nevent: ${event.event}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/** The streams of one API app. */
export class EventStreams {
  private readonly slots: StreamSlots;

  constructor(
    private readonly db: Db,
    private readonly settings: EventStreamSettings,
    private readonly logger?: Logger,
  ) {
    this.slots = new StreamSlots(settings.maxPerMerchant, 'event streams per account');
  }

  /** Streams open now through this instance. */
  get openCount(): number {
    return this.slots.total;
  }

  /**
   * Where a stream starts: right after the scope's event `lastEventId` (a reconnecting client's
   * `Last-Event-ID`), at the first event for {@link FIRST_EVENT_POSITION}, or "from now on"
   * without one (after the last event already settled, which it announces).
   * @throws DomainError validation_error when `lastEventId` is malformed or names no event of the
   *   scope (another merchant's or environment's event answers the same, docs/api.md#merchants-and-environments)
   */
  async start(scope: Scope, lastEventId: string | undefined): Promise<StreamStart> {
    if (lastEventId === undefined || lastEventId === '') {
      const last = await lastSettledStreamCursor(this.db, scope);
      return last ? { cursor: last, announce: last.id } : { cursor: STREAM_START, announce: FIRST_EVENT_POSITION };
    }
    if (lastEventId === FIRST_EVENT_POSITION) return { cursor: STREAM_START };
    const problem = {
      field: 'Last-Event-ID',
      message: 'Last-Event-ID must be the id of one of your events (evt_…), or 0 for the first one',
    };
    if (!EVENT_ID.test(lastEventId)) throw validationError([problem]);
    const cursor = await streamCursorAfter(this.db, scope, lastEventId);
    if (!cursor) throw validationError([problem]);
    return { cursor };
  }

  /**
   * Opens a stream of the scope's events from `start`; the caller sends the returned body and
   * the stream cleans up when that body closes (the client left) or ends (`maxDurationMs`).
   * @returns a readable of UTF-8 SSE text
   * @throws DomainError rate_limited (429; set `Retry-After` to
   *   STREAM_LIMIT_RETRY_AFTER_SECONDS of ./sse.ts) when the merchant already has `maxPerMerchant` open
   */
  open(scope: Scope, start: StreamStart): PassThrough {
    const merchant = scope.merchantId;
    const release = this.slots.take(merchant);
    openInProcess += 1;
    const { db } = this;
    let position = start.cursor;
    return openPollingStream({
      ...this.settings,
      preamble: `retry: ${STREAM_RETRY_MS}\n${start.announce === undefined ? '' : `id: ${start.announce}\n`}: connected\n\n`,
      expiredComment: `stream ends after ${this.settings.maxDurationMs / 1000} s; reconnect with Last-Event-ID`,
      async read() {
        const events = await readStreamEvents(db, scope, position, STREAM_BATCH_SIZE);
        const chunks = events.map(({ cursor: after, event }) => {
          position = after;
          return formatEvent(event);
        });
        return { chunks, more: events.length === STREAM_BATCH_SIZE };
      },
      onClose: () => {
        release();
        openInProcess -= 1;
      },
      logger: this.logger,
      logContext: { merchant_id: merchant },
    });
  }
}
