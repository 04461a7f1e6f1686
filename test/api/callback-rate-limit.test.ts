/**
 * Provider callbacks are rate limited per provider and client IP
 * (docs/limits.md#callback-limits): past PROVIDER_CALLBACK_RATE_LIMIT_PER_MINUTE in a clock minute,
 * 429 `rate_limited` with `Retry-After`, counted before the callback is authenticated; another IP
 * or another provider keeps its own budget. The app trusts no proxy headers, so the client IP is
 * the socket's: the second IP is a real second loopback address (127.0.0.2), and a forged
 * `X-Forwarded-For` changes nothing.
 */
import http from 'node:http';
import { expect } from 'chai';
import { startApp } from '../helpers/processes';
import { testConfig } from '../helpers/stack';

const LIMIT = 5;

/**
 * POSTs an unsigned callback to `provider` from `localAddress`; resolves with the status and the Retry-After header.
 */
function callback(
  baseUrl: string,
  provider: string,
  localAddress: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; retryAfter: string | undefined; body: any }> {
  const url = new URL(`${baseUrl}/v1/provider-callbacks/${provider}`);
  const body = JSON.stringify({ reference: 'nothing', status: 'completed' });
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            retryAfter: response.headers['retry-after'],
            body: JSON.parse(text),
          }),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

describe('provider callbacks: rate limit per provider and IP (docs/limits.md#callback-limits)', function () {
  this.timeout(30_000);
  let app: Awaited<ReturnType<typeof startApp>>;

  before(async () => {
    app = await startApp(
      testConfig({ PROVIDER_CALLBACK_RATE_LIMIT_PER_MINUTE: String(LIMIT), RATE_LIMIT_MULTIPLIER: '1' }),
    );
  });

  after(async () => {
    await app?.close();
  });

  it('answers 429 with Retry-After past the limit, before authenticating; another IP or provider is not affected', async () => {
    // Stay inside one clock minute: the windows are aligned to it.
    const secondsLeft = 60 - new Date().getUTCSeconds();
    if (secondsLeft < 5) await new Promise((resolve) => setTimeout(resolve, secondsLeft * 1000 + 100));

    const statuses: number[] = [];
    for (let i = 0; i < LIMIT; i += 1)
      statuses.push((await callback(app.baseUrl, 'momo', '127.0.0.1', { 'x-forwarded-for': `203.0.113.${i}` })).status);
    expect(statuses).to.deep.equal(Array(LIMIT).fill(401)); // unsigned: refused by the adapter, and counted
    const refused = await callback(app.baseUrl, 'momo', '127.0.0.1', { 'x-forwarded-for': '198.51.100.7' });
    expect(refused.status).to.equal(429);
    expect(refused.body.error.code).to.equal('rate_limited');
    expect(Number(refused.retryAfter)).to.be.within(1, 60);

    expect((await callback(app.baseUrl, 'momo', '127.0.0.2')).status).to.equal(401);
    expect((await callback(app.baseUrl, 'mobile_money_b', '127.0.0.1')).status).to.equal(401);
    expect((await callback(app.baseUrl, 'momo', '127.0.0.1')).status).to.equal(429);
  });
});
