/**
 * Rate limits (docs/limits.md#rate-limits) on two API processes sharing one PostgreSQL: the limits hold across both,
 * the
 * 101st request of a minute on a sandbox key is 429 with correct headers, another key is unaffected,
 * and the endpoint limits apply on top.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createApp } from '../../src/api/app';
import { createLogger } from '../../src/logger';
import { providerRegistryFromConfig } from '../../src/providers/registry';
import { purgeExpiredRows } from '../../src/db/maintenance';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import { hashSecretKey } from '../../src/lib/secret-keys';
import { registerDeveloper } from '../helpers/http';
import { getStack, testConfig } from '../helpers/stack';

describe('rate limits shared by two API processes (docs/limits.md#rate-limits)', function () {
  this.timeout(120_000);
  const servers: http.Server[] = [];
  const urls: string[] = [];

  before(async () => {
    const stack = await getStack();
    const config = testConfig({ RATE_LIMIT_MULTIPLIER: '1' });
    for (let i = 0; i < 2; i += 1) {
      const app = createApp({
        config,
        db: stack.db,
        temporal: stack.client,
        providers: providerRegistryFromConfig(createSandboxLedger(stack.db), config),
        logger: createLogger('rl', 'silent'),
      });
      const server = http.createServer(app.callback());
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      servers.push(server);
      urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    }
  });

  after(async () => {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  });

  /** Waits until a clock minute has at least `seconds` left, so a burst stays inside one window. */
  async function roomInMinute(seconds: number): Promise<void> {
    const left = 60 - (Math.floor(Date.now() / 1000) % 60);
    if (left < seconds) await new Promise((r) => setTimeout(r, left * 1000 + 200));
  }

  const get = (i: number, path: string, key: string) =>
    fetch(urls[i % 2] + path, { headers: { authorization: `Bearer ${key}` } });

  it('answers the 101st request of a minute on a sandbox key with 429, across both processes', async () => {
    const developer = await registerDeveloper();
    const other = await registerDeveloper();
    await roomInMinute(30);
    let last: Response | undefined;
    for (let i = 0; i < 100; i += 1) {
      last = await get(i, '/v1/payments/pay_000000000000000000000000', developer.key);
      expect(last.status, `request ${i + 1}`).to.equal(404);
    }
    expect(last?.headers.get('x-ratelimit-limit')).to.equal('100');
    expect(last?.headers.get('x-ratelimit-remaining')).to.equal('0');
    const refused = await get(100, '/v1/payments/pay_000000000000000000000000', developer.key);
    expect(refused.status).to.equal(429);
    const nowSeconds = Math.floor(Date.now() / 1000);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).to.be.within(1, 60);
    expect(Number(refused.headers.get('x-ratelimit-reset'))).to.equal(Math.floor(nowSeconds / 60) * 60 + 60);
    expect(refused.headers.get('x-ratelimit-remaining')).to.equal('0');
    expect(refused.headers.get('content-type')).to.match(/application\/json/);
    const body = (await refused.json()) as { success: boolean; error: { code: string; message: string } };
    expect(body.success).to.equal(false);
    expect(body.error.code).to.equal('rate_limited');
    expect(body.error.message).to.match(new RegExp(`${retryAfter} seconds`));

    const unaffected = await get(1, '/v1/payments/pay_000000000000000000000000', other.key);
    expect(unaffected.status).to.equal(404);
    expect(unaffected.headers.get('x-ratelimit-remaining')).to.equal('99');
  });

  it('limits POST /v1/payments to 30 a minute per key on top, counting merchant-scoped requests against the same key', async () => {
    const developer = await registerDeveloper();
    await roomInMinute(20);
    const post = (i: number) =>
      fetch(`${urls[i % 2]}/v1/payments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${developer.key}`, 'content-type': 'application/json' },
        body: '{}',
      });
    for (let i = 0; i < 30; i += 1) expect((await post(i)).status, `request ${i + 1}`).to.equal(400);
    const refused = await post(30);
    expect(refused.status).to.equal(429);
    expect(refused.headers.get('x-ratelimit-limit')).to.equal('30');
    // The key's minute budget was spent by 31 requests; the merchant-scoped path sees the same count.
    const scoped = await fetch(
      `${urls[0]}/v1/api/merchants/${developer.merchantId}/payments/pay_000000000000000000000000`,
      { headers: { 'x-api-key': developer.key } },
    );
    expect(scoped.headers.get('x-ratelimit-remaining')).to.equal(String(100 - 32));
  });

  it('limits registration per client IP (5 a minute)', async () => {
    await roomInMinute(10);
    let status = 0;
    let attempts = 0;
    while (status !== 429 && attempts < 7) {
      attempts += 1;
      const response = await fetch(`${urls[attempts % 2]}/v1/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      status = response.status;
      if (status === 429) expect(Number(response.headers.get('retry-after'))).to.be.within(1, 60);
    }
    expect(status).to.equal(429);
    expect(attempts).to.be.at.most(6);
  });

  it("counts provider callbacks on their own budget per provider and IP, not a merchant's (docs/limits.md#callback-limits)", async () => {
    const response = await fetch(`${urls[0]}/v1/provider-callbacks/momo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).to.equal(401); // unsigned: refused by the provider's authentication, not by a limit
    // test/api/callback-rate-limit.test.ts goes past it
    expect(response.headers.get('x-ratelimit-limit')).to.equal('600');
  });
});

