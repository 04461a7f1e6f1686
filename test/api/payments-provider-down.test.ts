/**
 * `POST /v1/payments` to an operator that is `down` (docs/availability.md#api-create), on the real stack: accepted as
 * always while the merchant's `refuse_when_provider_down` is off (the default); with it on, 503
 * `provider_unavailable` with `Retry-After`, nothing created, and the `Idempotency-Key` not kept, so the same request
 * after recovery creates the payment. Another operator is never refused. The setting is read and changed on the
 * profile; a bad value is 400.
 */
import { expect } from 'chai';
import { createDb } from '../../src/db/knex';
import { PROVIDER_DOWN_RETRY_AFTER_SECONDS, refuseCreateWhenDown } from '../../src/services/provider-health-service';
import { call, registerDeveloper, type TestDeveloper } from '../helpers/http';
import { getStack, testConfig } from '../helpers/stack';

const ORDER = {
  amount: 1500,
  currency: 'RWF',
  payment_method: 'mobile_money',
  phone_number: '+250788000001',
  description: 'Order 77',
};

async function paymentCount(merchantId: string): Promise<number> {
  const { db } = await getStack();
  const [{ count }] = await db('payments').where({ merchant_id: merchantId }).count<{ count: number }[]>('id as count');
  return Number(count);
}

async function setMomo(dev: TestDeveloper, status: 'down' | 'operational'): Promise<void> {
  const answer = await call('/v1/sandbox/providers/momo/status', {
    key: dev.key,
    body: { country: 'RW', operation: 'collection', status, reason: 'outage drill' },
  });
  expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
}

describe('payments to a down operator (docs/availability.md#api-create)', function () {
  this.timeout(60_000);

  it('accepts the create while refuse_when_provider_down is off, the default', async () => {
    const dev = await registerDeveloper();
    const profile = await call('/v1/developer/profile', { key: dev.key });
    expect(profile.body.data.refuse_when_provider_down).to.equal(false);
    await setMomo(dev, 'down');
    const created = await call('/v1/payments', { key: dev.key, body: ORDER, headers: { 'idempotency-key': 'off-1' } });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    expect(created.headers.get('retry-after')).to.equal(null);
  });

  it('with the setting on: 503 provider_unavailable with Retry-After, nothing created, the key free for a retry', async () => {
    const dev = await registerDeveloper();
    const on = await call('/v1/developer/profile', {
      method: 'PUT',
      key: dev.token,
      body: { refuse_when_provider_down: true },
    });
    expect(on.status, JSON.stringify(on.body)).to.equal(200);
    expect(on.body.data.refuse_when_provider_down).to.equal(true);

    // Operational: accepted.
    const first = await call('/v1/payments', { key: dev.key, body: ORDER, headers: { 'idempotency-key': 'on-0' } });
    expect(first.status).to.equal(201);

    await setMomo(dev, 'down');
    const refused = await call('/v1/payments', { key: dev.key, body: ORDER, headers: { 'idempotency-key': 'on-1' } });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(503);
    expect(refused.body.error.code).to.equal('provider_unavailable');
    expect(refused.body.error.message).to.contain('momo');
    expect(refused.headers.get('retry-after')).to.equal(String(PROVIDER_DOWN_RETRY_AFTER_SECONDS));
    expect(await paymentCount(dev.merchantId)).to.equal(1);

    // Airtel Money in the same country is not down: accepted.
    const airtel = await call('/v1/payments', {
      key: dev.key,
      body: { ...ORDER, phone_number: '+250728000001' },
      headers: { 'idempotency-key': 'on-airtel' },
    });
    expect(airtel.status, JSON.stringify(airtel.body)).to.equal(201);
    expect(airtel.body.data.provider).to.not.equal('momo');

    // Back up: the same key and body now create the payment (the 503 was not kept under the key).
    await setMomo(dev, 'operational');
    const retried = await call('/v1/payments', { key: dev.key, body: ORDER, headers: { 'idempotency-key': 'on-1' } });
    expect(retried.status, JSON.stringify(retried.body)).to.equal(201);
    expect(await paymentCount(dev.merchantId)).to.equal(3);
  });

  it('takes a change of the setting made with the key at once, though the process had just kept the key with the old one', async () => {
    const dev = await registerDeveloper();
    await setMomo(dev, 'down');
    // The key's lookup is now kept by the API process with the setting off.
    const off = await call('/v1/payments', { key: dev.key, body: ORDER, headers: { 'idempotency-key': 'kept-0' } });
    expect(off.status, JSON.stringify(off.body)).to.equal(201);
    const on = await call('/v1/developer/profile', {
      method: 'PUT',
      key: dev.key,
      body: { refuse_when_provider_down: true },
    });
    expect(on.status, JSON.stringify(on.body)).to.equal(200);
    const refused = await call('/v1/payments', { key: dev.key, body: ORDER, headers: { 'idempotency-key': 'kept-1' } });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(503);
    expect(refused.body.error.code).to.equal('provider_unavailable');
    expect(await paymentCount(dev.merchantId)).to.equal(1);
    await setMomo(dev, 'operational');
  });

  it("reads the setting from the key's lookup, not the database, when the caller carries it; a session's is read", async () => {
    const dev = await registerDeveloper();
    const db = createDb(testConfig().DATABASE_URL, 1);
    const sent: string[] = [];
    db.on('query', (query: { sql: string }) => sent.push(query.sql));
    try {
      const owner = { merchantId: dev.merchantId, environment: 'sandbox' as const };
      const resolved = { provider: 'momo' as const, country: 'RW' };
      await refuseCreateWhenDown(db, { ...owner, refusesWhenProviderDown: false }, resolved);
      expect(sent).to.deep.equal([]);
      await refuseCreateWhenDown(db, owner, resolved);
      expect(sent.filter((sql) => sql.includes('refuse_when_provider_down'))).to.have.length(1);
    } finally {
      await db.destroy();
    }
  });

  it('refuses a setting that is not a boolean, and changes nothing', async () => {
    const dev = await registerDeveloper();
    const bad = await call('/v1/developer/profile', {
      method: 'PUT',
      key: dev.token,
      body: { refuse_when_provider_down: 'yes' },
    });
    expect(bad.status).to.equal(400);
    expect(JSON.stringify(bad.body)).to.contain('refuse_when_provider_down');
    expect((await call('/v1/developer/profile', { key: dev.key })).body.data.refuse_when_provider_down).to.equal(false);
  });
});
