/**
 * The self-recording delivery attempt (`deliverAndRecordWebhook`, docs/webhooks.md#retries) run as an activity against
 * the real PostgreSQL and a local receiver: what it sends and records, that a failed write of
 * the record leaves the attempt sent and answered `recorded: false` (no error, so no re-send), that
 * a store it cannot read is a retryable `WebhookAttemptNotMade` with nothing sent, the signatures of
 * both secrets during a rotation's overlap, that an endpoint gone (410) is skipped, and that a waiter
 * whose turn signal could not be sent is told again (docs/webhooks.md#isolation).
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { ApplicationFailure } from '@temporalio/activity';
import { Client, Connection } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { Webhook } from 'standardwebhooks';
import { createDb } from '../../src/db/knex';
import { createWebhookActivities } from '../../src/activities/webhook-activities';
import type { RecordedAttemptResult } from '../../src/workflows/activity-contracts';
import { toDeliveryView } from '../../src/views/webhook';
import { findWebhookById, listDeliveries, rotateWebhookSecret } from '../../src/db/webhooks';
import { SECRET_ROTATION_OVERLAP_MS } from '../../src/domain/webhooks';
import { ID_PREFIXES } from '../../src/domain/ids';
import { newId } from '../../src/lib/ids';
import { insertDelivery } from '../../src/db/webhooks';
import { takeEndpointTurn } from '../../src/db/webhook-turns';
import { pendingDelivery } from '../../src/activities/webhook-dispatch';
import { webhookRetryWorkflowId } from '../../src/workflows/webhook-messages';
import { insertMerchant } from '../helpers/fixtures';
import { startReceiver, verifyDelivery, type Receiver } from '../helpers/receiver';
import { getStack, testConfig } from '../helpers/stack';
import { insertEvent, insertWebhook } from '../helpers/webhooks';

describe('deliverAndRecordWebhook (an attempt that records itself, docs/webhooks.md#retries)', function () {
  this.timeout(30_000);
  let receiver: Receiver;

  before(async () => {
    receiver = await startReceiver(() => ({ status: 500, body: 'down' }));
  });
  after(async () => {
    await receiver.close();
  });

  /** A pending delivery of a new event to a new endpoint at the receiver. */
  async function delivery() {
    const { db } = await getStack();
    const merchantId = await insertMerchant(db);
    const webhook = await insertWebhook(db, merchantId, `${receiver.origin}/self-recording`);
    const event = await insertEvent(db, merchantId);
    const id = newId(ID_PREFIXES.delivery);
    await insertDelivery(
      db,
      pendingDelivery(
        event,
        webhook.id,
        { id, workflowId: webhookRetryWorkflowId(event.id, webhook.id, id) },
        new Date(),
      ),
    );
    return { db, webhook, deliveryId: id };
  }

  /** A port on 127.0.0.1 where nothing listens. */
  async function closedPort(): Promise<number> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  }

  it('sends once and records the attempt with the next attempt due 5 min after the failure', async () => {
    const { db, webhook, deliveryId } = await delivery();
    const { config } = await getStack();
    const activities = createWebhookActivities({ db, config });
    const attemptedAt = new Date().toISOString();
    const result: RecordedAttemptResult = await new MockActivityEnvironment().run(activities.deliverAndRecordWebhook, {
      deliveryId,
      attempt: 1,
      attemptedAt,
    });
    expect(result).to.deep.include({ kind: 'attempted', recorded: true });
    const deliveries = (await listDeliveries(db, webhook, webhook.id, { page: 1, limit: 10 })).deliveries.map(
      toDeliveryView,
    );
    expect(deliveries[0]).to.include({ status: 'pending', attempt_count: 1 });
    expect(deliveries[0]?.attempts.map((a) => [a.attempt, a.status_code])).to.deep.equal([[1, 500]]);
    const dueInMs = Date.parse(deliveries[0]?.next_attempt_at as string) - Date.parse(attemptedAt);
    expect(dueInMs).to.be.within(5 * 60_000, 5 * 60_000 + 5_000);
  });

  it('costs two statements: the read with the turn taken, and the record with the turn given back', async () => {
    const { db, deliveryId } = await delivery();
    const { config } = await getStack();
    const statements: string[] = [];
    const count = (query: { sql: string }) => statements.push(query.sql);
    db.on('query', count);
    try {
      const result: RecordedAttemptResult = await new MockActivityEnvironment().run(
        createWebhookActivities({ db, config }).deliverAndRecordWebhook,
        { deliveryId, attempt: 1, attemptedAt: new Date().toISOString() },
      );
      expect(result).to.deep.include({ kind: 'attempted', recorded: true });
    } finally {
      db.off('query', count);
    }
    expect(statements).to.have.length(2);
    expect(statements[0]).to.match(/webhook_ask_turn/);
    expect(statements[1]).to.match(/insert into "webhook_attempts"[\s\S]*webhook_give_turn/);
    expect(await db('webhook_endpoint_turns').where({ delivery_id: deliveryId })).to.deep.equal([]);
  });

  it('answers recorded: false when the record cannot be written, the webhook sent once and nothing thrown', async () => {
    const { db, webhook, deliveryId } = await delivery();
    const { config } = await getStack();
    const activities = createWebhookActivities({
      db,
      config,
      recordAttempt: () => Promise.reject(new Error('connection terminated (simulated)')),
    });
    const sentBefore = receiver.requests.length;
    const result: RecordedAttemptResult = await new MockActivityEnvironment().run(activities.deliverAndRecordWebhook, {
      deliveryId,
      attempt: 1,
      attemptedAt: new Date().toISOString(),
    });
    expect(result).to.deep.include({ kind: 'attempted', recorded: false });
    expect(receiver.requests.length - sentBefore).to.equal(1);
    const deliveries = (await listDeliveries(db, webhook, webhook.id, { page: 1, limit: 10 })).deliveries.map(
      toDeliveryView,
    );
    expect(deliveries[0]).to.include({ attempt_count: 0 });
    // The turn went back on its own when the statement that records the attempt and gives it back failed.
    expect(await db('webhook_endpoint_turns').where({ delivery_id: deliveryId })).to.deep.equal([]);
  });

  it('raises a retryable WebhookAttemptNotMade, sending nothing, when PostgreSQL cannot be reached (no attempt is used up)', async () => {
    const { deliveryId } = await delivery();
    const url = new URL(testConfig().DATABASE_URL);
    url.hostname = '127.0.0.1';
    url.port = String(await closedPort());
    const unreachable = createDb(url.toString(), 1);
    try {
      const activities = createWebhookActivities({ db: unreachable, config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: true } });
      const sentBefore = receiver.requests.length;
      let raised: unknown;
      await new MockActivityEnvironment()
        .run(activities.deliverAndRecordWebhook, { deliveryId, attempt: 1, attemptedAt: new Date().toISOString() })
        .catch((error: unknown) => (raised = error));
      expect(raised).to.be.instanceOf(ApplicationFailure);
      expect(raised).to.include({ type: 'WebhookAttemptNotMade', nonRetryable: false });
      expect((raised as Error).message).to.match(
        new RegExp(`^delivery ${deliveryId} could not be read: .*ECONNREFUSED.*; the endpoint was not called$`),
      );
      expect(receiver.requests.length).to.equal(sentBefore);
    } finally {
      await unreachable.destroy();
    }
    const { db } = await getStack();
    const [row] = await db('webhook_deliveries').where({ id: deliveryId }).select('status', 'attempt_count');
    expect(row).to.deep.equal({ status: 'pending', attempt_count: 0 });
  });

  it('signs with the new and the replaced secret during the 24 h after a rotation, and with the new one only after', async () => {
    const { db, webhook, deliveryId } = await delivery();
    const { config } = await getStack();
    const rotated = await rotateWebhookSecret(
      db,
      webhook,
      webhook.id,
      `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
      new Date(),
      SECRET_ROTATION_OVERLAP_MS,
    );
    const activities = createWebhookActivities({ db, config });
    const sentBefore = receiver.requests.length;
    await new MockActivityEnvironment().run(activities.deliverAndRecordWebhook, {
      deliveryId,
      attempt: 1,
      attemptedAt: new Date().toISOString(),
    });
    const during = receiver.requests[sentBefore]!;
    expect(String(during.headers['webhook-signature']).split(' ')).to.have.length(2);
    for (const secret of [rotated!.secret, webhook.secret])
      expect(verifyDelivery(during, secret).id).to.equal(during.headers['webhook-id']);

    // A day later (the overlap moved into the past): the replaced secret no longer signs.
    await db('webhooks')
      .where({ id: webhook.id })
      .update({ previous_secret_expires_at: new Date(Date.now() - 1_000) });
    await new MockActivityEnvironment().run(activities.deliverAndRecordWebhook, {
      deliveryId,
      attempt: 2,
      attemptedAt: new Date().toISOString(),
    });
    const after = receiver.requests[sentBefore + 1]!;
    expect(String(after.headers['webhook-signature']).split(' ')).to.have.length(1);
    verifyDelivery(after, rotated!.secret);
    expect(() => new Webhook(webhook.secret).verify(after.body, after.headers as Record<string, string>)).to.throw(
      /No matching signature/,
    );
    expect(() => verifyDelivery(after, webhook.secret)).to.throw();
  });

  it('skips an endpoint that a 410 Gone marked failed, sending nothing', async () => {
    const { db, webhook, deliveryId } = await delivery();
    const { config } = await getStack();
    await db('webhooks').where({ id: webhook.id }).update({
      status: 'failed',
      failure_kind: 'gone',
      failure_reason: 'the endpoint answered 410 Gone at 2026-11-23T10:00:00.000Z',
    });
    const sentBefore = receiver.requests.length;
    const result = await new MockActivityEnvironment().run(
      createWebhookActivities({ db, config }).deliverAndRecordWebhook,
      { deliveryId, attempt: 1, attemptedAt: new Date().toISOString() },
    );
    expect(result).to.deep.equal({ kind: 'skipped', reason: 'webhook_gone' });
    expect(receiver.requests.length).to.equal(sentBefore);
    expect(await findWebhookById(db, webhook.id)).to.include({ status: 'failed', failureKind: 'gone' });
    // No turn is held by an endpoint that gets nothing, nor a place in its queue kept.
    expect(await db('webhook_endpoint_turns').where({ delivery_id: deliveryId })).to.deep.equal([]);
  });

  it('clears the told mark of a waiter whose turn signal could not be sent, so that the next refusal tells it again', async () => {
    const { db, config } = await getStack();
    const merchantId = await insertMerchant(db);
    const webhook = await insertWebhook(db, merchantId, `${receiver.origin}/told`);
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const event = await insertEvent(db, merchantId);
      const id = newId(ID_PREFIXES.delivery);
      const workflowId = webhookRetryWorkflowId(event.id, webhook.id, id);
      await insertDelivery(db, pendingDelivery(event, webhook.id, { id, workflowId }, new Date()));
      ids.push(id);
    }
    const [holder, waiter, newcomer] = ids as [string, string, string];
    const turn = { webhookId: webhook.id, merchantId, limit: 1, merchantLimit: 20 };
    expect(await takeEndpointTurn(db, { ...turn, deliveryId: holder, workflowId: `wf-${holder}` })).to.include({
      taken: true,
    });
    expect(await takeEndpointTurn(db, { ...turn, deliveryId: waiter, workflowId: `wf-${waiter}` })).to.include({
      taken: false,
    });
    // The holder's worker died: its lease ran out, and no release tells the waiter.
    await db('webhook_endpoint_turns')
      .where({ delivery_id: holder })
      .update({ lease_expires_at: db.raw("now() - interval '1 second'") });
    // Temporal cannot be reached (no retries): the newcomer, refused, fails to tell the waiter.
    const connection = Connection.lazy({ address: `127.0.0.1:${await closedPort()}`, interceptors: [] });
    try {
      const activities = createWebhookActivities({
        db,
        config: { ...config, WEBHOOK_ENDPOINT_CONCURRENCY: 1 },
        temporal: new Client({ connection }),
      });
      const result = await new MockActivityEnvironment().run(activities.deliverAndRecordWebhook, {
        deliveryId: newcomer,
        attempt: 1,
        attemptedAt: new Date().toISOString(),
      });
      expect(result).to.deep.equal({ kind: 'waiting' });
    } finally {
      await connection.close();
    }
    const row = await db('webhook_endpoint_turns').where({ delivery_id: waiter }).first();
    expect(row?.told_at).to.equal(null);
    // So the next refusal names it again.
    expect(await takeEndpointTurn(db, { ...turn, deliveryId: newcomer, workflowId: `wf-${newcomer}` })).to.deep.equal({
      taken: false,
      tell: [`wf-${waiter}`],
    });
  });
});
