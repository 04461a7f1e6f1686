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
import { PassThrough } from 'node:stream';
import type { Db } from '../db/knex';
import {
  lastSettledStreamCursor,
  readStreamEvents,
  STREAM_START,
  streamCursorAfter,
  type StreamCursor,
} from '../db/event-stream';
import type { Scope } from '../db/events';
import { DomainError, validationError } from '../domain/errors';
import type { Logger } from '../logger';

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

/** The `retry:` field sent first: milliseconds a client waits before reconnecting. */
export const STREAM_RETRY_MS = 1000;

/** Seconds of `Retry-After` when a merchant already has its most streams open. */
export const STREAM_LIMIT_RETRY_AFTER_SECONDS = 10;

/** Longest wait between reads while the database fails, in milliseconds. */
const MAX_FAILURE_BACKOFF_MS = 30_000;

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
  private readonly perMerchant = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly settings: EventStreamSettings,
    private readonly logger?: Logger,
  ) {}

  /** Streams open now through this instance. */
  get openCount(): number {
    let total = 0;
    for (const count of this.perMerchant.values()) total += count;
    return total;
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
   *   {@link STREAM_LIMIT_RETRY_AFTER_SECONDS}) when the merchant already has `maxPerMerchant` open
   */
  open(scope: Scope, start: StreamStart): PassThrough {
    const merchant = scope.merchantId;
    const open = this.perMerchant.get(merchant) ?? 0;
    if (open >= this.settings.maxPerMerchant) {
      throw new DomainError(
        'rate_limited',
        `at most ${this.settings.maxPerMerchant} event streams may be open at once per account; close one, or retry in ${STREAM_LIMIT_RETRY_AFTER_SECONDS} seconds`,
      );
    }
    this.perMerchant.set(merchant, open + 1);
    openInProcess += 1;

    const { db, settings, logger } = this;
    const body = new PassThrough();
    let position = start.cursor;
    let closed = false;
    let failures = 0;
    let pollTimer: NodeJS.Timeout | undefined;

    const close = () => {
      if (closed) return;
      closed = true;
      clearTimeout(pollTimer);
      clearInterval(heartbeat);
      clearTimeout(lifetime);
      body.off('drain', poll);
      const left = (this.perMerchant.get(merchant) ?? 1) - 1;
      if (left > 0) this.perMerchant.set(merchant, left);
      else this.perMerchant.delete(merchant);
      openInProcess -= 1;
    };

    const schedule = (delayMs: number) => {
      if (closed) return;
      pollTimer = setTimeout(poll, delayMs);
      pollTimer.unref();
    };

    async function poll(): Promise<void> {
      if (closed) return;
      // A client that reads slowly gets no new query until it took what was sent.
      if (body.writableNeedDrain) {
        body.once('drain', poll);
        return;
      }
      let full = false;
      try {
        const events = await readStreamEvents(db, scope, position, STREAM_BATCH_SIZE);
        failures = 0;
        if (closed) return;
        for (const { cursor: after, event } of events) {
          body.write(formatEvent(event));
          position = after;
        }
        full = events.length === STREAM_BATCH_SIZE;
      } catch (error) {
        failures += 1;
        logger?.warn({ err: error, merchant_id: merchant }, 'event stream read failed; retrying');
      }
      const backoff =
        failures === 0 ? settings.pollMs : Math.min(settings.pollMs * 2 ** failures, MAX_FAILURE_BACKOFF_MS);
      schedule(full ? 0 : backoff);
    }

    const heartbeat = setInterval(() => {
      if (!closed) body.write(`: heartbeat ${new Date().toISOString()}\n\n`);
    }, settings.heartbeatMs);
    heartbeat.unref();

    const lifetime = setTimeout(() => {
      if (closed) return;
      body.end(`: stream ends after ${settings.maxDurationMs / 1000} s; reconnect with Last-Event-ID\n\n`);
      close();
    }, settings.maxDurationMs);
    lifetime.unref();

    body.once('close', close);
    body.once('finish', close);
    body.once('error', close);
    body.write(
      `retry: ${STREAM_RETRY_MS}\n${start.announce === undefined ? '' : `id: ${start.announce}\n`}: connected\n\n`,
    );
    void poll();
    return body;
  }
}
