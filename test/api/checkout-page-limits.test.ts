/**
 * The checkout page's own API limits (docs/limits.md#checkout-page-limits) over real HTTP on an app with the
 * production limits (RATE_LIMIT_MULTIPLIER 1): 60 requests a minute per session and per client address, then 429
 * `rate_limited` in the envelope with `Retry-After`, counted across `/public`, `/attempts`, `/events` and `/logo`; a
 * refused attempt prompts nobody; two client addresses of the test's own (127.0.0.31 and 127.0.0.32, both loopback)
 * tell the two budgets apart.
 * And no CORS header on these routes, to a preflight or a request with an `Origin`.
 */
import http from 'node:http';
import { expect } from 'chai';
import { call, registerDeveloper, type TestDeveloper } from '../helpers/http';
import { startApp } from '../helpers/processes';
import { getStack, testConfig } from '../helpers/stack';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** A request to `baseUrl + path` from the local address `from` (a loopback address). */
function request(
  baseUrl: string,
  path: string,
  from: string,
  options: { method?: string; body?: object; form?: Record<string, string>; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const payload = options.form
    ? new URLSearchParams(options.form).toString()
    : options.body === undefined
      ? undefined
      : JSON.stringify(options.body);
  const contentType = options.form ? 'application/x-www-form-urlencoded' : 'application/json';
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${baseUrl}${path}`,
      {
        method: options.method ?? (payload ? 'POST' : 'GET'),
        localAddress: from,
        headers: { ...(payload ? { 'content-type': contentType } : {}), ...options.headers },
      },
      (res) => {
        // A stream that opened is not read: its status and headers are all a limit test needs.
        if ((res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: undefined });
          req.destroy();
          return;
        }
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Waits until the clock minute has at least `seconds` left, so a burst stays inside one window. */
async function roomInMinute(seconds: number): Promise<void> {
  const left = 60 - (Math.floor(Date.now() / 1000) % 60);
  if (left < seconds) await new Promise((r) => setTimeout(r, left * 1000 + 200));
}

async function createSession(dev: TestDeveloper): Promise<string> {
  const created = await call('/v1/checkout/sessions', {
    key: dev.key,
    body: { amount: 1_000, currency: 'RWF', description: 'Limits', success_url: 'https://shop.example/paid' },
    headers: { 'idempotency-key': `pl-${Math.random()}` },
  });
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  return created.body.data.id as string;
}

function expectLimited(answer: Answer, what: string): void {
  expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).to.equal(429);
  expect(answer.body.error.code).to.equal('rate_limited');
  const retryAfter = Number(answer.headers['retry-after']);
  expect(retryAfter).to.be.within(1, 60);
  expect(answer.headers['x-ratelimit-limit']).to.equal('60');
  expect(answer.headers['x-ratelimit-remaining']).to.equal('0');
}

describe("the checkout page's own API limits (docs/limits.md#checkout-page-limits)", function () {
  this.timeout(180_000);
  let app: { baseUrl: string; close(): Promise<void> };
  let dev: TestDeveloper;

  before(async () => {
    app = await startApp(testConfig({ RATE_LIMIT_MULTIPLIER: '1' }));
    dev = await registerDeveloper();
  });
  after(async () => {
    await app.close();
  });

  it('takes 60 requests a minute per session and per client address, then 429 with Retry-After', async () => {
    // Addresses of this test's own: the counts live in PostgreSQL, shared with every other test's requests from
    // 127.0.0.1 in the same minute.
    const OWN = '127.0.0.31';
    const OTHER = '127.0.0.32';
    const first = await createSession(dev);
    const second = await createSession(dev);
    await roomInMinute(40);

    // 60 requests on the first session from OWN, across the three routes.
    const stream = await request(app.baseUrl, `/v1/checkout/sessions/${first}/events`, OWN);
    expect(stream.status).to.equal(200);
    for (let i = 1; i < 60; i += 1) {
      const read = await request(app.baseUrl, `/v1/checkout/sessions/${first}/public`, OWN);
      expect(read.status, `request ${i + 1}`).to.equal(200);
      expect(read.headers['access-control-allow-origin']).to.equal(undefined);
    }

    // The session has had its 60: from another address too, on every route, and the attempt prompts nobody.
    expectLimited(await request(app.baseUrl, `/v1/checkout/sessions/${first}/public`, OTHER), 'public');
    expectLimited(await request(app.baseUrl, `/v1/checkout/sessions/${first}/events`, OTHER), 'events');
    expectLimited(await request(app.baseUrl, `/v1/checkout/sessions/${first}/logo`, OTHER), 'logo');
    const attempt = await request(app.baseUrl, `/v1/checkout/sessions/${first}/attempts`, OTHER, {
      body: { payment_method: 'mobile_money', phone_number: '0788 000 001' },
    });
    expectLimited(attempt, 'attempts');
    // The hosted page's own form (JavaScript off) counts against the same limit: a plain page, nobody prompted.
    const form = await request(app.baseUrl, `/pay/${first}`, OTHER, { form: { phone: '0788 000 001' } });
    expect(form.status).to.equal(429);
    expect(Number(form.headers['retry-after'])).to.be.within(1, 60);
    expect(String(form.headers['content-type'])).to.match(/^text\/(html|plain)/);
    const { db } = await getStack();
    expect(await db('payments').where({ checkout_session: first }).select('id')).to.deep.equal([]);

    // Another session from the second address (3 requests so far) is served; from the first address it is not.
    expect((await request(app.baseUrl, `/v1/checkout/sessions/${second}/public`, OTHER)).status).to.equal(200);
    expectLimited(await request(app.baseUrl, `/v1/checkout/sessions/${second}/public`, OWN), 'per address');

    // The merchant's own routes (with its key) are not the page's budget.
    const merchant = await fetch(`${app.baseUrl}/v1/checkout/sessions/${first}`, {
      headers: { authorization: `Bearer ${dev.key}` },
    });
    expect(merchant.status).to.equal(200);
  });

  it('sends no CORS headers, to a preflight or to a request with an Origin', async () => {
    const { baseUrl } = await getStack();
    const id = await createSession(dev);
    const origin = { origin: 'https://evil.example' };
    for (const [method, path] of [
      ['GET', 'public'],
      ['GET', 'events'],
      ['OPTIONS', 'public'],
      ['OPTIONS', 'attempts'],
      ['OPTIONS', 'events'],
    ] as const) {
      const answer = await request(baseUrl, `/v1/checkout/sessions/${id}/${path}`, '127.0.0.1', {
        method,
        headers: {
          ...origin,
          ...(method === 'OPTIONS'
            ? { 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' }
            : {}),
        },
      });
      const cors = Object.keys(answer.headers).filter((h) => h.startsWith('access-control-'));
      expect(cors, `${method} ${path}`).to.deep.equal([]);
    }
    const attempt = await request(baseUrl, `/v1/checkout/sessions/${id}/attempts`, '127.0.0.1', {
      headers: origin,
      body: { payment_method: 'mobile_money', phone_number: '0788 000 002' },
    });
    expect(attempt.status).to.equal(201);
    expect(Object.keys(attempt.headers).filter((h) => h.startsWith('access-control-'))).to.deep.equal([]);
  });
});
