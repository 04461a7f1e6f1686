/**
 * `provider.status_changed` on the real stack (docs/availability.md#events): a measurement or an operator's override
 * that changes the status shown writes one event per merchant of the environment subscribed to it, delivered once to
 * its endpoint by the real delivery workflow; a merchant not subscribed gets no event, and a retried measurement of the
 * same moment delivers nothing twice.
 */
import { expect } from 'chai';
import { createProviderHealthActivities } from '../../src/activities/provider-health-activities';
import { runAdmin } from '../../src/cli/admin';
import type { Db } from '../../src/db/knex';
import { recordProviderOutcome } from '../../src/db/provider-health';
import type { HealthKey } from '../../src/domain/provider-health';
import { newId } from '../../src/lib/ids';
import { insertMerchant } from '../helpers/fixtures';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { getStack, type Stack } from '../helpers/stack';
import { insertWebhook } from '../helpers/webhooks';

const MOMO_RW: HealthKey = { provider: 'momo', country: 'RW', operation: 'collection' };
/** A moment of this file's own, far from the other health tests' moments. */
const T0 = Date.parse('2040-06-01T00:00:00Z');

/** Records `count` provider failures of `key` in the sandbox, one a second up to `at`. */
async function providerFailures(db: Db, key: HealthKey, at: number, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1)
    await recordProviderOutcome(db, {
      ...key,
      environment: 'sandbox',
      merchantId: 'mer_health_events',
      objectId: newId('pay_'),
      attempt: { decidedAt: at - i * 1000, seconds: 5, outcome: 'failure', side: 'provider', neverReached: false },
    });
}

async function statusChangedEventsOf(db: Db, merchantId: string) {
  return (await db('events')
    .where({ merchant_id: merchantId, type: 'provider.status_changed' })
    .orderBy('created_at')
    .select('id', 'data')) as { id: string; data: Record<string, unknown> }[];
}

describe('provider.status_changed (docs/availability.md#events)', function () {
  this.timeout(60_000);
  let stack: Stack;
  let subscribed: Receiver;
  let other: Receiver;
  let subscriber: string;
  let bystander: string;
  const webhooks: string[] = [];

  before(async () => {
    stack = await getStack();
    await stack.db('provider_health').del();
    await stack.db('provider_status_changes').del();
    [subscribed, other] = await Promise.all([startReceiver(), startReceiver()]);
    subscriber = await insertMerchant(stack.db);
    bystander = await insertMerchant(stack.db);
    webhooks.push(
      (await insertWebhook(stack.db, subscriber, `${subscribed.origin}/hooks`, { events: ['provider.status_changed'] }))
        .id,
      (await insertWebhook(stack.db, bystander, `${other.origin}/hooks`, { events: ['payment.completed'] })).id,
    );
  });

  after(async () => {
    // No later test's change may find these endpoints.
    await stack.db('webhooks').whereIn('id', webhooks).update({ deleted_at: new Date() });
    await stack.db('provider_health').del();
    await stack.db('provider_status_changes').del();
    await Promise.all([subscribed.close(), other.close()]);
  });

  it('delivers a measured change once to the subscribed endpoint, and nothing to an unsubscribed one', async () => {
    const activities = createProviderHealthActivities({
      db: stack.db,
      temporal: stack.client,
      config: stack.config,
    });
    // The first measurement stores `operational` without a change.
    expect(await activities.measureProviderHealth({ environment: 'sandbox', now: T0 })).to.deep.equal([]);
    const at = T0 + 60_000;
    await providerFailures(stack.db, MOMO_RW, at, 30);
    const changes = await activities.measureProviderHealth({ environment: 'sandbox', now: at });
    expect(changes).to.deep.equal([{ ...MOMO_RW, from: 'operational', to: 'down' }]);

    const [delivery] = await subscribed.waitFor(1, 30_000);
    const body = JSON.parse(delivery?.body ?? '{}') as { id: string; event: string; data: Record<string, unknown> };
    expect(body.event).to.equal('provider.status_changed');
    expect(body.data).to.deep.equal({
      ...MOMO_RW,
      status: 'down',
      previous_status: 'operational',
      since: new Date(at).toISOString(),
      reason: '100 % provider failures in the last 30 attempts, p95 5 s',
      success_rate: 0,
      window_attempts: 30,
    });

    // A retry of the same moment (the workflow passes its own) writes and starts nothing new.
    expect(await activities.measureProviderHealth({ environment: 'sandbox', now: at })).to.deep.equal([]);
    const events = await statusChangedEventsOf(stack.db, subscriber);
    expect(events.map((event) => event.id)).to.deep.equal([body.id]);
    expect(await stack.db('webhook_deliveries').where({ event_id: body.id })).to.have.length(1);
    expect(await statusChangedEventsOf(stack.db, bystander)).to.deep.equal([]);
    expect(await stack.db('webhook_deliveries').where({ webhook_id: webhooks[1] })).to.deep.equal([]);
    expect(other.requests).to.deep.equal([]);
  });

  it("delivers an operator's override and its clearing, with the operator's reason", async () => {
    const key = ['momo', 'RW', 'collection', '--environment', 'sandbox'];
    const io = { out: () => undefined, err: () => undefined };
    const before = subscribed.requests.length;
    expect(
      await runAdmin(['provider', 'set-status', ...key, '--status', 'degraded', '--reason', 'MTN upgrade'], io),
    ).to.equal(0);
    expect(await runAdmin(['provider', 'clear-status', ...key], io)).to.equal(0);
    const received = (await subscribed.waitFor(before + 2, 30_000)).slice(before);
    const data = received
      .map((request) => (JSON.parse(request.body) as { data: Record<string, unknown> }).data)
      .sort((a, b) => String(a.since).localeCompare(String(b.since)) || (a.status === 'degraded' ? -1 : 1));
    expect(data.map((d) => [d.previous_status, d.status, d.reason])).to.deep.equal([
      ['down', 'degraded', 'MTN upgrade'],
      ['degraded', 'down', 'override cleared'],
    ]);
    expect(await statusChangedEventsOf(stack.db, bystander)).to.deep.equal([]);
    expect(other.requests).to.deep.equal([]);
  });
});
