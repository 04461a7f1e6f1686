/**
 * paymentWorkflow on the time-skipping test server (runtime.md) with the real activities, the
 * sandbox simulator and a real PostgreSQL: the outcomes of the D14 test numbers, the poll schedule
 * of D20, the 10-minute expiry of D11 and events written once (D22).
 * With RECORD_HISTORIES=1 it refreshes the replay histories in test/replay/histories/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { temporal } from '@temporalio/proto';
import type { Db } from '../../src/db/knex';
import { listEventsForObject, findPayment } from '../../src/db/payments';
import type { PaymentSnapshot } from '../../src/domain/payment-record';
import { HISTORY_EVENTS_BEFORE_CONTINUE } from '../../src/workflows/payment-workflow';
import { cancelPaymentUpdate, getPaymentQuery, paymentWorkflowId, providerCallbackSignal, refundPaymentUpdate } from '../../src/workflows/messages';
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { decideSandboxTransaction, findSandboxTransactionByPayment } from '../../src/db/sandbox-ledger';
import { newId } from '../../src/lib/ids';
import { cardPayment, insertMerchant, mobileMoneyPayment } from '../helpers/fixtures';
import { patchesIn } from '../helpers/history';
import { useTimeSkippingWorker } from '../helpers/stack';

const TASK_QUEUE = 'payment-workflow-test';
const HISTORIES_DIR = path.resolve(__dirname, '../replay/histories');

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The activities a history ran, in order: activity tasks and local activities (their markers) alike. */
function activityNames(events: HistoryEvent[]): string[] {
  return events.flatMap((e) => {
    if (e.activityTaskScheduledEventAttributes) return [String(e.activityTaskScheduledEventAttributes.activityType?.name)];
    const marker = e.markerRecordedEventAttributes;
    const data = marker?.markerName === 'core_local_activity' ? marker.details?.data?.payloads?.[0]?.data : undefined;
    return data ? [String((JSON.parse(Buffer.from(data).toString('utf8')) as { activity_type: string }).activity_type)] : [];
  });
}

/** The attempt (from 1) at which each `pollProviderPayment` activity ended, and the retry policy it was scheduled with. */
function pollActivities(events: HistoryEvent[]): { attempt: number; retry: temporal.api.common.v1.IRetryPolicy | null | undefined }[] {
  const scheduled = new Map<string, temporal.api.common.v1.IRetryPolicy | null | undefined>();
  const polls: { attempt: number; retry: temporal.api.common.v1.IRetryPolicy | null | undefined }[] = [];
  for (const e of events) {
    const attributes = e.activityTaskScheduledEventAttributes;
    if (attributes?.activityType?.name === 'pollProviderPayment') scheduled.set(String(e.eventId), attributes.retryPolicy);
    const started = e.activityTaskStartedEventAttributes;
    if (started && scheduled.has(String(started.scheduledEventId))) polls.push({ attempt: Number(started.attempt), retry: scheduled.get(String(started.scheduledEventId)) });
  }
  return polls;
}

function durationMs(duration: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  return Number(duration?.seconds ?? 0) * 1000 + Math.round(Number(duration?.nanos ?? 0) / 1e6);
}

function timerDurationsMs(events: HistoryEvent[]): number[] {
  return events.flatMap((e) => {
    const timeout = e.timerStartedEventAttributes?.startToFireTimeout;
    return timeout ? [durationMs(timeout)] : [];
  });
}

