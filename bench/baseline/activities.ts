/**
 * The baselines' activities: a no-op, so that what remains is Temporal's own cost of an activity, and one bare POST,
 * figure (c)'s delivery without anything of the service's around it.
 */
import http from 'node:http';

/** Returns at once. */
export async function noop(): Promise<void> {
  // nothing: the cost measured is scheduling, dispatch and completion
}

/** Keep-alive connections, as the service's deliveries keep theirs (src/lib/webhook-sender.ts). */
const agent = new http.Agent({ keepAlive: true });

/**
 * POSTs `body` (JSON text) to `url` (http only, a local receiver) with Node's HTTP client and reads the answer: a
 * webhook delivery's request without its checks, signature or records (figure c's baseline).
 * @returns the answer's status code
 * @throws Error when the receiver answers outside 2xx, or the request fails or takes more than 10 s (the service's
 *   delivery time-out); the activity's retry policy then tries again
 */
export async function post(url: string, body: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        timeout: 10_000,
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      },
      (response) => {
        response.resume();
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve(status);
          else reject(new Error(`${url} answered ${status}`));
        });
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`${url} did not answer within 10 s`)));
    request.on('error', reject);
    request.end(body);
  });
}
