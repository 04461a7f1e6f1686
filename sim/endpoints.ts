/**
 * The merchants' webhook endpoints in the simulator's process (docs/simulation.md#what-it-runs): one HTTP server on
 * 127.0.0.1 whose path names the endpoint (`/m0`, `/m1`, …), recording every delivery it receives (the endpoint, the
 * `webhook-id` header, the event's type and its object's id) and answering with the status the run draws for it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request an endpoint received. */
export interface Received {
  /** The endpoint's path without its slash (`m0`). */
  endpoint: string;
  /** The `webhook-id` header: the event id. */
  eventId: string;
  /** The payload's `event` (the event's type). */
  type: string;
  /** The id of the event's object (`data.id`), or '' when it has none. */
  objectId: string;
  /** The HTTP status the endpoint answered. */
  status: number;
}

/** The endpoints' server: their URLs, what they received, and the answer they give. */
export interface Endpoints {
  /** The URL of endpoint `name` (`m0`). */
  url(name: string): string;
  /** Everything received since the last {@link Endpoints.reset}, in order of arrival. */
  received(): readonly Received[];
  /** Forgets what was received and answers with `answer` from now on (the run's draw; 200 by default). */
  reset(answer?: (request: Omit<Received, 'status'>) => number): void;
  close(): Promise<void>;
}

/** Starts the endpoints' server on a free port of 127.0.0.1. */
export async function startEndpoints(): Promise<Endpoints> {
  let log: Received[] = [];
  let answer: (request: Omit<Received, 'status'>) => number = () => 200;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let type = '';
      let objectId = '';
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event?: string; data?: { id?: string } };
        type = body.event ?? '';
        objectId = body.data?.id ?? '';
      } catch {
        // Recorded with an empty type: no event of ours has one, so the checks report it.
      }
      const request = {
        endpoint: (req.url ?? '/').slice(1),
        eventId: String(req.headers['webhook-id'] ?? ''),
        type,
        objectId,
      };
      const status = answer(request);
      log.push({ ...request, status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (name) => `http://127.0.0.1:${port}/${name}`,
    received: () => log,
    reset(next = () => 200) {
      log = [];
      answer = next;
    },
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
