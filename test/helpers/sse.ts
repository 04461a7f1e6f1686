/**
 * A Server-Sent Events client for tests over real HTTP: opens a stream, reads it in the background with the CLI's
 * SseReader, and lets a test wait for what it expects.
 */
import { SseReader, type SseMessage } from '../../src/cli/sse';

/** An open stream as a client sees it. */
export interface StreamClient {
  status: number;
  headers: Headers;
  /** Messages so far, in order. */
  messages: SseMessage[];
  /** Comment lines so far (`connected`, `heartbeat …`, the closing one). */
  comments: string[];
  /** The last `id:` the stream set (its announced start position before any event). */
  lastEventId(): string | undefined;
  /** Settles when the server ends the body (or the client closed it). */
  ended: Promise<void>;
  /** Resolves once `predicate` holds over the messages and comments; rejects after `timeoutMs`. */
  until(predicate: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Opens the stream at `url` with `headers` and reads it in the background (a non-200 answer is not read). */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<StreamClient> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  const messages: SseMessage[] = [];
  const comments: string[] = [];
  const reader = new SseReader({
    message: (message) => messages.push(message),
    comment: (text) => comments.push(text),
  });
  const ended = (async () => {
    if (response.status !== 200 || !response.body) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body) reader.push(decoder.decode(chunk, { stream: true }));
    } catch {
      // closed by the client
    }
  })();
  return {
    status: response.status,
    headers: response.headers,
    messages,
    comments,
    lastEventId: () => reader.lastEventId,
    ended,
    async until(predicate, what, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > deadline)
          throw new Error(
            `${what} did not happen within ${timeoutMs} ms; got ${JSON.stringify({ messages, comments })}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => controller.abort(),
  };
}
