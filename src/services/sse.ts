/**
 * The machinery every Server-Sent Events stream of the API shares (docs/developer-tools.md#event-stream,
 * docs/checkout.md#live-status): a body that reads its source by bounded polling (no database connection held
 * between reads, so a stream works across API processes whatever process writes), a heartbeat comment, a lifetime,
 * a per-key cap on open streams, back-pressure (no read while the client has not taken what was sent) and clean-up
 * the moment the client leaves. What a stream reads and how it formats it is its caller's.
 */
import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import { DomainError } from '../domain/errors';
import type { Logger } from '../logger';

/** The `retry:` field sent first: milliseconds a client waits before reconnecting. */
export const STREAM_RETRY_MS = 1000;

/** Seconds of `Retry-After` when a key already has its most streams open. */
export const STREAM_LIMIT_RETRY_AFTER_SECONDS = 10;

/** Longest wait between reads while the source fails, in milliseconds. */
const MAX_FAILURE_BACKOFF_MS = 30_000;

/** What one read of a stream's source brought. */
export interface StreamRead {
  /** SSE text to send (whole messages), in order; empty when nothing changed. */
  chunks: string[];
  /** Read again at once (a full batch), not after `pollMs`. */
  more?: boolean;
  /** The stream is over: send `farewell` (a comment) after the chunks and end. */
  end?: { farewell: string };
}

/** How one stream runs. */
export interface PollingStreamOptions {
  /** Milliseconds between heartbeat comments. */
  heartbeatMs: number;
  /** Milliseconds between two reads. */
  pollMs: number;
  /** Milliseconds after which the server ends the stream with `expiredComment`. */
  maxDurationMs: number;
  /** Text written first, before any read (`retry:`, an `id:`, a `: connected` comment). */
  preamble: string;
  /** The closing comment at `maxDurationMs`. */
  expiredComment: string;
  /** Reads what is new since the last read; a throw is logged and retried with back-off. */
  read: () => Promise<StreamRead>;
  /** Called once when the stream is done, however it ended (client left, end, lifetime). */
  onClose: () => void;
  logger?: Logger;
  /** Fields of the warning logged when a read fails. */
  logContext?: Record<string, unknown>;
}

/**
 * Opens a polling stream; the caller sends the returned body (see {@link sendEventStream}).
 * @returns a readable of UTF-8 SSE text
 */
export function openPollingStream(options: PollingStreamOptions): PassThrough {
  const { heartbeatMs, pollMs, maxDurationMs, logger } = options;
  const body = new PassThrough();
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
    options.onClose();
  };

  const schedule = (delayMs: number) => {
    if (closed) return;
    pollTimer = setTimeout(poll, delayMs);
    pollTimer.unref();
  };

  async function poll(): Promise<void> {
    if (closed) return;
    // A client that reads slowly gets no new read until it took what was sent.
    if (body.writableNeedDrain) {
      body.once('drain', poll);
      return;
    }
    let more = false;
    try {
      const read = await options.read();
      failures = 0;
      if (closed) return;
      for (const chunk of read.chunks) body.write(chunk);
      if (read.end) {
        body.end(`: ${read.end.farewell}\n\n`);
        close();
        return;
      }
      more = read.more === true;
    } catch (error) {
      failures += 1;
      logger?.warn({ err: error, ...options.logContext }, 'event stream read failed; retrying');
    }
    const backoff = failures === 0 ? pollMs : Math.min(pollMs * 2 ** failures, MAX_FAILURE_BACKOFF_MS);
    schedule(more ? 0 : backoff);
  }

  const heartbeat = setInterval(() => {
    if (!closed) body.write(`: heartbeat ${new Date().toISOString()}\n\n`);
  }, heartbeatMs);
  heartbeat.unref();

  const lifetime = setTimeout(() => {
    if (closed) return;
    body.end(`: ${options.expiredComment}\n\n`);
    close();
  }, maxDurationMs);
  lifetime.unref();

  body.once('close', close);
  body.once('finish', close);
  body.once('error', close);
  body.write(options.preamble);
  void poll();
  return body;
}

/** Open streams by key (a merchant, a session), capped at `max` each: one counter per stream kind and API process. */
export class StreamSlots {
  private readonly open = new Map<string, number>();

  constructor(
    private readonly max: number,
    /** The refusal's words: "at most {max} {what} may be open at once". */
    private readonly what: string,
  ) {}

  /** Streams open now. */
  get total(): number {
    let total = 0;
    for (const count of this.open.values()) total += count;
    return total;
  }

  /**
   * Takes a slot of `key`.
   * @returns its release (idempotent)
   * @throws DomainError rate_limited (429; set `Retry-After` to {@link STREAM_LIMIT_RETRY_AFTER_SECONDS}) when `key`
   *   already has `max` streams open
   */
  take(key: string): () => void {
    const open = this.open.get(key) ?? 0;
    if (open >= this.max)
      throw new DomainError(
        'rate_limited',
        `at most ${this.max} ${this.what} may be open at once; close one, or retry in ${STREAM_LIMIT_RETRY_AFTER_SECONDS} seconds`,
      );
    this.open.set(key, open + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(key) ?? 1) - 1;
      if (left > 0) this.open.set(key, left);
      else this.open.delete(key);
    };
  }
}

/**
 * Answers `ctx` with the stream `open()` makes: 200 `text/event-stream`, no caching or proxy buffering, the socket
 * kept open without a time-out. A refusal of `open` (429 `rate_limited`: too many streams) gets its `Retry-After`.
 * @throws whatever `open` throws
 */
export function sendEventStream(ctx: Context, open: () => PassThrough): void {
  let body;
  try {
    body = open();
  } catch (error) {
    if (error instanceof DomainError && error.code === 'rate_limited')
      ctx.set('Retry-After', String(STREAM_LIMIT_RETRY_AFTER_SECONDS));
    throw error;
  }
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.req.socket.setKeepAlive(true);
  ctx.status = 200;
  ctx.type = 'text/event-stream; charset=utf-8';
  ctx.set('Cache-Control', 'no-cache, no-transform');
  ctx.set('X-Accel-Buffering', 'no');
  ctx.body = body;
}