describe('the rate-limit bucket is the credential authentication accepts (docs/limits.md#rate-limits)', function () {
  this.timeout(60_000);
  let url: string;
  let server: http.Server;

  before(async () => {
    const stack = await getStack();
    const config = testConfig({ RATE_LIMIT_MULTIPLIER: '1' });
    const app = createApp({
      config,
      db: stack.db,
      temporal: stack.client,
      providers: providerRegistryFromConfig(createSandboxLedger(stack.db), config),
      logger: createLogger('rl-bucket', 'silent'),
    });
    server = http.createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function roomInMinute(seconds: number): Promise<void> {
    const left = 60 - (Math.floor(Date.now() / 1000) % 60);
    if (left < seconds) await new Promise((r) => setTimeout(r, left * 1000 + 200));
  }

  it('keeps the login limit (10 a minute per IP) whatever X-API-Key each try carries', async () => {
    const developer = await registerDeveloper();
    await roomInMinute(20);
    const statuses: number[] = [];
    for (let i = 0; i < 12; i += 1) {
      const response = await fetch(`${url}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': `junk${i}`, authorization: `Bearer junk${i}` },
        body: JSON.stringify({ email: developer.email, password: 'wrong password!' }),
      });
      statuses.push(response.status);
    }
    expect(statuses.slice(0, 10)).to.deep.equal(Array(10).fill(401));
    expect(statuses.slice(10)).to.deep.equal([429, 429]);
  });

  it("keeps the login limit whatever the path's spelling: past it, every spelling is 429 or 404, never a password check (docs/api.md#paths)", async () => {
    const developer = await registerDeveloper();
    await roomInMinute(20);
    const login = (path: string, password: string) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: developer.email, password }),
      });
    let status = 0;
    for (let attempt = 0; attempt < 11 && status !== 429; attempt += 1)
      status = (await login('/v1/auth/login', 'wrong password!')).status;
    expect(status, 'the login limit (10 a minute per IP) is reached').to.equal(429);
    const spellings = [
      '/v1/auth/login',
      '/V1/auth/login',
      '/v1/AUTH/login',
      '/v1/auth/LOGIN',
      '/v1/auth/Login',
      '/v1/auth/login/',
      '/v1//auth/login',
      '/v1/auth/%6Cogin',
      '/v1/%61uth/login',
    ];
    const answers = await Promise.all(
      spellings.map(async (path) => `${path} ${(await login(path, developer.password)).status}`),
    );
    expect(answers).to.deep.equal(spellings.map((path) => `${path} ${path === '/v1/auth/login' ? 429 : 404}`));
  });

  it('counts payments against the Bearer key authentication used, not a junk X-API-Key beside it (30 a minute)', async () => {
    const developer = await registerDeveloper();
    await roomInMinute(30);
    const statuses: number[] = [];
    for (let i = 0; i < 31; i += 1) {
      const response = await fetch(`${url}/v1/payments`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${developer.key}`,
          'x-api-key': `sk_sandbox_${String(i).padStart(32, 'Z')}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          amount: 1500,
          currency: 'RWF',
          payment_method: 'mobile_money',
          phone_number: '+250788000003',
        }),
      });
      statuses.push(response.status);
    }
    expect(statuses.filter((s) => s === 201)).to.have.length(30);
    expect(statuses[30]).to.equal(429);
  });

  it('counts unknown keys against the client IP: rotating junk keys leave no counters of their own', async () => {
    const { db } = await getStack();
    const junk = Array.from({ length: 5 }, (_, i) => `sk_sandbox_${String(i).padStart(32, 'Q')}`);
    for (const key of junk)
      expect(
        (await fetch(`${url}/v1/payments/pay_x`, { headers: { authorization: `Bearer ${key}` } })).status,
      ).to.equal(401);
    for (const key of junk) {
      expect(
        await db('rate_limits')
          .where('key', 'like', `%key:${hashSecretKey(key)}%`)
          .count<{ n: number }[]>('key as n'),
        key,
      ).to.deep.equal([{ n: 0 }]);
    }
  });

  it('purges counters whose window ended and idempotency keys older than 24 h', async () => {
    const { db } = await getStack();
    await db('rate_limits').insert({ key: 'test:expired', points: 1, expire: Date.now() - 1_000 });
    await db('rate_limits').insert({ key: 'test:current', points: 1, expire: Date.now() + 60_000 });
    const merchant = `mer_purge${Date.now()}`;
    await db('idempotency_keys').insert({
      merchant_id: merchant,
      environment: 'sandbox',
      key: 'old',
      request_hash: 'h',
      created_at: new Date(Date.now() - 25 * 3600 * 1000),
    });
    await db('idempotency_keys').insert({
      merchant_id: merchant,
      environment: 'sandbox',
      key: 'new',
      request_hash: 'h',
      created_at: new Date(),
    });
    const deleted = await purgeExpiredRows(db, new Date());
    expect(deleted.rateLimits).to.be.at.least(1);
    expect(await db('rate_limits').whereIn('key', ['test:expired', 'test:current']).pluck('key')).to.deep.equal([
      'test:current',
    ]);
    expect(await db('idempotency_keys').where({ merchant_id: merchant }).pluck('key')).to.deep.equal(['new']);
  });
});