describe('paymentWorkflow (time-skipping, D11, D14, D20, D22)', function () {
  this.timeout(120_000);
  // Approval delay 0 in the worker: the simulator's clock is the wall clock, which time skipping does not move.
  const fixture = useTimeSkippingWorker(TASK_QUEUE);
  let env: TestWorkflowEnvironment;
  let db: Db;
  let merchantId: string;

  before(async () => {
    ({ env, db } = fixture);
    merchantId = await insertMerchant(db);
  });

  /** A payment created now by the test server's clock, which time skipping moves ahead of the wall clock. */
  async function payment(phone: string, environment: 'sandbox' | 'live' = 'sandbox'): Promise<PaymentSnapshot> {
    return mobileMoneyPayment(merchantId, phone, { environment, nowMs: await env.currentTimeMs() });
  }

  async function start(payment: PaymentSnapshot) {
    return env.client.workflow.start('paymentWorkflow', {
      taskQueue: TASK_QUEUE,
      workflowId: paymentWorkflowId(payment.id),
      args: [{ payment, refundWindowSeconds: 3600 }],
    });
  }

  async function record(name: string, handle: { fetchHistory(): Promise<temporal.api.history.v1.IHistory> }) {
    if (process.env.RECORD_HISTORIES !== '1') return;
    fs.mkdirSync(HISTORIES_DIR, { recursive: true });
    fs.writeFileSync(path.join(HISTORIES_DIR, `${name}.json`), historyToJSON(await handle.fetchHistory() as never));
  }

  async function eventTypes(paymentId: string): Promise<string[]> {
    return (await listEventsForObject(db, paymentId)).map((event) => event.event);
  }

  it('completes a payment to a number ending 0001 at once, writing created and completed once each', async () => {
    const handle = await start(await payment('+250788000001'));
    const result = (await handle.result()) as PaymentSnapshot;
    expect(result.status).to.equal('completed');
    const row = await findPayment(db, { merchantId, environment: 'sandbox' }, result.id);
    expect(row?.status).to.equal('completed');
    expect(row?.providerReference).to.match(/^momo_/);
    expect(await eventTypes(result.id)).to.deep.equal(['payment.created', 'payment.completed']);
    const history = (await handle.fetchHistory()).events ?? [];
    // One local activity records the payment, asks the provider and records its answer.
    expect(activityNames(history)).to.deep.equal(['initiatePayment']);
    // One patch marker and one TemporalChangeVersion upsert stand for every change since v1.
    expect(patchesIn(history)).to.deep.equal({ ids: ['payment-v5'], changeVersionUpserts: 1 });
    await record('payment-completed', handle);
  });

  it('fails a payment to a number ending 0002 with failure_code declined', async () => {
    const handle = await start(await payment('+250788000002'));
    const result = (await handle.result()) as PaymentSnapshot;
    expect(result).to.include({ status: 'failed', failureCode: 'declined' });
    const row = await findPayment(db, { merchantId, environment: 'sandbox' }, result.id);
    expect(row).to.include({ status: 'failed', failureCode: 'declined' });
    expect(await eventTypes(result.id)).to.deep.equal(['payment.created', 'payment.failed']);
    await record('payment-failed', handle);
  });

  it('expires a number ending 0003 after 10 minutes, polling at 2 s doubling to 60 s through one activity\'s retries', async () => {
    const created = await payment('+250788000003');
    const handle = await start(created);
    const result = (await handle.result()) as PaymentSnapshot;
    expect(result).to.include({ status: 'failed', failureCode: 'expired' });
    const elapsedMs = Date.parse(result.updatedAt) - Date.parse(created.createdAt);
    expect(elapsedMs).to.be.at.least(600_000).and.below(610_000);

    const history = (await handle.fetchHistory()).events ?? [];
    // The first poll after 2 s; the polls after it are pollProviderPayment's retries (D20): at 6, 14,
    // 30, 62 s and every 60 s after, the 13th at 542 s; the next would pass expires_at, so the
    // workflow waits out the rest and asks the provider a last time at expiry.
    const [poll, ...others] = pollActivities(history);
    expect(others).to.deep.equal([]);
    expect(poll?.attempt).to.equal(13);
    expect(durationMs(poll?.retry?.initialInterval)).to.equal(4_000);
    expect(poll?.retry?.backoffCoefficient).to.equal(2);
    expect(durationMs(poll?.retry?.maximumInterval)).to.equal(60_000);
    const timers = timerDurationsMs(history);
    expect(timers).to.have.length(2);
    expect(timers[0]).to.equal(2_000);
    expect(timers[1]).to.be.within(50_000, 58_000); // what is left until expires_at
    expect(activityNames(history)).to.deep.equal(['initiatePayment', 'pollProviderPayment', 'fetchProviderPaymentStatus', 'recordPaymentStatus']);
    expect(history.length).to.be.below(40); // no events per poll
    expect(await eventTypes(result.id)).to.deep.equal(['payment.created', 'payment.failed']);
    await record('payment-expired', handle);
  });

  it('completes another number after the customer approves, seen by the first poll', async () => {
    const handle = await start(await payment('+250788123456'));
    const result = (await handle.result()) as PaymentSnapshot;
    expect(result.status).to.equal('completed');
    const history = (await handle.fetchHistory()).events ?? [];
    expect(activityNames(history)).to.deep.equal([
      'initiatePayment', // created, then processing
      'pollProviderPayment',
      'recordPaymentStatus', // completed
    ]);
    expect(pollActivities(history).map((p) => p.attempt)).to.deep.equal([1]);
  });

  it('takes the final answer from a provider callback signal without waiting for a poll (D16)', async () => {
    const handle = await start(await payment('+250788000003'));
    let current: PaymentSnapshot;
    do current = await handle.query(getPaymentQuery);
    while (current.providerReference === null);
    await handle.signal(providerCallbackSignal, { providerReference: 'momo_someone_else', outcome: { status: 'completed' } });
    await handle.signal(providerCallbackSignal, { providerReference: current.providerReference, outcome: { status: 'completed' } });
    const result = (await handle.result()) as PaymentSnapshot;
    expect(result.status).to.equal('completed');
    const history = (await handle.fetchHistory()).events ?? [];
    // Woken by the callback before its first poll, or while polling: then the polls are cancelled.
    const scheduledPolls = activityNames(history).filter((name) => name === 'pollProviderPayment').length;
    expect(history.filter((e) => e.activityTaskCancelRequestedEventAttributes)).to.have.length(scheduledPolls);
    expect(activityNames(history)).not.to.include('fetchProviderPaymentStatus');
  });

  it('cancels its polls when a callback arrives while it polls, and takes the callback\'s answer (D16, D20)', async () => {
    const handle = await start(await payment('+250788000003'));
    const polling = async () => activityNames((await handle.fetchHistory()).events ?? []).includes('pollProviderPayment');
    while (!(await polling())) await new Promise((resolve) => setTimeout(resolve, 100));
    const { providerReference } = await handle.query(getPaymentQuery);
    await handle.signal(providerCallbackSignal, { providerReference: providerReference as string, outcome: { status: 'completed' } });
    const result = (await handle.result()) as PaymentSnapshot;
    expect(result.status).to.equal('completed');
    const history = (await handle.fetchHistory()).events ?? [];
    expect(history.filter((e) => e.activityTaskCancelRequestedEventAttributes)).to.have.length(1);
    expect(activityNames(history)).to.deep.equal(['initiatePayment', 'pollProviderPayment', 'recordPaymentStatus']);
    expect(await eventTypes(result.id)).to.deep.equal(['payment.created', 'payment.completed']);
  });

  it('fails with provider_error when no adapter serves the environment (live without credentials)', async () => {
    const handle = await start(await payment('+250788000001', 'live'));
    const result = (await handle.result()) as PaymentSnapshot;
    expect(result).to.include({ status: 'failed', failureCode: 'provider_error' });
  });

  /** The D51 code of a failed Update (the ApplicationFailure type set by the workflow). */
  async function updateFailure(promise: Promise<unknown>): Promise<string> {
    try {
      await promise;
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) return String(error.cause.type);
      throw error;
    }
    throw new Error('expected the update to fail');
  }

  function updateEvents(events: HistoryEvent[]): HistoryEvent[] {
    return events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes || e.workflowExecutionUpdateRejectedEventAttributes);
  }

  async function waitInitiated(handle: WorkflowHandle): Promise<PaymentSnapshot> {
    let current: PaymentSnapshot;
    do current = await handle.query(getPaymentQuery);
    while (current.providerReference === null);
    return current;
  }

  it('cancels an open payment at the provider, writing payment.cancelled once with the reason (D11, D12)', async () => {
    const handle = await start(await payment('+250788000003'));
    await waitInitiated(handle);
    const cancelled = await handle.executeUpdate(cancelPaymentUpdate, { args: [{ reason: 'customer changed their mind' }] });
    expect(cancelled).to.include({ status: 'cancelled', cancellationReason: 'customer changed their mind' });
    const result = (await handle.result()) as PaymentSnapshot;
    expect(result.status).to.equal('cancelled');
    const row = await findPayment(db, { merchantId, environment: 'sandbox' }, result.id);
    expect(row).to.include({ status: 'cancelled', cancellationReason: 'customer changed their mind' });
    expect((await findSandboxTransactionByPayment(db, 'momo', result.id))?.status).to.equal('cancelled');
    expect(await eventTypes(result.id)).to.deep.equal(['payment.created', 'payment.cancelled']);
    await record('payment-cancelled', handle);
  });

  it('refuses to cancel a completed payment in the validator, leaving no trace in the history', async () => {
    const handle = await start(await payment('+250788000001'));
    let current: PaymentSnapshot;
    do current = await handle.query(getPaymentQuery);
    while (current.status !== 'completed');
    expect(await updateFailure(handle.executeUpdate(cancelPaymentUpdate, { args: [{}] }))).to.equal('payment_not_cancellable');
    expect(updateEvents((await handle.fetchHistory()).events ?? [])).to.have.length(0);
  });

  it('lets a provider success win over a racing cancel: the cancel fails and the payment completes (D11)', async () => {
    const created = cardPayment(merchantId, { nowMs: await env.currentTimeMs() });
    const handle = await start(created);
    const initiated = await waitInitiated(handle);
    // The customer's card was approved at the gateway an instant before the merchant's cancel reached it.
    await decideSandboxTransaction(db, initiated.providerReference as string, { status: 'succeeded' }, new Date());
    expect(await updateFailure(handle.executeUpdate(cancelPaymentUpdate, { args: [{}] }))).to.equal('payment_not_cancellable');
    const current = await handle.query(getPaymentQuery);
    expect(current.status).to.equal('completed');
    expect(await eventTypes(created.id)).to.deep.equal(['payment.created', 'payment.completed']);
  });

  it('refunds in parts until nothing is left, then the payment is refunded (D11, D12, D22)', async () => {
    const handle = await start(await payment('+250788000001'));
    let current: PaymentSnapshot;
    do current = await handle.query(getPaymentQuery);
    while (current.status !== 'completed');
    const first = await handle.executeUpdate(refundPaymentUpdate, { args: [{ refundId: newId('ref_'), amount: 500, reason: 'one item returned' }] });
    expect(first).to.include({ status: 'completed', amount: 500, reason: 'one item returned' });
    expect((await handle.query(getPaymentQuery))).to.include({ status: 'completed', amountRefunded: 500 });
    expect(await updateFailure(handle.executeUpdate(refundPaymentUpdate, { args: [{ refundId: newId('ref_'), amount: 1001 }] }))).to.equal('amount_exceeds_refundable');
    const rest = await handle.executeUpdate(refundPaymentUpdate, { args: [{ refundId: newId('ref_') }] });
    expect(rest).to.include({ status: 'completed', amount: 1000 });
    const result = (await handle.result()) as PaymentSnapshot;
    expect(result).to.include({ status: 'refunded', amountRefunded: 1500 });
    const row = await findPayment(db, { merchantId, environment: 'sandbox' }, result.id);
    expect(row).to.include({ status: 'refunded', amountRefunded: 1500 });
    const events = await listEventsForObject(db, result.id);
    expect(events.map((e) => e.event)).to.deep.equal(['payment.created', 'payment.completed', 'refund.completed', 'refund.completed']);
    const lastData = events[3]?.data as { id: string; amount: number; payment: { status: string; amount_refunded: number } };
    expect(lastData).to.include({ id: rest.id, amount: 1000 });
    expect(lastData.payment).to.include({ status: 'refunded', amount_refunded: 1500 });
    const refunds = await db('refunds').where({ payment_id: result.id }).orderBy('created_at');
    expect(refunds.map((r: { status: string; amount: number }) => [r.status, r.amount])).to.deep.equal([['completed', 500], ['completed', 1000]]);
    await record('payment-refunded', handle);
  });

  it('refuses a refund of a payment that is not completed (409 payment_not_refundable)', async () => {
    const handle = await start(await payment('+250788000003'));
    await waitInitiated(handle);
    expect(await updateFailure(handle.executeUpdate(refundPaymentUpdate, { args: [{ refundId: newId('ref_') }] }))).to.equal('payment_not_refundable');
    await handle.executeUpdate(cancelPaymentUpdate, { args: [{}] });
  });

  it('lets exactly one of two refunds racing for the last amount win', async () => {
    const handle = await start(await payment('+250788000001'));
    let current: PaymentSnapshot;
    do current = await handle.query(getPaymentQuery);
    while (current.status !== 'completed');
    const outcomes = await Promise.allSettled([
      handle.executeUpdate(refundPaymentUpdate, { args: [{ refundId: newId('ref_'), amount: 1500 }] }),
      handle.executeUpdate(refundPaymentUpdate, { args: [{ refundId: newId('ref_'), amount: 1500 }] }),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).to.have.length(1);
    const rejected = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).to.be.instanceOf(WorkflowUpdateFailedError);
    expect(['amount_exceeds_refundable', 'payment_not_refundable']).to.include((rejected.reason.cause as ApplicationFailure).type);
    const result = (await handle.result()) as PaymentSnapshot;
    expect(result).to.include({ status: 'refunded', amountRefunded: 1500 });
    expect(await db('refunds').where({ payment_id: result.id, status: 'completed' }).count('id as n').first()).to.deep.equal({ n: 1 });
  });

  it('expires an unconfirmed card payment after 24 hours, polling every 60 s with a history that stays short', async function () {
    this.timeout(180_000);
    const created = cardPayment(merchantId, { nowMs: await env.currentTimeMs() });
    const handle = await start(created);
    const result = (await handle.result()) as PaymentSnapshot;
    expect(result).to.include({ status: 'failed', failureCode: 'expired' });
    const elapsedMs = Date.parse(result.updatedAt) - Date.parse(created.createdAt);
    expect(elapsedMs).to.be.at.least(24 * 3600 * 1000).and.below(24 * 3600 * 1000 + 60_000);
    const history = (await handle.fetchHistory()).events ?? [];
    // 2, 6, 14, 30, 62 s, then every 60 s while the next poll is before expires_at: 1,443 polls, and
    // none of them wrote history, so the workflow never needed to continue as new.
    expect(pollActivities(history).map((p) => p.attempt)).to.deep.equal([1_443]);
    expect(history.length).to.be.below(40);
    expect(history.length).to.be.below(HISTORY_EVENTS_BEFORE_CONTINUE);
    const description = await handle.describe();
    expect(description.runId).to.equal(handle.firstExecutionRunId);
    expect(await eventTypes(created.id)).to.deep.equal(['payment.created', 'payment.failed']);
  });
});
