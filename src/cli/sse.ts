/**
 * An incremental reader of Server-Sent Events text (the "event stream interpretation" of the HTML
 * standard): lines end with CRLF, LF or CR; `:` starts a comment; fields `event`, `data` (several
 * lines joined with LF), `id` (ignored when it contains NUL) and `retry` (digits only); a blank line
 * dispatches the message, unless it has no data. Used by `paycollect listen`.
 */

/** One dispatched message. `event` defaults to `message`; `id` is the last event id seen so far. */
export interface SseMessage {
  event: string;
  data: string;
  id: string | undefined;
}

/** What the reader reports besides messages. */
export interface SseHandlers {
  message(message: SseMessage): void;
  /** A `retry:` field: the reconnection delay in milliseconds. */
  retry?(milliseconds: number): void;
  /** A comment line's text (after the colon), e.g. heartbeats. */
  comment?(text: string): void;
}

/** Feeds decoded text chunks in; calls the handlers for each complete line. */
export class SseReader {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private lastId: string | undefined;
  /** A chunk ended with CR: a LF starting the next chunk belongs to that line end. */
  private pendingCr = false;

  constructor(private readonly handlers: SseHandlers) {}

  /** The last event id the stream set (the value to send as `Last-Event-ID`). */
  get lastEventId(): string | undefined {
    return this.lastId;
  }

  /** Processes `chunk` (text, any split). */
  push(chunk: string): void {
    let text = chunk;
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      // A CR at the very end may be the first half of a CRLF split across chunks.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) this.pendingCr = true;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.startsWith(':')) {
      this.handlers.comment?.(line.slice(1).trimStart());
      return;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\u0000')) this.lastId = value;
    else if (field === 'retry' && /^[0-9]+$/.test(value)) this.handlers.retry?.(Number(value));
  }

  private dispatch(): void {
    const data = this.data;
    const event = this.event;
    this.data = [];
    this.event = '';
    if (data.length === 0) return;
    this.handlers.message({ event: event || 'message', data: data.join('\n'), id: this.lastId });
  }
}
