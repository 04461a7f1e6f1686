/**
 * The self-recording delivery attempt (`deliverAndRecordWebhook`, D27) run as an activity against
 * the real PostgreSQL and a local receiver: what it sends and records, and that a failed write of
 * the record leaves the attempt sent and answered `recorded: false` (no error, so no re-send).
 */
import { expect } from 'chai';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createWebhookActivities, type RecordedAttemptResult } from '../../src/activities/webhook-activities';
import { listDeliveries } from '../../src/db/webhooks';
import { ID_PREFIXES } from '../../src/domain/ids';
import { newId } from '../../src/lib/ids';
import { insertDelivery } from '../../src/db/webhooks';
import { pendingDelivery } from '../../src/services/webhook-dispatch';
import { webhookRetryWorkflowId } from '../../src/workflows/webhook-messages';
import { insertMerchant } from '../helpers/fixtures';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { getStack } from '../helpers/stack';
import { insertEvent, insertWebhook } from '../helpers/webhooks';

describe('deliverAndRecordWebhook (an attempt that records itself, D27)', function () {
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
    await insertDelivery(db, pendingDelivery(event, webhook.id, { id, workflowId: webhookRetryWorkflowId(event.id, webhook.id, id) }, new Date()));
    return { db, webhook, deliveryId: id };
  }

  it('sends once and records the attempt with the next attempt due 5 min after the failure', async () => {
    const { db, webhook, deliveryId } = await delivery();
    const { config } = await getStack();
    const activities = createWebhookActivities({ db, config });
    const attemptedAt = new Date().toISOString();
    const result: RecordedAttemptResult = await new MockActivityEnvironment().run(activities.deliverAndRecordWebhook, { deliveryId, attempt: 1, attemptedAt });
    expect(result).to.deep.include({ kind: 'attempted', recorded: true });
    const { deliveries } = await listDeliveries(db, webhook, webhook.id, { page: 1, limit: 10 });
    expect(deliveries[0]).to.include({ status: 'pending', attempt_count: 1 });
    expect(deliveries[0]?.attempts.map((a) => [a.attempt, a.status_code])).to.deep.equal([[1, 500]]);
    const dueInMs = Date.parse(deliveries[0]?.next_attempt_at as string) - Date.parse(attemptedAt);
    expect(dueInMs).to.be.within(5 * 60_000, 5 * 60_000 + 5_000);
  });

  it('answers recorded: false when the record cannot be written, the webhook sent once and nothing thrown', async () => {
    const { db, webhook, deliveryId } = await delivery();
    const { config } = await getStack();
    const activities = createWebhookActivities({ db, config, recordAttempt: () => Promise.reject(new Error('connection terminated (simulated)')) });
    const sentBefore = receiver.requests.length;
    const result: RecordedAttemptResult = await new MockActivityEnvironment().run(activities.deliverAndRecordWebhook, { deliveryId, attempt: 1, attemptedAt: new Date().toISOString() });
    expect(result).to.deep.include({ kind: 'attempted', recorded: false });
    expect(receiver.requests.length - sentBefore).to.equal(1);
    const { deliveries } = await listDeliveries(db, webhook, webhook.id, { page: 1, limit: 10 });
    expect(deliveries[0]).to.include({ attempt_count: 0 });
  });
});
