/**
 * Turns at a webhook endpoint in PostgreSQL (docs/webhooks.md#isolation), on the real database: at most
 * `limit` in flight, the rest served in the order they first asked, a freed turn named for the
 * first waiter, a lease that ran out (a killed worker's) freeing its turn, and a waiter gone silent
 * no longer holding those behind it.
 */
import { expect } from 'chai';
import { pendingDelivery } from '../../src/activities/webhook-dispatch';
import { createDb, type Db } from '../../src/db/knex';
import { releaseEndpointTurn, takeEndpointTurn, waitersForFreeTurns } from '../../src/db/webhook-turns';
import { insertDelivery } from '../../src/db/webhooks';
import { newId } from '../../src/lib/ids';
import { insertMerchant } from '../helpers/fixtures';
import { testConfig } from '../helpers/stack';
import { insertEvent, insertWebhook } from '../helpers/webhooks';

describe('turns at a webhook endpoint (docs/webhooks.md#isolation)', () => {
  let db: Db;
  let webhookId: string;
  let deliveries: string[];
  const limit = 2;
  const workflowOf = (deliveryId: string) => `wf-${deliveryId}`;
  const take = (deliveryId: string) =>
    takeEndpointTurn(db, { webhookId, deliveryId, workflowId: workflowOf(deliveryId), limit });
  const release = (deliveryId: string) => releaseEndpointTurn(db, { webhookId, deliveryId, limit });

  before(() => {
    db = createDb(testConfig().DATABASE_URL, 3);
  });

  after(async () => {
    await db.destroy();
  });

  beforeEach(async () => {
    const merchantId = await insertMerchant(db);
    const webhook = await insertWebhook(db, merchantId, 'http://127.0.0.1:9/hooks');
    webhookId = webhook.id;
    deliveries = [];
    for (let i = 0; i < 5; i += 1) {
      const event = await insertEvent(db, merchantId);
      const id = newId('dlv_');
      await insertDelivery(db, pendingDelivery(event, webhookId, { id, workflowId: workflowOf(id) }, new Date()));
      deliveries.push(id);
    }
  });

  it('gives at most `limit` turns; a freed turn goes to the first waiter, and a later one cannot jump the queue', async () => {
    const [d1, d2, d3, d4] = deliveries as [string, string, string, string];
    expect(await take(d1)).to.equal(true);
    expect(await take(d2)).to.equal(true);
    expect(await take(d3)).to.equal(false);
    expect(await take(d4)).to.equal(false);
    // Asking again keeps the place: still full.
    expect(await take(d3)).to.equal(false);

    // One turn free: the first waiter is named, and the second cannot take it before the first.
    expect(await release(d1)).to.deep.equal([workflowOf(d3)]);
    expect(await take(d4)).to.equal(false);
    expect(await take(d3)).to.equal(true);
    // A turn asked for again while held is kept (an activity tried again).
    expect(await take(d3)).to.equal(true);
    expect(await release(d2)).to.deep.equal([workflowOf(d4)]);
    expect(await take(d4)).to.equal(true);
    expect(await release(d3)).to.deep.equal([]);
    expect(await release(d4)).to.deep.equal([]);
    expect(
      await db('webhook_endpoint_turns').where({ webhook_id: webhookId }).count<{ count: number }[]>({ count: '*' }),
    ).to.deep.equal([{ count: 0 }]);
  });

  it('frees the turn of a lease that ran out (a worker killed mid-request)', async () => {
    const [d1, d2, d3] = deliveries as [string, string, string];
    expect(await take(d1)).to.equal(true);
    expect(await take(d2)).to.equal(true);
    expect(await take(d3)).to.equal(false);
    await db('webhook_endpoint_turns')
      .where({ delivery_id: d1 })
      .update({ lease_expires_at: db.raw("now() - interval '1 second'") });
    expect(await take(d3)).to.equal(true);
    expect(await db('webhook_endpoint_turns').where({ delivery_id: d1 }).first()).to.equal(undefined);
  });

  it('names the waiters ahead that may take turns freed by leases that ran out, for the delivery refused after them to wake', async () => {
    const [d1, d2, d3, d4, d5] = deliveries as [string, string, string, string, string];
    expect(await take(d1)).to.equal(true);
    expect(await take(d2)).to.equal(true);
    expect(await take(d3)).to.equal(false);
    expect(await take(d4)).to.equal(false);
    // Nothing is free: nobody to wake.
    expect(await waitersForFreeTurns(db, { webhookId, limit })).to.deep.equal([]);
    // Both requests' workers were killed: their leases run out, and no release will name d3 and d4.
    await db('webhook_endpoint_turns')
      .whereIn('delivery_id', [d1, d2])
      .update({ lease_expires_at: db.raw("now() - interval '1 second'") });
    // A newcomer is refused (two live waiters are ahead of it) and learns whom to wake: d3 and d4, in order.
    expect(await take(d5)).to.equal(false);
    expect(await waitersForFreeTurns(db, { webhookId, limit })).to.deep.equal([workflowOf(d3), workflowOf(d4)]);
    expect(await take(d3)).to.equal(true);
    expect(await waitersForFreeTurns(db, { webhookId, limit })).to.deep.equal([workflowOf(d4)]);
  });

  it('does not let a waiter that stopped asking hold back those behind it, and keeps its place when it asks again', async () => {
    const [d1, d2, d3, d4] = deliveries as [string, string, string, string];
    expect(await take(d1)).to.equal(true);
    expect(await take(d2)).to.equal(true);
    expect(await take(d3)).to.equal(false);
    expect(await take(d4)).to.equal(false);
    await db('webhook_endpoint_turns')
      .where({ delivery_id: d3 })
      .update({ seen_at: db.raw("now() - interval '10 minutes'") });
    // d3 is silent: the freed turn is d4's.
    expect(await release(d1)).to.deep.equal([workflowOf(d4)]);
    expect(await take(d4)).to.equal(true);
    // d3 asks again: first in line for the next turn, before a newcomer.
    expect(await take(d3)).to.equal(false);
    expect(await release(d2)).to.deep.equal([workflowOf(d3)]);
    expect(await take(deliveries[4] as string)).to.equal(false);
    expect(await take(d3)).to.equal(true);
  });
});
