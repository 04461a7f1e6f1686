/**
 * Turns at a webhook endpoint in PostgreSQL (docs/webhooks.md#isolation), on the real database: at most
 * `limit` in flight, the rest served in the order they first asked, a freed turn named for the
 * first waiter, a lease that ran out (a killed worker's) freeing its turn, a waiter gone silent
 * no longer holding those behind it, a waiter named once until it asks again (or its told mark
 * lapses, or its signal failed); and a merchant's share: at most `merchantLimit` in flight across
 * its endpoints, a waiter behind its own full endpoint not holding back the merchant's others, and
 * another merchant never waiting for it.
 */
import { expect } from 'chai';
import { pendingDelivery } from '../../src/activities/webhook-dispatch';
import { createDb, type Db } from '../../src/db/knex';
import { releaseEndpointTurn, takeEndpointTurn, untellEndpointWaiter } from '../../src/db/webhook-turns';
import { insertDelivery } from '../../src/db/webhooks';
import { newId } from '../../src/lib/ids';
import { insertMerchant } from '../helpers/fixtures';
import { testConfig } from '../helpers/stack';
import { insertEvent, insertWebhook } from '../helpers/webhooks';

const workflowOf = (deliveryId: string) => `wf-${deliveryId}`;

/** Writes `count` pending deliveries of new events of `merchantId` to `webhookId`; resolves with their ids. */
async function deliveriesTo(db: Db, merchantId: string, webhookId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const event = await insertEvent(db, merchantId);
    const id = newId('dlv_');
    await insertDelivery(db, pendingDelivery(event, webhookId, { id, workflowId: workflowOf(id) }, new Date()));
    ids.push(id);
  }
  return ids;
}

