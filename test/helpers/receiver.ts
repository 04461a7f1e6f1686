/**
 * A real webhook receiver for tests: node:http on 127.0.0.1 on a free port, recording every request
 * with its raw body, and answering what the test's responder says (default 204).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got; `body` is the raw body as sent. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Wall-clock time of arrival, in milliseconds. */
  receivedAt: number;
}

/** What to answer: status, headers, body; `delayMs` waits before answering (0 = at once). */
export interface ReceiverAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  delayMs?: number;
}

/** Decides the answer to a request (the n-th is `requests.length` after it was recorded). */
export type Responder = (request: ReceivedRequest, index: number) => ReceiverAnswer;

/** A running receiver. */
export interface Receiver {
  /** `http://127.0.0.1:{port}` */
  origin: string;
  /** Every request so far, in order of arrival. */
  requests: ReceivedRequest[];
  /** Replaces the responder. */
  respond(responder: Responder): void;
  /** Requests whose connection is open now (arrived, not yet answered or given up by the sender). */
  readonly inFlight: number;
  /** The most requests that were open at once. */
  readonly maxInFlight: number;
  /** Resolves once `count` requests arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** Starts a receiver answering with `responder` (default: 204 No Content). */
export async function startReceiver(responder: Responder = () => ({ status: 204 })): Promise<Receiver> {
  let current = responder;
  const requests: ReceivedRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = http.createServer((req, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    // 'close' fires once, after the answer is sent or when the sender gave up.
    res.once('close', () => {
      inFlight -= 1;
    });
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      };
      requests.push(received);
      const answer = current(received, requests.length - 1);
      for (const waiter of waiters.filter((w) => requests.length >= w.count)) waiter.resolve();
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body);
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    respond(next) {
      current = next;
    },
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    waitFor(count, timeoutMs = 20_000) {
      if (requests.length >= count) return Promise.resolve(requests);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${requests.length} of ${count} requests in ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(requests);
          },
        });
      });
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/**
 * Verifies a received delivery as a merchant would (docs/webhooks.md#signatures): with the npm `standardwebhooks`
 * library
 * unchanged, and with the hex scheme (`X-Webhook-Signature: sha256=<hex HMAC of the raw body>`,
 * keyed with the secret as shown; after a rotation the header lists one such value per valid
 * secret, space-separated, and one match is enough, as docs/webhooks.md says).
 * @returns the verified payload
 * @throws when either signature does not verify
 */
export function verifyDelivery(
  request: ReceivedRequest,
  secret: string,
): { id: string; event: string; created_at: string; data: any } {
  const payload = new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as {
    id: string;
    event: string;
    created_at: string;
    data: any;
  };
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(request.body).digest('hex')}`);
  const received = String(request.headers['x-webhook-signature'] ?? '')
    .split(' ')
    .map((value) => Buffer.from(value));
  if (!received.some((value) => value.length === expected.length && timingSafeEqual(value, expected)))
    throw new Error('X-Webhook-Signature does not match');
  return payload;
}
