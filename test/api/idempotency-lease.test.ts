/**
 * docs/payments.md#idempotency: a key is never released once a side effect may have happened. A create that failed
 * with a 5xx keeps its claim; the same request takes it over once the lease ran out and completes,
 * reattaching to the same payment id; another request with that key is still refused; a 4xx
 * refusal releases the key at once. (Lease shortened to 1 s here; 30 s by default.)
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { Client, Connection } from '@temporalio/client';
import { createApp } from '../../src/api/app';
import { claimIdempotencyKey } from '../../src/db/idempotency-keys';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import { createLogger } from '../../src/logger';
import { providerRegistryFromConfig } from '../../src/providers/registry';
import { freePort } from '../../scripts/lib/ports';
import { registerDeveloper } from '../helpers/http';
import { getStack, testConfig } from '../helpers/stack';

const ORDER = { amount: 1500, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' };

describe('idempotency claims with a lease (docs/payments.md#idempotency)', function () {
  this.timeout(90_000);
  const config = testConfig({ RATE_LIMIT_MULTIPLIER: '1000', IDEMPOTENCY_LEASE_MS: '1000' });
  const servers: http.Server[] = [];

  async function listen(temporal: Client): Promise<string> {
    const { db } = await getStack();
    const server = http.createServer(
      createApp({
        config,
        db,
        temporal,
        providers: providerRegistryFromConfig(createSandboxLedger(db), config),
        logger: createLogger('lease', 'silent'),
      }).callback(),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  after(() => Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())))));

  function create(url: string, key: string, idempotencyKey: string, body: object = ORDER) {
    return fetch(`${url}/v1/payments`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
      },
      body: JSON.stringify(body),
    });
  }

  it('keeps the claim of a create that failed with a 5xx; the same request takes it over after the lease, another is refused', async () => {
    const { db, client } = await getStack();
    const developer = await registerDeveloper();
    const broken = await listen(
      new Client({
        connection: Connection.lazy({ address: `127.0.0.1:${await freePort()}`, connectTimeout: '1 second' }),
      }),
    );
    const working = await listen(client);
    const failed = await create(broken, developer.key, 'order-77');
    expect(failed.status).to.equal(503);
    const claim = await db('idempotency_keys')
      .where({ merchant_id: developer.merchantId, key: 'order-77' })
      .first('response_status', 'created_at');
    expect(claim).to.include({ response_status: null });
    // Another request with the key is refused, even after the lease: the claim is the first request's.
    await new Promise((r) => setTimeout(r, 1_200));
    const other = await create(working, developer.key, 'order-77', { ...ORDER, amount: 1600 });
    expect(other.status).to.equal(409);
    expect(((await other.json()) as { error: { code: string } }).error.code).to.equal('idempotency_key_reused');
    // The same request takes the claim over and completes; its replay window still starts at the first claim.
    const retried = await create(working, developer.key, 'order-77');
    expect(retried.status).to.equal(201);
    const payment = ((await retried.json()) as { data: { id: string } }).data;
    const replay = await create(working, developer.key, 'order-77');
    expect(replay.headers.get('idempotent-replayed')).to.equal('true');
    expect(((await replay.json()) as { data: { id: string } }).data.id).to.equal(payment.id);
    const after = await db('idempotency_keys')
      .where({ merchant_id: developer.merchantId, key: 'order-77' })
      .first('created_at');
    expect(after.created_at.getTime()).to.equal(claim.created_at.getTime());
    expect(
      await db('payments').where({ merchant_id: developer.merchantId }).count<{ n: number }[]>('id as n'),
    ).to.deep.equal([{ n: 1 }]);
  });

  it('releases the key of a request refused with a 4xx at once', async () => {
    const { client } = await getStack();
    const developer = await registerDeveloper();
    const url = await listen(client);
    expect((await create(url, developer.key, 'order-78', { ...ORDER, currency: 'KES' })).status).to.equal(400);
    expect((await create(url, developer.key, 'order-78')).status).to.equal(201);
  });

  it('answers the same payment when a key whose record is gone comes again with the same request (its first use, no lookup)', async () => {
    const { db, client } = await getStack();
    const developer = await registerDeveloper();
    const url = await listen(client);
    const first = await create(url, developer.key, 'order-purged');
    expect(first.status).to.equal(201);
    const { data: created } = (await first.json()) as { data: { id: string } };
    // The key's record is purged after its window (deleted here): the same request is the key's first use again.
    await db('idempotency_keys').where({ key: 'order-purged' }).delete();
    const again = await create(url, developer.key, 'order-purged');
    expect(again.status).to.equal(201);
    expect(((await again.json()) as { data: { id: string } }).data.id).to.equal(created.id);
    expect(await db('payments').where({ merchant_id: developer.merchantId })).to.have.length(1);
  });

  it('takes over an unanswered claim only for the same request and only after the lease', async () => {
    const { db } = await getStack();
    const scope = { merchantId: `mer_lease${Date.now()}`, environment: 'sandbox' as const, key: 'k' };
    const day = new Date(Date.now() - 24 * 3600 * 1000);
    expect(await claimIdempotencyKey(db, scope, 'h1', day, new Date(Date.now() - 30_000))).to.equal('first');
    expect(await claimIdempotencyKey(db, scope, 'h1', day, new Date(Date.now() - 30_000))).to.equal(false);
    expect(await claimIdempotencyKey(db, scope, 'h2', day, new Date(Date.now() + 1_000))).to.equal(false);
    expect(await claimIdempotencyKey(db, scope, 'h1', day, new Date(Date.now() + 1_000))).to.equal('again');
  });
});