describe('turns at a webhook endpoint (docs/webhooks.md#isolation)', () => {
  let db: Db;
  let merchantId: string;
  let webhookId: string;
  let deliveries: string[];
  const limit = 2;
  // Far above the endpoint's: these cases are about the endpoint alone.
  const merchantLimit = 100;
  const ask = (deliveryId: string) =>
    takeEndpointTurn(db, {
      webhookId,
      merchantId,
      deliveryId,
      workflowId: workflowOf(deliveryId),
      limit,
      merchantLimit,
    });
  const take = async (deliveryId: string) => (await ask(deliveryId)).taken;
  const release = (deliveryId: string) =>
    releaseEndpointTurn(db, { webhookId, merchantId, deliveryId, limit, merchantLimit });
  /** Asks for each of `ids` in order: the first `limit` take the turns, the others wait. */
  const queueUp = async (ids: string[]) => {
    for (const [i, id] of ids.entries()) expect(await take(id), id).to.equal(i < limit);
  };
  /** Sets `column` of `deliveryId`'s turn to `interval` (a PostgreSQL interval) ago. */
  const backdate = (deliveryId: string, column: 'seen_at' | 'told_at', interval: string) =>
    db('webhook_endpoint_turns')
      .where({ delivery_id: deliveryId })
      .update({ [column]: db.raw(`now() - interval '${interval}'`) });

  before(() => {
    db = createDb(testConfig().DATABASE_URL, 3);
  });

  after(async () => {
    await db.destroy();
  });

  beforeEach(async () => {
    merchantId = await insertMerchant(db);
    const webhook = await insertWebhook(db, merchantId, 'http://127.0.0.1:9/hooks');
    webhookId = webhook.id;
    deliveries = await deliveriesTo(db, merchantId, webhookId, 5);
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
    // Nothing is free: a refused delivery names nobody to wake.
    expect(await ask(d3)).to.deep.equal({ taken: false, tell: [] });
    expect(await ask(d4)).to.deep.equal({ taken: false, tell: [] });
    // Both requests' workers were killed: their leases run out, and no release will name d3 and d4.
    await db('webhook_endpoint_turns')
      .whereIn('delivery_id', [d1, d2])
      .update({ lease_expires_at: db.raw("now() - interval '1 second'") });
    // A newcomer is refused (two live waiters are ahead of it) and learns whom to wake: d3 and d4, in order.
    expect(await ask(d5)).to.deep.equal({ taken: false, tell: [workflowOf(d3), workflowOf(d4)] });
    // They were told: the next refusal names them no more.
    expect(await ask(d5)).to.deep.equal({ taken: false, tell: [] });
    expect(await ask(d3)).to.deep.equal({ taken: true, tell: [] });
  });

  it('names a waiter once until it asks again: a turn given back meanwhile names the next waiter, not it', async () => {
    const [d1, d2, d3, d4, d5] = deliveries as [string, string, string, string, string];
    await queueUp(deliveries);
    expect(await release(d1)).to.deep.equal([workflowOf(d3)]);
    // d3 has not asked yet; d2 comes back: two turns free, d3 still told, so only d4 is named.
    expect(await release(d2)).to.deep.equal([workflowOf(d4)]);
    // A refusal meanwhile names nobody: both that may go were told.
    expect(await ask(d5)).to.deep.equal({ taken: false, tell: [] });
    expect(await take(d3)).to.equal(true);
    expect(await take(d4)).to.equal(true);
    expect(await release(d3)).to.deep.equal([workflowOf(d5)]);
  });

  it('names a told waiter again once it was refused, once its told mark lapsed (a lost signal), or once its signal failed', async () => {
    const [d1, d2, d3, d4, d5] = deliveries as [string, string, string, string, string];
    await queueUp(deliveries);
    // d3 went silent: the freed turn is d4's, and d4 is told.
    await backdate(d3, 'seen_at', '10 minutes');
    expect(await release(d1)).to.deep.equal([workflowOf(d4)]);
    // d3 asks again before d4: back in its place ahead of d4, it takes the turn; d4 is refused, its mark cleared.
    expect(await take(d3)).to.equal(true);
    expect(await take(d4)).to.equal(false);
    expect(await release(d2)).to.deep.equal([workflowOf(d4)]);
    // d4's signal was lost: after ENDPOINT_TOLD_MS without asking, the next refusal names it again.
    await backdate(d4, 'told_at', '31 seconds');
    expect(await ask(d5)).to.deep.equal({ taken: false, tell: [workflowOf(d4)] });
    expect(await ask(d5)).to.deep.equal({ taken: false, tell: [] });
    // Its signal failed: its mark is cleared, and the next refusal names it again.
    await untellEndpointWaiter(db, workflowOf(d4));
    expect(await ask(d5)).to.deep.equal({ taken: false, tell: [workflowOf(d4)] });
    expect(await take(d4)).to.equal(true);
  });

  it('does not let a waiter that stopped asking hold back those behind it, and keeps its place when it asks again', async () => {
    const [d1, d2, d3, d4] = deliveries as [string, string, string, string];
    await queueUp([d1, d2, d3, d4]);
    await backdate(d3, 'seen_at', '10 minutes');
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

describe("a merchant's share of the turns (docs/webhooks.md#isolation)", () => {
  let db: Db;
  const limit = 2;
  const merchantLimit = 3;

  before(() => {
    db = createDb(testConfig().DATABASE_URL, 3);
  });

  after(async () => {
    await db.destroy();
  });

  /** A merchant with `endpoints` webhooks, `perEndpoint` deliveries to each; take and release for it. */
  async function merchantWith(endpoints: number, perEndpoint: number) {
    const merchantId = await insertMerchant(db);
    const byEndpoint: { webhookId: string; deliveries: string[] }[] = [];
    for (let i = 0; i < endpoints; i += 1) {
      const webhook = await insertWebhook(db, merchantId, `http://127.0.0.1:9/hooks-${i}`);
      byEndpoint.push({
        webhookId: webhook.id,
        deliveries: await deliveriesTo(db, merchantId, webhook.id, perEndpoint),
      });
    }
    const webhookOf = (deliveryId: string) =>
      (byEndpoint.find((endpoint) => endpoint.deliveries.includes(deliveryId)) as { webhookId: string }).webhookId;
    return {
      merchantId,
      byEndpoint,
      take: (deliveryId: string) =>
        takeEndpointTurn(db, {
          webhookId: webhookOf(deliveryId),
          merchantId,
          deliveryId,
          workflowId: workflowOf(deliveryId),
          limit,
          merchantLimit,
        }).then((answer) => answer.taken),
      release: (deliveryId: string) =>
        releaseEndpointTurn(db, { webhookId: webhookOf(deliveryId), merchantId, deliveryId, limit, merchantLimit }),
    };
  }

  it("gives at most `merchantLimit` turns across the merchant's endpoints, and a freed one to the merchant's first waiter", async () => {
    const merchant = await merchantWith(3, 2);
    const [[a1, a2], [b1, b2], [c1]] = merchant.byEndpoint.map((endpoint) => endpoint.deliveries) as [
      [string, string],
      [string, string],
      [string],
    ];
    expect(await merchant.take(a1)).to.equal(true);
    expect(await merchant.take(a2)).to.equal(true);
    expect(await merchant.take(b1)).to.equal(true);
    // Three in flight: the merchant's share is taken, though both endpoints have turns free.
    expect(await merchant.take(b2)).to.equal(false);
    expect(await merchant.take(c1)).to.equal(false);
    // One comes back: the merchant's first waiter is named, and the one behind it cannot jump ahead.
    expect(await merchant.release(a1)).to.deep.equal([workflowOf(b2)]);
    expect(await merchant.take(c1)).to.equal(false);
    expect(await merchant.take(b2)).to.equal(true);
    expect(await merchant.release(b1)).to.deep.equal([workflowOf(c1)]);
    expect(await merchant.take(c1)).to.equal(true);
  });

  it("does not let a waiter behind its own full endpoint hold back the merchant's other endpoints", async () => {
    const merchant = await merchantWith(2, 3);
    const [[a1, a2, a3], [b1, b2]] = merchant.byEndpoint.map((endpoint) => endpoint.deliveries) as [
      [string, string, string],
      [string, string],
    ];
    expect(await merchant.take(a1)).to.equal(true);
    expect(await merchant.take(a2)).to.equal(true);
    // a3 waits for its endpoint (2 in flight there), not for the merchant (2 of 3).
    expect(await merchant.take(a3)).to.equal(false);
    // b1 asked after a3, but a3 could not take the merchant's free turn: b1 takes it.
    expect(await merchant.take(b1)).to.equal(true);
    expect(await merchant.take(b2)).to.equal(false);
    // a1 comes back: a3 may go now (its endpoint and the merchant each have one turn), b2 still waits.
    expect(await merchant.release(a1)).to.deep.equal([workflowOf(a3)]);
    expect(await merchant.take(b2)).to.equal(false);
    expect(await merchant.take(a3)).to.equal(true);
  });

  it('never keeps another merchant waiting for a merchant whose share is taken', async () => {
    const noisy = await merchantWith(2, 3);
    for (const endpoint of noisy.byEndpoint) for (const id of endpoint.deliveries) await noisy.take(id);
    const quiet = await merchantWith(1, 2);
    const [q1, q2] = quiet.byEndpoint[0]?.deliveries as [string, string];
    expect(await quiet.take(q1)).to.equal(true);
    expect(await quiet.take(q2)).to.equal(true);
    expect(
      await db('webhook_endpoint_turns')
        .where({ merchant_id: noisy.merchantId })
        .whereNotNull('lease_expires_at')
        .count<{ count: number }[]>({ count: '*' }),
    ).to.deep.equal([{ count: merchantLimit }]);
  });
});
