/**
 * What the provider fakes share: faults injected for the next requests (a 500, no answer at all,
 * or a 200 whose body is not the provider's), and writing an answer that a fault may replace.
 */
import type http from 'node:http';

/**
 * A fault for the next matching requests: 500, no answer at all, a 200 whose body is not the
 * provider's, or a 404 where the provider documents none (as a gateway in front of it may answer).
 */
export type FakeFaultKind = 'error_500' | 'hang' | 'undocumented' | 'not_found';

/** The body of a `not_found` fault: an API gateway's own 404 (`{statusCode, message}`). */
const GATEWAY_NOT_FOUND: FakeAnswer = { status: 404, body: { statusCode: 404, message: 'Resource not found' } };

/** An answer of a fake: HTTP status and JSON body (none when undefined). */
export interface FakeAnswer {
  status: number;
  body: unknown;
}

/**
 * Faults queued for the next requests, and the requests left hanging by them (destroyed by `close`).
 * `isTokenPath` names the path a fault without paths leaves alone (the provider's token endpoint).
 */
export class FaultQueue {
  private readonly faults: { kind: FakeFaultKind; remaining: number; paths: string[] | null }[] = [];
  private readonly hanging = new Set<http.ServerResponse>();

  constructor(private readonly isTokenPath: (path: string) => boolean) {}

  /**
   * The next `count` requests whose path starts with one of `paths` (default: every API path but the token's) get
   * `kind`.
   */
  inject(kind: FakeFaultKind, count: number, paths?: string[]): void {
    this.faults.push({ kind, remaining: count, paths: paths ?? null });
  }

  /**
   * Answers `res` with `answer`, or with what the next fault for `path` puts in its place: the
   * provider's 500 answer (`error500`), the `undocumented` body, a gateway's 404, or nothing at all (a hang). The
   * fake has acted before this is called: a fault only replaces or withholds its answer.
   */
  answer(
    res: http.ServerResponse,
    path: string,
    answer: FakeAnswer,
    replacements: { error500: FakeAnswer; undocumented: unknown },
  ): void {
    const fault = this.take(path);
    if (fault === 'hang') {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    const sent =
      fault === 'error_500'
        ? replacements.error500
        : fault === 'undocumented'
          ? { status: 200, body: replacements.undocumented }
          : fault === 'not_found'
            ? GATEWAY_NOT_FOUND
            : answer;
    if (sent.body === undefined) {
      res.writeHead(sent.status);
      res.end();
      return;
    }
    res.writeHead(sent.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(sent.body));
  }

  /** Ends every request a fault left hanging. */
  close(): void {
    for (const res of this.hanging) res.destroy();
  }

  /** The fault for a request to `path`, used up, if any (the fakes' own `/_fake/` controls never get one). */
  private take(path: string): FakeFaultKind | undefined {
    if (path.startsWith('/_fake/')) return undefined;
    const fault = this.faults.find(
      (f) => f.remaining > 0 && (f.paths ? f.paths.some((p) => path.startsWith(p)) : !this.isTokenPath(path)),
    );
    if (!fault) return undefined;
    fault.remaining -= 1;
    return fault.kind;
  }
}

/** The callbacks a fake has sent, in order, and waiting for a number of them. */
export class SentLog<T> {
  /** Every callback sent so far (answered or not), oldest first. */
  readonly sent: T[] = [];
  private readonly waiters: { count: number; resolve: () => void }[] = [];

  /** Records `item` and wakes the waiters it completes. */
  note(item: T): void {
    this.sent.push(item);
    for (const waiter of this.waiters.filter((w) => this.sent.length >= w.count)) waiter.resolve();
  }

  /** Resolves with the log once `count` callbacks were sent; rejects after `timeoutMs` (ms). */
  waitFor(count: number, timeoutMs: number): Promise<T[]> {
    if (this.sent.length >= count) return Promise.resolve(this.sent);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the fake sent ${this.sent.length} of ${count} callbacks in ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve(this.sent);
        },
      });
    });
  }
}
