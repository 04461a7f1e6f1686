/**
 * A checkout session's live status for its page (docs/checkout.md#live-status): `GET
 * /v1/checkout/sessions/{id}/events` as Server-Sent Events, without a key (the session id is the capability).
 *
 * Changes are noticed by polling the read model, as the account's event stream does (./event-stream.ts), not by
 * LISTEN/NOTIFY: the session and its attempts' payments are written by worker activities in other processes, each
 * stream's read is one primary-key lookup joined on the payments' primary key, run on a pooled connection returned
 * at once (an open stream holds no connection; LISTEN would hold one per API process outside the pool and need every
 * writer of a payment to notify), and it works unchanged across API processes. A stream sends:
 * - `retry: <ms>` and a `: connected` comment, then at once the current state as one message
 *   `data: {"status", "attempt": {"status", "failure_code"} | null}`;
 * - a message whenever that state changes (read every EVENT_STREAM_POLL_MS);
 * - a `: heartbeat` comment every EVENT_STREAM_HEARTBEAT_MS;
 * - once the session is `complete` or `expired`, its state and then a closing comment, and the end (the page closes
 *   its EventSource on a final status; a reconnect gets the final state and the end again);
 * - after EVENT_STREAM_MAX_DURATION_MS a closing comment and the end (the page reconnects).
 * Open streams are capped per session and per client address in each API process (429 `rate_limited` with
 * `Retry-After` past either).
 */
import type { PassThrough } from 'node:stream';
import { readCheckoutLiveState, type CheckoutLiveState } from '../db/checkout-sessions';
import type { Db } from '../db/knex';
import { orNotFound } from '../domain/errors';
import type { Logger } from '../logger';
import { openPollingStream, STREAM_RETRY_MS, StreamSlots } from './sse';

/** Settings of the page's streams (configuration `EVENT_STREAM_*`, `CHECKOUT_STREAM_*`). */
export interface CheckoutStreamSettings {
  /** Milliseconds between heartbeat comments. */
  heartbeatMs: number;
  /** Milliseconds between two reads of a session's state. */
  pollMs: number;
  /** Milliseconds after which the server ends a stream. */
  maxDurationMs: number;
  /** Most streams open at once on one session in one API process. */
  maxPerSession: number;
  /** Most streams open at once from one client address in one API process. */
  maxPerAddress: number;
}

/** One SSE message of a state. */
function formatState(state: CheckoutLiveState): string {
  return `data: ${JSON.stringify(state)}\n\n`;
}

/** The page's streams of one API app. */
export class CheckoutStreams {
  private readonly perSession: StreamSlots;
  private readonly perAddress: StreamSlots;

  constructor(
    private readonly db: Db,
    private readonly settings: CheckoutStreamSettings,
    private readonly logger?: Logger,
  ) {
    this.perSession = new StreamSlots(settings.maxPerSession, 'status streams per checkout session');
    this.perAddress = new StreamSlots(settings.maxPerAddress, 'status streams per client address');
  }

  /** Streams open now through this instance. */
  get openCount(): number {
    return this.perSession.total;
  }

  /**
   * The state a stream of session `id` starts with.
   * @throws DomainError `not_found` for an unknown id
   */
  async first(id: string): Promise<CheckoutLiveState> {
    return orNotFound(await readCheckoutLiveState(this.db, id), 'checkout session', id);
  }

  /**
   * Opens the stream of session `id` for the client at `address`, starting with `first` (see the module comment).
   * @returns a readable of UTF-8 SSE text
   * @throws DomainError `rate_limited` (429; set `Retry-After`) when the session or the address has its most streams
   *   open
   */
  open(id: string, address: string, first: CheckoutLiveState): PassThrough {
    const releaseSession = this.perSession.take(id);
    let releaseAddress;
    try {
      releaseAddress = this.perAddress.take(address);
    } catch (error) {
      releaseSession();
      throw error;
    }
    const { db } = this;
    let sent: string | undefined;
    /** The state's message when it changed, and the end once it is final. */
    const news = (state: CheckoutLiveState) => {
      const message = formatState(state);
      const chunks = message === sent ? [] : [message];
      sent = message;
      const end = state.status === 'open' ? undefined : { farewell: `checkout session ${state.status}` };
      return { chunks, end };
    };
    let pending: CheckoutLiveState | undefined = first;
    return openPollingStream({
      heartbeatMs: this.settings.heartbeatMs,
      pollMs: this.settings.pollMs,
      maxDurationMs: this.settings.maxDurationMs,
      preamble: `retry: ${STREAM_RETRY_MS}\n: connected\n\n`,
      expiredComment: `stream ends after ${this.settings.maxDurationMs / 1000} s; reconnect`,
      async read() {
        const state = pending ?? (await readCheckoutLiveState(db, id));
        pending = undefined;
        // A session is never deleted; should it vanish all the same, the stream ends.
        if (!state) return { chunks: [], end: { farewell: 'no such checkout session' } };
        return news(state);
      },
      onClose: () => {
        releaseSession();
        releaseAddress();
      },
      logger: this.logger,
      logContext: { checkout_session: id },
    });
  }
}
