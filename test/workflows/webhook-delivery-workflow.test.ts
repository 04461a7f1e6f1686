/**
 * webhookDeliveryWorkflow on the time-skipping test server with the real activities, a
 * real PostgreSQL and a real HTTP receiver on 127.0.0.1: the five attempts (docs/webhooks.md#retries) at 0, 5 min,
 * 35 min, 2 h 35 min and 26 h 35 min (plus the failed attempts' own durations), the statuses of
 * delivery and endpoint with the failure's reason, 410 Gone, Retry-After, starting deliveries at
 * most once (docs/payments.md#workflow, docs/payments.md#events), and a PostgreSQL outage that uses up no attempt
 * (docs/webhooks.md).
 * With RECORD_HISTORIES=1 it refreshes the replay histories in test/replay/histories/.
 */
import { expect } from 'chai';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { temporal } from '@temporalio/proto';
import { ApplicationFailure } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { createWebhookActivities } from '../../src/activities/webhook-activities';
import { createDb, type Db } from '../../src/db/knex';
import type { EventInput } from '../../src/db/payments';
import { toDeliveryView } from '../../src/views/webhook';
import { findWebhookById, listDeliveries } from '../../src/db/webhooks';
import type { WebhookRecord } from '../../src/domain/webhooks';
import { startWebhookDeliveries } from '../../src/activities/webhook-dispatch';
import { FAILURE_TYPES } from '../../src/workflows/activity-contracts';
import { webhookDeliveryWorkflowId, type WebhookDeliveryResult } from '../../src/workflows/webhook-messages';
import { insertMerchant } from '../helpers/fixtures';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { patchesIn, keepHistory } from '../helpers/history';
import { testConfig, useTimeSkippingWorker, workflowBundle } from '../helpers/stack';
import { startTcpProxy } from '../helpers/tcp-proxy';
import { insertEvent, insertWebhook } from '../helpers/webhooks';

const TASK_QUEUE = 'webhook-delivery-test';
const MIN = 60_000;
const HOUR = 60 * MIN;

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

function millis(time: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  return Number(time?.seconds ?? 0) * 1000 + Math.round(Number(time?.nanos ?? 0) / 1e6);
}

function timerDurationsMs(events: HistoryEvent[]): number[] {
  return events.flatMap((e) =>
    e.timerStartedEventAttributes ? [millis(e.timerStartedEventAttributes.startToFireTimeout)] : [],
  );
}

/** Server-clock times (ms) of the history events matching `pick`. */
function timesOf(events: HistoryEvent[], pick: (e: HistoryEvent) => boolean): number[] {
  return events.filter(pick).map((e) => millis(e.eventTime));
}

