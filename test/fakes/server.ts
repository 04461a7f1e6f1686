/**
 * The HTTP plumbing the provider fakes share: a node:http server on 127.0.0.1 that reads each request's body (parsed
 * when it is JSON), lets the fake act and answer, and writes that answer through the fault queue; work scheduled for
 * later that dies with the fake; and posting a callback with what came of it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeAnswer, FaultQueue } from './faults';

/** One request as a fake receives it. */
export interface FakeIncoming {
  method: string;
  /** The path as sent, without the query string. */
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  /** The body as UTF-8 text (`''` when there is none). */
  raw: string;
  /** The body parsed as JSON; undefined when empty or not JSON. */
  body: unknown;
}

/** Work a fake schedules for later (a customer's approval, a repeated callback), cancelled when the fake closes. */
export class FakeTimers {
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  /** Runs `work` after `ms` milliseconds, unless the fake was closed by then. */
  later(ms: number, work: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.closed) work();
    }, ms);
    this.timers.add(timer);
  }

  /** Cancels every pending piece of work; nothing scheduled runs afterwards. */
  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
  }
}

/** What {@link startFakeServer} needs. */
export interface FakeServerOptions {
  /** The port to listen on (default: a free one). */
  port?: number;
  faults: FaultQueue;
  timers: FakeTimers;
  /** The provider's own 500 answer and undocumented body, for the faults that put them in place of the answer. */
  replacements: { error500: FakeAnswer; undocumented: unknown };
  /** The fake acts on `request` and gives its answer; a fault may then replace or withhold that answer. */
  handle(request: FakeIncoming): FakeAnswer;
}

/** A listening fake server. */
export interface FakeServer {
  /** `http://127.0.0.1:{port}`. */
  url: string;
  /** Cancels the scheduled work, ends the requests a fault left hanging and stops listening. */
  close(): Promise<void>;
}

/** Starts a fake's HTTP server on 127.0.0.1 (see the module's comment). */
export async function startFakeServer(options: FakeServerOptions): Promise<FakeServer> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw.length > 0 ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const target = req.url ?? '/';
      const path = target.split('?')[0] as string;
      const query = new URL(target, 'http://fake').searchParams;
      const answer = options.handle({ method: req.method ?? 'GET', path, query, headers: req.headers, raw, body });
      options.faults.answer(res, path, answer, options.replacements);
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      options.timers.close();
      options.faults.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Sends a callback: `method` `url` with the JSON text `raw`, given 5 s; the answer's body is read and dropped.
 * @returns the receiver's HTTP status, or the error's message when none came (refused, time-out)
 */
export async function postCallback(
  url: string,
  raw: string,
  method: 'POST' | 'PUT' = 'POST',
): Promise<{ status: number } | { error: string }> {
  try {
    const response = await fetch(url, {
      method,
      headers: { 'content-type': 'application/json' },
      body: raw,
      signal: AbortSignal.timeout(5_000),
    });
    await response.arrayBuffer().catch(() => undefined);
    return { status: response.status };
  } catch (reason) {
    return { error: reason instanceof Error ? reason.message : String(reason) };
  }
}
