/**
 * The API processes' cache of key lookups (docs/api.md#credentials): a revoked or rolled-out key is refused at once by
 * the process that revoked or rolled it, and within KEY_CACHE_SECONDS by another API process that had just served it.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { KEY_CACHE_SECONDS } from '../../src/services/key-cache';
import { call, registerDeveloper, type TestDeveloper } from '../helpers/http';
import { ApiProcess } from '../helpers/processes';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function restrictedKey(developer: TestDeveloper): Promise<{ id: string; secret: string }> {
  const created = await call('/v1/developer/keys', {
    key: developer.token,
    body: { name: 'Reader', environment: 'sandbox', scopes: ['payments:read'] },
  });
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  return created.body.data.key;
}

/** The status of a payments list read with `key` (database only: no worker needed). */
async function listStatus(key: string, baseUrl?: string): Promise<number> {
  return (await call('/v1/payments?limit=1', { key, ...(baseUrl ? { baseUrl } : {}) })).status;
}

describe('key lookups kept by each API process (docs/api.md#credentials)', function () {
  this.timeout(120_000);
  let other: ApiProcess;

  before(async () => {
    other = await ApiProcess.create(`key-cache-${randomBytes(4).toString('hex')}`);
    await other.start();
  });

  after(async () => {
    await other?.kill();
  });

  it('refuses a revoked restricted key at once in the process that revoked it, though it had just served it', async () => {
    const developer = await registerDeveloper();
    const key = await restrictedKey(developer);
    expect(await listStatus(key.secret)).to.equal(200);
    const revoked = await call(`/v1/developer/keys/${key.id}`, { key: developer.token, method: 'DELETE' });
    expect(revoked.status).to.equal(200);
    expect(await listStatus(key.secret)).to.equal(401);
  });

  it('refuses a secret key rolled out with expires_in_hours 0 at once in the process that rolled it', async () => {
    const developer = await registerDeveloper();
    expect(await listStatus(developer.key)).to.equal(200);
    const rolled = await call('/v1/developer/keys/sandbox/roll', {
      key: developer.token,
      body: { expires_in_hours: 0 },
    });
    expect(rolled.status, JSON.stringify(rolled.body)).to.equal(201);
    expect(await listStatus(developer.key)).to.equal(401);
    expect(await listStatus(rolled.body.data.key.secret)).to.equal(200);
  });

  it(`refuses a revoked key in another API process within ${KEY_CACHE_SECONDS} s`, async () => {
    const developer = await registerDeveloper();
    const key = await restrictedKey(developer);
    expect(await listStatus(key.secret, other.baseUrl)).to.equal(200);
    const revoked = await call(`/v1/developer/keys/${key.id}`, { key: developer.token, method: 'DELETE' });
    expect(revoked.status).to.equal(200);
    const revokedAt = Date.now();
    let status = await listStatus(key.secret, other.baseUrl);
    while (status === 200 && Date.now() - revokedAt < (KEY_CACHE_SECONDS + 2) * 1000) {
      await sleep(250);
      status = await listStatus(key.secret, other.baseUrl);
    }
    expect(status).to.equal(401);
    // The bound is the cache's lifetime (plus this test's polling and a busy machine's slack), not a request later.
    expect(Date.now() - revokedAt).to.be.below((KEY_CACHE_SECONDS + 2) * 1000);
  });
});
