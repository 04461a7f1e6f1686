/**
 * A merchant's own sandbox status of a provider over HTTP on the real stack (docs/availability.md#sandbox-override):
 * `POST /v1/sandbox/providers/{provider}/status` sets what that merchant's sandbox sees for 10 minutes (its
 * availability; its `provider.status_changed` event delivered to its endpoint only), never another merchant's nor
 * live; it lapses after 10 minutes; bad input (unknown provider, country, operation, status, no reason) is 400 naming
 * the field and changes nothing; a live key is 404.
 */
import { expect } from 'chai';
import { call, registerDeveloper, type TestDeveloper } from '../helpers/http';
import { insertLiveKey } from '../helpers/live-key';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { getStack } from '../helpers/stack';
import { insertWebhook } from '../helpers/webhooks';

const PATH = '/v1/sandbox/providers/momo/status';
const DOWN = { country: 'RW', operation: 'collection', status: 'down', reason: 'testing our outage banner' };

interface Row {
  provider: string;
  country: string;
  operation: string;
  status: string;
  reason: string | null;
}

async function momoRw(key: string, query = ''): Promise<Row> {
  const answer = await call(`/v1/availability${query}`, { key });
  expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
  return (answer.body.data.availability as Row[]).find(
    (row) => row.provider === 'momo' && row.country === 'RW' && row.operation === 'collection',
  ) as Row;
}

describe('sandbox provider status (docs/availability.md#sandbox-override)', function () {
  this.timeout(60_000);
  let mine: TestDeveloper;
  let other: TestDeveloper;
  let receiver: Receiver;
  let otherReceiver: Receiver;
  const webhooks: string[] = [];

  before(async () => {
    const { db } = await getStack();
    [mine, other, receiver, otherReceiver] = await Promise.all([
      registerDeveloper(),
      registerDeveloper(),
      startReceiver(),
      startReceiver(),
    ]);
    for (const [dev, to] of [
      [mine, receiver],
      [other, otherReceiver],
    ] as const)
      webhooks.push(
        (await insertWebhook(db, dev.merchantId, `${to.origin}/hooks`, { events: ['provider.status_changed'] })).id,
      );
  });

  after(async () => {
    const { db } = await getStack();
    await db('webhooks').whereIn('id', webhooks).update({ deleted_at: new Date() });
    await Promise.all([receiver.close(), otherReceiver.close()]);
  });

  it('sets what this merchant’s sandbox sees for 10 minutes, tells its endpoint only, and lapses', async () => {
    const { db } = await getStack();
    const before = await momoRw(mine.key);
    const started = Date.now();
    const set = await call(PATH, { key: mine.key, body: DOWN });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    const data = set.body.data;
    expect(data).to.include({
      provider: 'momo',
      country: 'RW',
      operation: 'collection',
      status: 'down',
      previous_status: before.status,
      reason: 'testing our outage banner',
    });
    const lapses = Date.parse(data.expires_at) - started;
    expect(lapses).to.be.within(600_000 - 5_000, 600_000 + 5_000);

    expect(await momoRw(mine.key)).to.include({ status: 'down', reason: 'testing our outage banner' });
    expect(await momoRw(mine.token, '?environment=sandbox')).to.include({ status: 'down' });
    // Another merchant's sandbox sees the pooled status, not this merchant's.
    expect((await momoRw(other.key)).reason).to.not.equal('testing our outage banner');

    // The event went to this merchant's endpoint, never the other's.
    const [delivery] = await receiver.waitFor(1, 20_000);
    const event = JSON.parse((delivery as { body: string }).body);
    expect(event.event).to.equal('provider.status_changed');
    expect(event.data).to.include({ provider: 'momo', country: 'RW', status: 'down', reason: DOWN.reason });
    const otherEvents = await db('events').where({ merchant_id: other.merchantId, type: 'provider.status_changed' });
    expect(otherEvents).to.have.length(0);

    // Set again with the same status: the 10 minutes start again, and nothing changed, so no second event.
    expect((await call(PATH, { key: mine.key, body: DOWN })).body.data.previous_status).to.equal('down');
    expect(
      await db('events').where({ merchant_id: mine.merchantId, type: 'provider.status_changed' }).count('* as n'),
    ).to.deep.equal([{ n: 1 }]);

    // Ten minutes on (the row's end moved into the past): the pooled status shows again.
    await db('sandbox_provider_statuses')
      .where({ merchant_id: mine.merchantId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    const lapsed = await momoRw(mine.key);
    expect(lapsed.reason).to.not.equal('testing our outage banner');
    expect(lapsed.status).to.equal((await momoRw(other.key)).status);
  });

  it('is a sandbox tool: a live key gets 404 and live availability never sees a sandbox status', async () => {
    const dev = await registerDeveloper();
    const live = await insertLiveKey(dev.merchantId);
    const refused = await call(PATH, { key: live, body: DOWN });
    expect(refused.status).to.equal(404);
    expect(refused.body.error.code).to.equal('not_found');
    expect((await call(PATH, { key: dev.key, body: DOWN })).status).to.equal(200);
    const liveRows = (await call('/v1/availability', { key: live })).body.data.availability as Row[];
    expect(liveRows.every((row) => row.reason !== DOWN.reason)).to.equal(true);
    expect((await call(PATH, { body: DOWN })).status).to.equal(401);
  });

  it('refuses an unknown provider, country or operation and a bad status or reason with 400 naming it', async () => {
    const { db } = await getStack();
    const dev = await registerDeveloper();
    const cases: [string, object, string][] = [
      ['/v1/sandbox/providers/nokia/status', DOWN, 'provider'],
      [PATH, { ...DOWN, country: 'ZZ' }, 'country'],
      [PATH, { ...DOWN, country: 'rw' }, 'country'],
      [PATH, { ...DOWN, operation: 'settlement' }, 'operation'],
      [PATH, { ...DOWN, status: 'broken' }, 'status'],
      [PATH, { ...DOWN, reason: '  ' }, 'reason'],
      [PATH, { country: 'RW', operation: 'collection', status: 'down' }, 'reason'],
      [PATH, { ...DOWN, extra: 1 }, 'extra'],
    ];
    for (const [path, body, field] of cases) {
      const answer = await call(path, { key: dev.key, body });
      expect(answer.status, `${path} ${JSON.stringify(body)}`).to.equal(400);
      expect(answer.body.error.code).to.equal('validation_error');
      expect(answer.body.error.details.map((d: { field: string }) => d.field)).to.include(field);
    }
    expect(await db('sandbox_provider_statuses').where({ merchant_id: dev.merchantId })).to.have.length(0);
    const nested = await call(PATH, { key: dev.key, body: JSON.parse('{"a":'.repeat(70) + '1' + '}'.repeat(70)) });
    expect(nested.status).to.equal(400);
  });
});