describe('webhookDeliveryWorkflow (time-skipping, docs/webhooks.md#retries)', function () {
  this.timeout(120_000);
  const fixture = useTimeSkippingWorker(TASK_QUEUE);
  let env: TestWorkflowEnvironment;
  let db: Db;
  let merchantId: string;
  let receiver: Receiver;

  before(async () => {
    ({ env, db } = fixture);
    receiver = await startReceiver();
  });

  after(async () => {
    await receiver?.close();
  });

  beforeEach(async () => {
    merchantId = await insertMerchant(db);
    receiver.requests.length = 0;
    receiver.respond(() => ({ status: 204 }));
  });

  const dispatch = (event: EventInput) =>
    startWebhookDeliveries({ db, temporal: env.client, taskQueue: TASK_QUEUE }, event);

  function handleOf(event: EventInput, webhook: WebhookRecord) {
    return env.client.workflow.getHandle(webhookDeliveryWorkflowId(event.id, webhook.id));
  }

  const record = keepHistory;

  async function onlyDelivery(webhook: WebhookRecord) {
    const deliveries = (await listDeliveries(db, webhook, webhook.id, { page: 1, limit: 10 })).deliveries.map(
      toDeliveryView,
    );
    expect(deliveries).to.have.length(1);
    return deliveries[0]!;
  }

  it('makes five attempts at 0, 5 min, 35 min, 2 h 35 min and 26 h 35 min, then fails delivery and endpoint and sends nothing more', async () => {
    receiver.respond(() => ({ status: 500, body: 'down for maintenance' }));
    const webhook = await insertWebhook(db, merchantId, `${receiver.origin}/always-fails`);
    const event = await insertEvent(db, merchantId);
    expect(await dispatch(event)).to.have.length(1);
    const handle = handleOf(event, webhook);
    const result = (await handle.result()) as WebhookDeliveryResult;
    expect(result).to.deep.include({ status: 'failed', attempts: 5 });

    // Workflow timers, not activity retries, make the schedule: exactly these four waits.
    const history = (await handle.fetchHistory()).events ?? [];
    expect(timerDurationsMs(history)).to.deep.equal([5 * MIN, 30 * MIN, 2 * HOUR, 24 * HOUR]);
    const isAttempt = (e: HistoryEvent) =>
      e.activityTaskScheduledEventAttributes?.activityType?.name === 'deliverAndRecordWebhook';
    expect(history.filter(isAttempt)).to.have.length(5);
    // Each attempt recorded itself: no local activity markers (the workflow's own records).
    expect(history.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).to.have.length(
      0,
    );
    expect(
      history
        .filter((e) => e.activityTaskStartedEventAttributes)
        .map((e) => e.activityTaskStartedEventAttributes?.attempt),
    ).to.satisfy((tries: number[]) => tries.every((t) => t === 1));

    // Attempt times in the test server's clock: the schedule's offsets plus the earlier attempts' own
    // durations (from an attempt's start to the failure that starts the next wait). What is left is
    // the server's own handling of each timer and workflow task: milliseconds.
    const started = timesOf(history, isAttempt);
    const failedAt = timesOf(history, (e) => Boolean(e.timerStartedEventAttributes));
    const offsets = [0, 5 * MIN, 35 * MIN, 2 * HOUR + 35 * MIN, 26 * HOUR + 35 * MIN];
    let ownDurations = 0;
    for (let k = 1; k < 5; k += 1) {
      ownDurations += failedAt[k - 1]! - started[k - 1]!;
      const overheadMs = started[k]! - started[0]! - offsets[k]! - ownDurations;
      expect(overheadMs, `attempt ${k + 1} at ${started[k]! - started[0]!} ms`).to.be.within(0, 250 * k);
    }

    // The log records each attempt at those times (workflow time), with status, excerpt and duration.
    const delivery = await onlyDelivery(webhook);
    expect(delivery).to.include({
      status: 'failed',
      attempt_count: 5,
      next_attempt_at: null,
      event_id: event.id,
      event: 'payment.completed',
    });
    const recorded = delivery.attempts.map(
      (a) => Date.parse(a.attempted_at) - Date.parse(delivery.attempts[0]!.attempted_at),
    );
    recorded.forEach((offset, k) =>
      expect(offset - offsets[k]!, `recorded attempt ${k + 1}`).to.be.within(0, 1_000 * (k + 1)),
    );
    expect(delivery.attempts.map((a) => [a.attempt, a.status_code, a.response_body, a.error])).to.deep.equal(
      [1, 2, 3, 4, 5].map((n) => [n, 500, 'down for maintenance', null]),
    );
    const endpoint = await findWebhookById(db, webhook.id);
    expect(endpoint).to.include({ status: 'failed', failureKind: 'exhausted' });
    expect(endpoint?.failureReason).to.equal(
      `all 5 attempts of delivery ${delivery.id} failed; the last, at ${delivery.attempts[4]!.attempted_at}, got HTTP 500`,
    );

    // Five requests, all with the same event id; two more days bring nothing.
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).to.deep.equal(Array(5).fill(event.id));
    await env.sleep('2 days');
    expect(receiver.requests).to.have.length(5);
    await record('webhook-delivery-failed', handle);
  });

  it('succeeds at attempt 3 and sets a failed endpoint back to enabled', async () => {
    receiver.respond((_request, index) => (index < 2 ? { status: 503 } : { status: 204 }));
    const webhook = await insertWebhook(db, merchantId, `${receiver.origin}/recovers`, { status: 'failed' });
    const event = await insertEvent(db, merchantId);
    await dispatch(event);
    const handle = handleOf(event, webhook);
    expect(await handle.result()).to.deep.include({ status: 'succeeded', attempts: 3 });
    const history = (await handle.fetchHistory()).events ?? [];
    expect(timerDurationsMs(history)).to.deep.equal([5 * MIN, 30 * MIN]);
    // One code path until the first release: no patch markers, no TemporalChangeVersion upserts.
    expect(patchesIn(history)).to.deep.equal({ ids: [], changeVersionUpserts: 0 });
    const delivery = await onlyDelivery(webhook);
    expect(delivery.status).to.equal('succeeded');
    expect(delivery.attempts.map((a) => a.status_code)).to.deep.equal([503, 503, 204]);
    expect(await findWebhookById(db, webhook.id)).to.include({
      status: 'enabled',
      failureKind: null,
      failureReason: null,
    });
    await record('webhook-delivery-succeeded', handle);
  });

  it('stops at a 410 Gone, marks the endpoint failed with the reason (not disabled), and cancels the endpoint’s other delivery at its next attempt', async () => {
    const webhook = await insertWebhook(db, merchantId, `${receiver.origin}/gone`);
    const first = await insertEvent(db, merchantId);
    const second = await insertEvent(db, merchantId);
    receiver.respond((request) =>
      request.headers['webhook-id'] === first.id ? { status: 500 } : { status: 410, body: 'unsubscribed' },
    );
    await dispatch(first);
    await receiver.waitFor(1);
    await dispatch(second);
    const gone = handleOf(second, webhook);
    expect(await gone.result()).to.deep.include({ status: 'failed', attempts: 1 });
    const endpoint = await findWebhookById(db, webhook.id);
    expect(endpoint).to.include({ status: 'failed', failureKind: 'gone' });

    const waiting = handleOf(first, webhook);
    expect(await waiting.result()).to.deep.include({ status: 'cancelled', attempts: 1 });
    expect(receiver.requests).to.have.length(2);
    const deliveries = (await listDeliveries(db, webhook, webhook.id, { page: 1, limit: 10 })).deliveries.map(
      toDeliveryView,
    );
    const byEvent = Object.fromEntries(deliveries.map((d) => [d.event_id, d]));
    expect(byEvent[second.id]).to.deep.include({ status: 'failed', attempt_count: 1 });
    expect(byEvent[second.id]!.attempts[0]).to.include({ status_code: 410, response_body: 'unsubscribed' });
    expect(endpoint?.failureReason).to.equal(
      `the endpoint answered 410 Gone at ${byEvent[second.id]!.attempts[0]!.attempted_at}`,
    );
    expect(byEvent[first.id]).to.deep.include({ status: 'cancelled', attempt_count: 1, next_attempt_at: null });

    // An endpoint gone (410) gets nothing, unlike one failed by exhaustion: no delivery is even started.
    expect(await dispatch(await insertEvent(db, merchantId))).to.deep.equal([]);
    await record('webhook-delivery-gone', gone);
    await record('webhook-delivery-cancelled', waiting);
  });

  it('waits a longer Retry-After of a 503 or 429 (capped at 24 h) and keeps the schedule when it is shorter', async () => {
    const answers = [
      { status: 503, headers: { 'retry-after': '3600' } }, // 1 h > 5 min: honoured
      { status: 429, headers: { 'retry-after': '60' } }, // 1 min < 30 min: the schedule
      { status: 429, headers: { 'retry-after': String(3 * 24 * 3600) } }, // 3 days: capped at 24 h
      { status: 204 },
    ];
    receiver.respond((_request, index) => answers[index] ?? { status: 204 });
    const webhook = await insertWebhook(db, merchantId, `${receiver.origin}/busy`);
    const event = await insertEvent(db, merchantId);
    await dispatch(event);
    const handle = handleOf(event, webhook);
    expect(await handle.result()).to.deep.include({ status: 'succeeded', attempts: 4 });
    expect(timerDurationsMs((await handle.fetchHistory()).events ?? [])).to.deep.equal([HOUR, 30 * MIN, 24 * HOUR]);
    expect((await onlyDelivery(webhook)).attempts.map((a) => a.status_code)).to.deep.equal([503, 429, 429, 204]);
  });

  it('starts one delivery per subscribed enabled-or-failed endpoint, and never twice for one event (docs/payments.md#events)', async () => {
    const enabled = await insertWebhook(db, merchantId, `${receiver.origin}/a`);
    const failed = await insertWebhook(db, merchantId, `${receiver.origin}/b`, { status: 'failed' });
    await insertWebhook(db, merchantId, `${receiver.origin}/c`, { status: 'disabled' });
    await insertWebhook(db, merchantId, `${receiver.origin}/d`, { events: ['payment.failed'] });
    const other = await insertMerchant(db);
    await insertWebhook(db, other, `${receiver.origin}/e`);
    const event = await insertEvent(db, merchantId);
    const ids = await dispatch(event);
    expect(ids).to.have.length(2);
    for (const webhook of [enabled, failed])
      expect(await handleOf(event, webhook).result()).to.deep.include({ status: 'succeeded' });
    expect(receiver.requests.map((r) => r.path).sort()).to.deep.equal(['/a', '/b']);

    // A retried activity starts the same deliveries again: same ids, nothing sent twice.
    expect((await dispatch(event)).sort()).to.deep.equal([...ids].sort());
    await env.sleep('1 minute');
    expect(receiver.requests).to.have.length(2);
    expect((await listDeliveries(db, enabled, enabled.id, { page: 1, limit: 10 })).total).to.equal(1);
  });
  it('uses up no attempt while PostgreSQL cannot be reached: the same attempt is tried again, and all five remain', async () => {
    // The delivery's activities reach PostgreSQL through a proxy that the test takes down.
    const proxy = await startTcpProxy(testConfig().DATABASE_URL);
    const proxiedDb = createDb(proxy.url, 2);
    const queue = `${TASK_QUEUE}-outage`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: queue,
      workflowBundle: await workflowBundle(),
      activities: createWebhookActivities({ db: proxiedDb, config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: true } }),
    });
    const running = worker.run();
    try {
      receiver.respond(() => ({ status: 500 }));
      const webhook = await insertWebhook(db, merchantId, `${receiver.origin}/outage`);
      const event = await insertEvent(db, merchantId);
      proxy.down();
      await startWebhookDeliveries({ db, temporal: env.client, taskQueue: queue }, event);
      const handle = handleOf(event, webhook);

      // Until the workflow waits to try again, without having called the endpoint or recorded anything.
      const isAttempt = (e: HistoryEvent) =>
        e.activityTaskScheduledEventAttributes?.activityType?.name === 'deliverAndRecordWebhook';
      let history: HistoryEvent[] = [];
      for (let round = 0; round < 120 && timerDurationsMs(history).length === 0; round += 1) {
        await env.sleep('5 seconds');
        history = (await handle.fetchHistory()).events ?? [];
      }
      expect(timerDurationsMs(history)).to.deep.equal([30_000]);
      const failure = history.find((e) => e.activityTaskFailedEventAttributes)?.activityTaskFailedEventAttributes
        ?.failure;
      expect(failure?.applicationFailureInfo?.type).to.equal('WebhookAttemptNotMade');
      expect(failure?.message).to.match(/could not be read: .*; the endpoint was not called$/);
      expect(proxy.refused()).to.be.at.least(1);
      expect(receiver.requests).to.have.length(0);
      expect(await onlyDelivery(webhook)).to.include({ status: 'pending', attempt_count: 0 });

      // PostgreSQL is back: five real attempts follow, numbered 1 to 5, on the usual schedule.
      proxy.up();
      expect(await handle.result()).to.deep.include({ status: 'failed', attempts: 5 });
      history = (await handle.fetchHistory()).events ?? [];
      expect(timerDurationsMs(history)).to.deep.equal([30_000, 5 * MIN, 30 * MIN, 2 * HOUR, 24 * HOUR]);
      expect(history.filter(isAttempt)).to.have.length(6);
      expect(receiver.requests).to.have.length(5);
      const delivery = await onlyDelivery(webhook);
      expect(delivery).to.include({ status: 'failed', attempt_count: 5 });
      expect(delivery.attempts.map((a) => [a.attempt, a.status_code])).to.deep.equal(
        [1, 2, 3, 4, 5].map((n) => [n, 500]),
      );
      await record('webhook-delivery-not-made', handle);
    } finally {
      worker.shutdown();
      await running;
      await proxiedDb.destroy();
      await proxy.close();
    }
  });

  it('tries a refused write of the delivery log again after a wait instead of failing the delivery (a local activity fails unwrapped)', async () => {
    // The cancellation's record is refused once, non-retryably: its local activity fails at once.
    const queue = `${TASK_QUEUE}-refused-record`;
    const real = createWebhookActivities({ db, config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: true } });
    let refusals = 0;
    // The delivery is started while no worker runs, and its endpoint is then marked gone (a 410 elsewhere): its attempt
    // is skipped.
    const webhook = await insertWebhook(db, merchantId, `${receiver.origin}/gone`);
    const event = await insertEvent(db, merchantId);
    await startWebhookDeliveries({ db, temporal: env.client, taskQueue: queue }, event);
    await db('webhooks')
      .where({ id: webhook.id })
      .update({ status: 'failed', failure_kind: 'gone', failure_reason: 'the endpoint answered 410 Gone' });
    const handle = handleOf(event, webhook);
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: queue,
      workflowBundle: await workflowBundle(),
      activities: {
        ...real,
        async recordWebhookDeliveryCancelled(input: Parameters<typeof real.recordWebhookDeliveryCancelled>[0]) {
          if (refusals === 0) {
            refusals += 1;
            throw ApplicationFailure.create({
              type: FAILURE_TYPES.dataError,
              message: 'recordWebhookDeliveryCancelled: refused once by the test',
              nonRetryable: true,
            });
          }
          return real.recordWebhookDeliveryCancelled(input);
        },
      },
    });
    const running = worker.run();
    try {
      expect(await handle.result()).to.deep.include({ status: 'cancelled', attempts: 0 });
      expect(refusals).to.equal(1);
      expect(timerDurationsMs((await handle.fetchHistory()).events ?? [])).to.deep.equal([30_000]);
      expect(await onlyDelivery(webhook)).to.include({ status: 'cancelled', attempt_count: 0 });
      expect(receiver.requests).to.have.length(0);
    } finally {
      worker.shutdown();
      await running;
    }
  });
});
