/**
 * paymentWorkflow on the time-skipping test server with the real activities, the
 * sandbox simulator and a real PostgreSQL (promises in docs/payments.md): the outcomes of the
 * sandbox test numbers, the poll schedule, expiry and reconciliation, cancel and refunds, the
 * workflow ending once settled and re-opened from the read model, and events written once.
 * With RECORD_HISTORIES=1 it refreshes the replay histories in test/replay/histories/.
 */
import { expect } from 'chai';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { temporal } from '@temporalio/proto';
import type { Db } from '../../src/db/knex';
import { listEventsForObject, findPayment } from '../../src/db/payments';
import type { PaymentSnapshot } from '../../src/domain/payment';
import { HISTORY_EVENTS_BEFORE_CONTINUE } from '../../src/workflows/payment-workflow';
import {
  cancelPaymentUpdate,
  getPaymentQuery,
  initiatePaymentUpdate,
  INITIATE_UPDATE_ID,
  paymentWorkflowId,
  providerCallbackSignal,
  refundPaymentUpdate,
  type PaymentWorkflowInput,
} from '../../src/workflows/messages';
import {
  WithStartWorkflowOperation,
  WorkflowUpdateFailedError,
  WorkflowUpdateStage,
  type WorkflowHandle,
  type WorkflowUpdateHandle,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { decideSandboxTransaction, findSandboxTransactionByPayment } from '../../src/db/sandbox-ledger';
import { newId } from '../../src/lib/ids';
import { cardPayment, insertMerchant, mobileMoneyPayment } from '../helpers/fixtures';
import { activityNames, keepHistory } from '../helpers/history';
import type { PaymentActivities } from '../../src/workflows/activity-contracts';
import { createTimeSkippingWorker, useTimeSkippingWorker } from '../helpers/stack';

const TASK_QUEUE = 'payment-workflow-test';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/**
 * The attempt (from 1) at which each `pollProviderPayment` activity ended, and the retry policy it was scheduled with.
 */
function pollActivities(
  events: HistoryEvent[],
): { attempt: number; retry: temporal.api.common.v1.IRetryPolicy | null | undefined }[] {
  const scheduled = new Map<string, temporal.api.common.v1.IRetryPolicy | null | undefined>();
  const polls: { attempt: number; retry: temporal.api.common.v1.IRetryPolicy | null | undefined }[] = [];
  for (const e of events) {
    const attributes = e.activityTaskScheduledEventAttributes;
    if (attributes?.activityType?.name === 'pollProviderPayment')
      scheduled.set(String(e.eventId), attributes.retryPolicy);
    const started = e.activityTaskStartedEventAttributes;
    if (started && scheduled.has(String(started.scheduledEventId)))
      polls.push({ attempt: Number(started.attempt), retry: scheduled.get(String(started.scheduledEventId)) });
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

describe('paymentWorkflow (time-skipping, docs/payments.md)', function () {
  this.timeout(120_000);
  // Approval delay 0 in the worker: the simulator's clock is the wall clock, which time skipping does not move.
  const fixture = useTimeSkippingWorker(TASK_QUEUE);
  let env: TestWorkflowEnvironment;
  let db: Db;
  let merchantId: string;
  const WINDOW_SECONDS = 7 * 86_400;

  before(async () => {
    ({ env, db } = fixture);
    merchantId = await insertMerchant(db);
  });

  /** A payment created now by the test server's clock, which time skipping moves ahead of the wall clock. */
  async function payment(phone: string, environment: 'sandbox' | 'live' = 'sandbox'): Promise<PaymentSnapshot> {
    return mobileMoneyPayment(merchantId, phone, { environment, nowMs: await env.currentTimeMs() });
  }

  /** The create's Update of each started workflow, by workflow id. */
  const initiations = new Map<string, WorkflowUpdateHandle<PaymentSnapshot>>();

  /**
   * Starts a payment's workflow with its create's Update, as the API does (Update-with-Start,
   * docs/payments.md#workflow).
   */
  async function start(created: PaymentSnapshot) {
    const input: PaymentWorkflowInput = {
      mode: 'create',
      payment: created,
      reconciliationWindowSeconds: WINDOW_SECONDS,
    };
    const startWorkflowOperation = new WithStartWorkflowOperation('paymentWorkflow', {
      taskQueue: TASK_QUEUE,
      workflowId: paymentWorkflowId(created.id),
      args: [input],
      workflowIdConflictPolicy: 'FAIL',
    });
    const update = await env.client.workflow.startUpdateWithStart(initiatePaymentUpdate, {
      updateId: INITIATE_UPDATE_ID,
      waitForStage: WorkflowUpdateStage.ACCEPTED,
      startWorkflowOperation,
    });
    const handle = await startWorkflowOperation.workflowHandle();
    initiations.set(handle.workflowId, update);
    return handle;
  }

  /**
   * Starts the payment's workflow again from the read model, as the API's Update- and Signal-with-Start do
   * (docs/payments.md#workflow).
   */
  async function reopen(paymentId: string) {
    const input: PaymentWorkflowInput = { mode: 'reopen', paymentId, reconciliationWindowSeconds: WINDOW_SECONDS };
    return env.client.workflow.start('paymentWorkflow', {
      taskQueue: TASK_QUEUE,
      workflowId: paymentWorkflowId(paymentId),
      args: [input],
    });
  }

  const record = keepHistory;

  async function eventTypes(paymentId: string): Promise<string[]> {
    return (await listEventsForObject(db, paymentId)).map((event) => event.event);
  }

  async function stored(paymentId: string): Promise<PaymentSnapshot | undefined> {
    return findPayment(db, { merchantId, environment: 'sandbox' }, paymentId);
  }

  /** The error code (docs/api.md#errors) of a failed Update (the ApplicationFailure type set by the workflow). */
  async function updateFailure(promise: Promise<unknown>): Promise<string> {
    try {
      await promise;
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure)
        return String(error.cause.type);
      throw error;
    }
    throw new Error('expected the update to fail');
  }

  function updateEvents(events: HistoryEvent[]): HistoryEvent[] {
    return events.filter(
      (e) => e.workflowExecutionUpdateAcceptedEventAttributes || e.workflowExecutionUpdateRejectedEventAttributes,
    );
  }

  async function waitInitiated(handle: WorkflowHandle): Promise<PaymentSnapshot> {
    const update = initiations.get(handle.workflowId);
    return update ? update.result() : handle.executeUpdate(initiatePaymentUpdate, { updateId: INITIATE_UPDATE_ID });
  }

  /** A completed payment whose workflow has ended (docs/payments.md#workflow). */
  async function completedPayment(phone = '+250788000001'): Promise<PaymentSnapshot> {
    const handle = await start(await payment(phone));
    const result = (await handle.result()) as PaymentSnapshot;
    expect(result.status).to.equal('completed');
    return result;
  }

  it("answers the create's Update once initiated: pending with the provider's reference and next action (docs/payments.md#creating-a-payment)", async () => {
    const created = cardPayment(merchantId, { nowMs: await env.currentTimeMs() });
    const handle = await start({ ...created, nextAction: null });
    const initiated = await waitInitiated(handle);
    expect(initiated.status).to.equal('pending');
    expect(initiated.providerReference).to.match(/^card_gateway_/);
    expect(initiated.nextAction?.type).to.equal('card_confirm');
    const secret = initiated.nextAction?.type === 'card_confirm' ? initiated.nextAction.client_secret : '';
    expect(secret.startsWith(`${initiated.providerReference}_secret_`)).to.equal(true);
    expect((await stored(created.id))?.nextAction).to.deep.equal(initiated.nextAction);
    // The same Update id reattaches to the same answer (a retried create, docs/payments.md#idempotency).
    expect(await waitInitiated(handle)).to.deep.equal(initiated);
    await handle.executeUpdate(cancelPaymentUpdate, { args: [{}] });
  });

  it('completes a payment to a number ending 0001 at once, writes created and completed once each, and ends (docs/payments.md#workflow)', async () => {
    const handle = await start(await payment('+250788000001'));
    const initiated = await waitInitiated(handle);
    expect(initiated.status).to.equal('pending');
    const result = (await handle.result()) as PaymentSnapshot;
    expect(result.status).to.equal('completed');
    const row = await stored(result.id);
    expect(row?.status).to.equal('completed');
    expect(row?.providerReference).to.match(/^momo_/);
    expect(await eventTypes(result.id)).to.deep.equal(['payment.created', 'payment.completed']);
    const history = (await handle.fetchHistory()).events ?? [];
    expect(activityNames(history), JSON.stringify(activityNames(history))).to.deep.equal(['initiatePayment']);
    // The create in one workflow task and one local activity: initiation wrote the provider's reference and the
    // success it brought, in one write; its marker is the only one (no patches).
    expect(
      history.filter((e) => e.markerRecordedEventAttributes).map((e) => e.markerRecordedEventAttributes?.markerName),
    ).to.deep.equal(['core_local_activity']);
    expect(history.filter((e) => e.workflowTaskCompletedEventAttributes)).to.have.length(1);
    expect(history.some((e) => e.activityTaskScheduledEventAttributes)).to.equal(false);
    await record('payment-completed', handle);
  });

  it('fails a payment to a number ending 0002 with failure_code declined', async () => {
    const handle = await start(await payment('+250788000002'));
    const result = (await handle.result()) as PaymentSnapshot;
    expect(result).to.include({ status: 'failed', failureCode: 'declined' });
    expect(await stored(result.id)).to.include({ status: 'failed', failureCode: 'declined' });
    expect(await eventTypes(result.id)).to.deep.equal(['payment.created', 'payment.failed']);
    await record('payment-declined', handle);
  });

  it("expires a number ending 0003 after 10 minutes: polls through one activity's retries, then takes the provider's last word", async () => {
    const created = await payment('+250788000003');
    const handle = await start(created);
    const result = (await handle.result()) as PaymentSnapshot;
    expect(result).to.include({ status: 'failed', failureCode: 'expired' });
    const elapsedMs = Date.parse(result.updatedAt) - Date.parse(created.createdAt);
    expect(elapsedMs).to.be.at.least(600_000).and.below(610_000);
    const history = (await handle.fetchHistory()).events ?? [];
    // The first poll after 2 s; the polls after it are pollProviderPayment's retries (docs/payments.md#workflow).
    const polls = pollActivities(history);
    expect(polls).to.have.length(1);
    expect(polls[0]?.attempt).to.be.greaterThan(10);
    expect(durationMs(polls[0]?.retry?.initialInterval)).to.equal(4_000);
    expect(durationMs(polls[0]?.retry?.maximumInterval)).to.equal(60_000);
    expect(timerDurationsMs(history)[0]).to.equal(2_000);
    // The customer never acts, so the payment stays pending (nothing to record) until expiry. Mobile money cannot
    // be withdrawn at the provider (cancel unsupported): its status is the last word (docs/payments.md#states).
    expect(activityNames(history)).to.deep.equal([
      'initiatePayment',
      'pollProviderPayment',
      'cancelProviderPayment',
      'fetchProviderPaymentStatus',
      'recordPaymentStatus',
    ]);
    expect(history.length).to.be.below(60); // no events per poll
    expect(await eventTypes(result.id)).to.deep.equal(['payment.created', 'payment.failed']);
    await record('payment-expired', handle);
  });

  it('reconciles a success that comes after expiry: a callback re-opens the payment, which completes with reconciled_at (docs/payments.md#states)', async () => {
    const created = await payment('+250788000003');
    const first = await start(created);
    const expired = (await first.result()) as PaymentSnapshot;
    expect(expired).to.include({ status: 'failed', failureCode: 'expired' });
    // The customer approves late; the provider says so in a callback, which re-opens the workflow.
    await decideSandboxTransaction(db, expired.providerReference as string, { status: 'succeeded' }, new Date());
    // The test server's clock leaps ahead while nothing runs; the window itself is tested in
    // test/domain/payment-table.test.ts.
    const input: PaymentWorkflowInput = {
      mode: 'reopen',
      paymentId: created.id,
      reconciliationWindowSeconds: 1_000 * 365 * 86_400,
    };
    const handle = await env.client.workflow.signalWithStart('paymentWorkflow', {
      taskQueue: TASK_QUEUE,
      workflowId: paymentWorkflowId(created.id),
      args: [input],
      signal: providerCallbackSignal,
      signalArgs: [{ providerReference: expired.providerReference as string, claimed: 'completed' }],
    });
    const result = (await handle.result()) as PaymentSnapshot;
    expect(result.status).to.equal('completed');
    expect(result.reconciledAt).to.be.a('string');
    const row = await stored(created.id);
    expect(row).to.include({ status: 'completed', failureCode: null });
    expect(row?.reconciledAt).to.equal(result.reconciledAt);
    expect(await eventTypes(created.id)).to.deep.equal(['payment.created', 'payment.failed', 'payment.completed']);
    expect(activityNames((await handle.fetchHistory()).events ?? [])).to.deep.equal([
      'loadPayment',
      'fetchProviderPaymentStatus',
      'recordPaymentStatus',
    ]);
    await record('payment-late-success', handle);
  });

  it('completes another number once the customer approves, with created and completed once each', async () => {
    const handle = await start(await payment('+250788123456'));
    const result = (await handle.result()) as PaymentSnapshot;
    expect(result.status).to.equal('completed');
    expect(await eventTypes(result.id)).to.deep.equal(['payment.created', 'payment.completed']);
  });

  it('confirms a callback with the provider before acting on it, and ignores one for another reference (docs/payments.md#provider-callbacks)', async () => {
    const handle = await start(await payment('+250788000003'));
    const initiated = await waitInitiated(handle);
    // A forged claim of success: the provider still says pending, so nothing changes.
    await handle.signal(providerCallbackSignal, {
      providerReference: initiated.providerReference as string,
      claimed: 'completed',
    });
    await handle.signal(providerCallbackSignal, { providerReference: 'momo_someone_else', claimed: 'completed' });
    let current: PaymentSnapshot;
    do current = await handle.query(getPaymentQuery);
    while (!activityNames((await handle.fetchHistory()).events ?? []).includes('fetchProviderPaymentStatus'));
    expect(['pending', 'processing']).to.include(current.status);
    await decideSandboxTransaction(db, initiated.providerReference as string, { status: 'succeeded' }, new Date());
    await handle.signal(providerCallbackSignal, {
      providerReference: initiated.providerReference as string,
      claimed: 'completed',
    });
    const result = (await handle.result()) as PaymentSnapshot;
    expect(result.status).to.equal('completed');
    const history = (await handle.fetchHistory()).events ?? [];
    expect(activityNames(history).filter((n) => n === 'fetchProviderPaymentStatus')).to.have.length(2);
    expect(await eventTypes(result.id)).to.deep.equal(['payment.created', 'payment.completed']);
  });

  it('fails with provider_error when no adapter serves the environment (live without credentials)', async () => {
    const handle = await start(await payment('+250788000001', 'live'));
    const initiated = await waitInitiated(handle);
    expect(initiated).to.include({ status: 'failed', failureCode: 'provider_error' });
    expect((await handle.result()) as PaymentSnapshot).to.include({ status: 'failed', failureCode: 'provider_error' });
    // Our own set-up, not the operator's failure (docs/availability.md#classification).
    const rows = await db('provider_outcomes').where({ object_id: initiated.id });
    expect(rows.map((row) => `${row.environment}:${row.side}`)).to.deep.equal(['live:platform']);
  });

  it('cancels an open card payment at the gateway, writing payment.cancelled once with the reason (docs/payments.md#states, docs/payments.md#cancel-and-refund)', async () => {
    const created = cardPayment(merchantId, { nowMs: await env.currentTimeMs() });
    const handle = await start({ ...created, nextAction: null });
    await waitInitiated(handle);
    const cancelled = await handle.executeUpdate(cancelPaymentUpdate, {
      args: [{ reason: 'customer changed their mind' }],
    });
    expect(cancelled).to.include({ status: 'cancelled', cancellationReason: 'customer changed their mind' });
    const result = (await handle.result()) as PaymentSnapshot;
    expect(result.status).to.equal('cancelled');
    expect(await stored(result.id)).to.include({
      status: 'cancelled',
      cancellationReason: 'customer changed their mind',
    });
    expect((await findSandboxTransactionByPayment(db, 'card_gateway', result.id))?.status).to.equal('cancelled');
    expect(await eventTypes(result.id)).to.deep.equal(['payment.created', 'payment.cancelled']);
    await record('payment-cancelled', handle);
  });

  it('continues a run as a new one that neither records nor initiates the payment again, polls on from pollDelayMs and takes a cancel at once (docs/payments.md#workflow)', async () => {
    const handle = await start(cardPayment(merchantId, { nowMs: await env.currentTimeMs() }));
    const initiated = await waitInitiated(handle);
    // The run a long wait continued as new ends so; the next run starts with what it handed on.
    await handle.terminate('stands for a run that continued as new');
    const input: PaymentWorkflowInput = {
      mode: 'continued',
      payment: initiated,
      pollDelayMs: 10_000,
      reconciliationWindowSeconds: WINDOW_SECONDS,
    };
    const continued = await env.client.workflow.start('paymentWorkflow', {
      taskQueue: TASK_QUEUE,
      workflowId: paymentWorkflowId(initiated.id),
      args: [input],
    });
    let history: HistoryEvent[] = [];
    for (let tries = 0; timerDurationsMs(history).length === 0 && tries < 100; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      history = (await continued.fetchHistory()).events ?? [];
    }
    expect(timerDurationsMs(history)[0], 'the next poll waits twice the delay handed on').to.equal(20_000);
    const cancelled = await continued.executeUpdate(cancelPaymentUpdate, {
      args: [{ reason: 'customer changed their mind' }],
    });
    expect(cancelled).to.include({ status: 'cancelled', cancellationReason: 'customer changed their mind' });
    expect(((await continued.result()) as PaymentSnapshot).status).to.equal('cancelled');
    const names = activityNames((await continued.fetchHistory()).events ?? []);
    expect(names).to.not.include('initiatePayment');
    expect(await eventTypes(initiated.id)).to.deep.equal(['payment.created', 'payment.cancelled']);
  });

  it("carries the attempt's facts across continue-as-new: the next run's expiry is the provider's silence, counted from the first request (docs/availability.md#recording)", async () => {
    const handle = await start(await payment('+250788000003'));
    const initiated = await waitInitiated(handle);
    await handle.terminate('stands for a run that continued as new');
    const now = await env.currentTimeMs();
    const firstRequestAt = new Date(now - 90_000).toISOString();
    const input: PaymentWorkflowInput = {
      mode: 'continued',
      // Due: the next run asks for the provider's last word and expires it at once.
      payment: { ...initiated, expiresAt: new Date(now - 1_000).toISOString() },
      pollDelayMs: 10_000,
      attempt: { firstRequestAt, lastWordUnknown: true, neverReached: false },
      reconciliationWindowSeconds: WINDOW_SECONDS,
    };
    const continued = await env.client.workflow.start('paymentWorkflow', {
      taskQueue: TASK_QUEUE,
      workflowId: paymentWorkflowId(initiated.id),
      args: [input],
    });
    expect((await continued.result()) as PaymentSnapshot).to.include({ status: 'failed', failureCode: 'expired' });
    const rows = await db('provider_outcomes').where({ object_id: initiated.id });
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ operation: 'collection', outcome: 'failure', side: 'provider' });
    expect(Number(rows[0].duration_ms)).to.be.at.least(90_000);
  });

  /**
   * Runs `body` with a worker on its own task queue whose sandbox `momo` states `supports` (and withdraws its request
   * when it says it can), as a provider of those capabilities would (docs/payments.md#late-successes).
   */
  async function withCapabilities(
    supports: { cancel: boolean; refund: boolean; partialRefund: boolean },
    body: (queue: string) => Promise<void>,
  ): Promise<void> {
    const queue = `${TASK_QUEUE}-${supports.cancel}-${supports.refund}-${newId('q_')}`;
    const worker = await createTimeSkippingWorker(env, db, queue, (registry) => ({
      get(environment, code) {
        const provider = registry.get(environment, code);
        if (!provider || code !== 'momo') return provider;
        return Object.assign(Object.create(provider) as typeof provider, {
          supports,
          cancel: async (providerReference: string) => ({
            providerReference,
            outcome: { status: 'cancelled' as const },
          }),
        });
      },
    }));
    const running = worker.run();
    try {
      await body(queue);
    } finally {
      worker.shutdown();
      await running;
    }
  }

  /** Starts `created`'s workflow on `queue` and answers its create. */
  async function startOn(
    queue: string,
    created: PaymentSnapshot,
    reconciliationWindowSeconds = WINDOW_SECONDS,
  ): Promise<{ handle: WorkflowHandle; initiated: PaymentSnapshot }> {
    const input: PaymentWorkflowInput = { mode: 'create', payment: created, reconciliationWindowSeconds };
    const handle = await env.client.workflow.start('paymentWorkflow', {
      taskQueue: queue,
      workflowId: paymentWorkflowId(created.id),
      args: [input],
    });
    const initiated = await handle.executeUpdate(initiatePaymentUpdate, { updateId: INITIATE_UPDATE_ID });
    return { handle, initiated };
  }

  /** The customer approves at the provider after the payment closed; its callback re-opens the workflow on `queue`. */
  async function approveLate(
    queue: string,
    initiated: PaymentSnapshot,
    reconciliationWindowSeconds = WINDOW_SECONDS,
  ): Promise<PaymentSnapshot> {
    await decideSandboxTransaction(db, initiated.providerReference as string, { status: 'succeeded' }, new Date());
    const reopened = await env.client.workflow.signalWithStart('paymentWorkflow', {
      taskQueue: queue,
      workflowId: paymentWorkflowId(initiated.id),
      args: [{ mode: 'reopen', paymentId: initiated.id, reconciliationWindowSeconds } satisfies PaymentWorkflowInput],
      signal: providerCallbackSignal,
      signalArgs: [{ providerReference: initiated.providerReference as string, claimed: 'completed' }],
    });
    return (await reopened.result()) as PaymentSnapshot;
  }

  /** The collection journals and reconciliation exceptions our books hold for `paymentId`. */
  async function books(paymentId: string) {
    const journals = await db('ledger_journals')
      .where('cause', 'like', `%${paymentId}%`)
      .orWhere('cause', 'like', `%${paymentId.slice(4)}%`)
      .orderBy('cause')
      .pluck('cause');
    const exceptions = await db('reconciliation_exceptions')
      .where({ object_id: paymentId })
      .select('kind', 'run_id', 'expected_amount');
    return { journals, exceptions };
  }

  it('refunds in full a success that comes after the merchant cancelled, where the provider can withdraw and refund (docs/payments.md#late-successes)', async () => {
    await withCapabilities({ cancel: true, refund: true, partialRefund: true }, async (queue) => {
      const { handle, initiated } = await startOn(queue, await payment('+250788000003'));
      await handle.executeUpdate(cancelPaymentUpdate, { args: [{}] });
      expect(((await handle.result()) as PaymentSnapshot).status).to.equal('cancelled');
      // The provider said it withdrew the request; the customer approves all the same.
      expect((await findSandboxTransactionByPayment(db, 'momo', initiated.id))?.status).to.equal('pending');
      const result = await approveLate(queue, initiated);
      expect(result).to.include({ status: 'cancelled', amountRefunded: 1500 });
      const refunds = await db('refunds').where({ payment_id: initiated.id });
      expect(
        refunds.map((r: { status: string; amount: number; reason: string }) => [r.status, r.amount, r.reason]),
      ).to.deep.equal([['completed', 1500, 'late_success_after_cancel']]);
      expect(await eventTypes(initiated.id)).to.deep.equal([
        'payment.created',
        'payment.cancelled',
        'refund.completed',
      ]);
      expect((await books(initiated.id)).exceptions).to.deep.equal([]);
    });
  });

  it('books a success after the cancel as completed with an exception where the provider cannot refund; the workflow does not fail (docs/payments.md#late-successes)', async () => {
    await withCapabilities({ cancel: true, refund: false, partialRefund: false }, async (queue) => {
      const { handle, initiated } = await startOn(queue, await payment('+250788000003'));
      await handle.executeUpdate(cancelPaymentUpdate, { args: [{}] });
      expect(((await handle.result()) as PaymentSnapshot).status).to.equal('cancelled');
      const result = await approveLate(queue, initiated);
      expect(result).to.include({ status: 'completed', amountRefunded: 0 });
      expect(result.reconciledAt).to.be.a('string');
      expect(await stored(initiated.id)).to.include({ status: 'completed' });
      expect(await db('refunds').where({ payment_id: initiated.id })).to.deep.equal([]);
      expect(await eventTypes(initiated.id)).to.deep.equal([
        'payment.created',
        'payment.cancelled',
        'payment.completed',
      ]);
      const { journals, exceptions } = await books(initiated.id);
      expect(journals).to.deep.equal([`payment:${initiated.id}:completed`]);
      expect(exceptions).to.deep.equal([{ kind: 'late_success_unrefundable', run_id: null, expected_amount: 1500 }]);
    });
  });

  it('refuses a cancel where the provider cannot withdraw, then books a success after expiry outside the window with an exception (M-Pesa-like, docs/payments.md#late-successes)', async () => {
    await withCapabilities({ cancel: false, refund: false, partialRefund: false }, async (queue) => {
      const WINDOW = 60;
      const { handle, initiated } = await startOn(queue, await payment('+250788000003'), WINDOW);
      expect(await updateFailure(handle.executeUpdate(cancelPaymentUpdate, { args: [{}] }))).to.equal(
        'payment_not_cancellable',
      );
      expect(await stored(initiated.id)).to.include({ status: 'pending' });
      expect(await eventTypes(initiated.id)).to.deep.equal(['payment.created']);
      const expired = (await handle.result()) as PaymentSnapshot;
      expect(expired).to.include({ status: 'failed', failureCode: 'expired' });
      // A reconciliation window of a minute here (the service's is RECONCILIATION_WINDOW_DAYS); the answer comes after.
      await env.sleep(WINDOW * 1000 + 60_000);
      const result = await approveLate(queue, initiated, WINDOW);
      expect(result).to.include({ status: 'completed', amountRefunded: 0 });
      expect(await eventTypes(initiated.id)).to.deep.equal(['payment.created', 'payment.failed', 'payment.completed']);
      const { journals, exceptions } = await books(initiated.id);
      expect(journals).to.deep.equal([`payment:${initiated.id}:completed`]);
      expect(exceptions).to.deep.equal([{ kind: 'late_success_after_window', run_id: null, expected_amount: 1500 }]);
      // A second report of the same success changes nothing.
      expect(await approveLate(queue, initiated, WINDOW)).to.include({ status: 'completed' });
      expect((await books(initiated.id)).journals).to.have.length(1);
    });
  });

  it("carries the create's decision as initiation made and wrote it, without applying the table again (docs/payments.md#workflow)", async () => {
    const queue = `${TASK_QUEUE}-mismatch-${newId('q_')}`;
    let bumped = 0;
    const worker = await createTimeSkippingWorker(
      env,
      db,
      queue,
      (registry) => registry,
      (activities) => {
        const real = activities as unknown as PaymentActivities;
        const initiatePayment: PaymentActivities['initiatePayment'] = async (input) => {
          const result = await real.initiatePayment(input);
          // Stands for an initiation whose table differs from the workflow's (the workflow would give version 1).
          if (!result.recorded) throw new Error('expected the activity to write the word');
          bumped = (result.recorded.version ?? 0) + 1;
          await db('payments').where({ id: input.payment.id }).update({ version: bumped });
          const steps = result.steps.map((step) => ({
            ...step,
            state: { ...step.state, payment: { ...step.state.payment, version: bumped } },
          }));
          return { ...result, steps, recorded: { ...result.recorded, version: bumped } };
        };
        return { ...activities, initiatePayment };
      },
    );
    const running = worker.run();
    try {
      const created = await payment('+250788000003');
      const input: PaymentWorkflowInput = {
        mode: 'create',
        payment: created,
        reconciliationWindowSeconds: WINDOW_SECONDS,
      };
      const handle = await env.client.workflow.start('paymentWorkflow', {
        taskQueue: queue,
        workflowId: paymentWorkflowId(created.id),
        args: [input],
      });
      const initiated = await handle.executeUpdate(initiatePaymentUpdate, { updateId: INITIATE_UPDATE_ID });
      expect(initiated).to.include({ status: 'pending', version: bumped });
      // The run goes on from the stored row: the customer's approval completes the payment, written once.
      await decideSandboxTransaction(db, initiated.providerReference as string, { status: 'succeeded' }, new Date());
      const result = (await handle.result()) as PaymentSnapshot;
      expect(result).to.include({ status: 'completed', version: bumped + 1 });
      expect(await stored(created.id)).to.include({ status: 'completed', version: bumped + 1 });
      expect(await eventTypes(created.id)).to.deep.equal(['payment.created', 'payment.completed']);
      const events = (await handle.fetchHistory()).events ?? [];
      expect(events.filter((e) => e.workflowTaskFailedEventAttributes)).to.deep.equal([]);
    } finally {
      worker.shutdown();
      await running;
    }
  });

  it('refuses to cancel a completed payment in the validator of a re-opened run only once it has read the payment', async () => {
    const completed = await completedPayment();
    const handle = await reopen(completed.id);
    expect(await updateFailure(handle.executeUpdate(cancelPaymentUpdate, { args: [{}] }))).to.equal(
      'payment_not_cancellable',
    );
    await handle.result();
    expect(updateEvents((await handle.fetchHistory()).events ?? [])).to.have.length.at.most(1);
  });

  it('lets a provider success win over a racing cancel: the cancel fails and the payment completes (docs/payments.md#states)', async () => {
    const created = cardPayment(merchantId, { nowMs: await env.currentTimeMs() });
    const handle = await start({ ...created, nextAction: null });
    const initiated = await waitInitiated(handle);
    // The customer's card was approved at the gateway an instant before the merchant's cancel reached it.
    await decideSandboxTransaction(db, initiated.providerReference as string, { status: 'succeeded' }, new Date());
    expect(await updateFailure(handle.executeUpdate(cancelPaymentUpdate, { args: [{}] }))).to.equal(
      'payment_not_cancellable',
    );
    expect(((await handle.result()) as PaymentSnapshot).status).to.equal('completed');
    expect(await eventTypes(created.id)).to.deep.equal(['payment.created', 'payment.completed']);
  });

  it("judges a refund that reaches a new run before its first task only after the create's first step: the payment it finds completed is refunded (docs/payments.md#refunds-happen-once)", async () => {
    // As after a worker died in the create's first task: the read model may say completed while the next
    // run has not yet re-run that step, and a merchant who saw completed refunds. Here the refund is
    // waiting when the first workflow task is handed out, so both arrive in one activation.
    const queue = `${TASK_QUEUE}-first-step`;
    const created = await payment('+250788000001');
    const input: PaymentWorkflowInput = {
      mode: 'create',
      payment: created,
      reconciliationWindowSeconds: WINDOW_SECONDS,
    };
    const handle = await env.client.workflow.start('paymentWorkflow', {
      taskQueue: queue,
      workflowId: paymentWorkflowId(created.id),
      args: [input],
    });
    const refund = handle.executeUpdate(refundPaymentUpdate, { args: [{ refundId: newId('ref_'), amount: 1500 }] });
    await new Promise((resolve) => setTimeout(resolve, 500)); // the Update is admitted before any worker polls
    const worker = await createTimeSkippingWorker(env, db, queue);
    const running = worker.run();
    try {
      expect(await refund).to.include({ status: 'completed', amount: 1500 });
      expect((await handle.result()) as PaymentSnapshot).to.include({ status: 'refunded', amountRefunded: 1500 });
      expect(await eventTypes(created.id)).to.deep.equal(['payment.created', 'payment.completed', 'refund.completed']);
    } finally {
      worker.shutdown();
      await running;
    }
  });

  it('refunds in parts in one re-opened run, one at a time, and ends refunded (docs/payments.md#refunds-happen-once)', async () => {
    const completed = await completedPayment();
    const handle = await reopen(completed.id);
    const [part, rest] = await Promise.all([
      handle.executeUpdate(refundPaymentUpdate, {
        args: [{ refundId: newId('ref_'), amount: 500, reason: 'one item returned' }],
      }),
      handle.executeUpdate(refundPaymentUpdate, { args: [{ refundId: newId('ref_'), amount: 1000 }] }),
    ]);
    expect(part).to.include({ status: 'completed', amount: 500, reason: 'one item returned' });
    expect(rest).to.include({ status: 'completed', amount: 1000 });
    const result = (await handle.result()) as PaymentSnapshot;
    expect(result).to.include({ status: 'refunded', amountRefunded: 1500 });
    expect(await stored(result.id)).to.include({ status: 'refunded', amountRefunded: 1500 });
    const events = await listEventsForObject(db, result.id);
    expect(events.map((e) => e.event)).to.deep.equal([
      'payment.created',
      'payment.completed',
      'refund.completed',
      'refund.completed',
    ]);
    const amountsAfter = events
      .slice(2)
      .map((e) => (e.data as { payment: { amount_refunded: number; status: string } }).payment);
    // One refund after the other: the first leaves 500 or 1000 refunded, the second all of it.
    const afterEach = amountsAfter.map((p) => p.amount_refunded).sort((x, y) => x - y);
    expect([
      [500, 1500],
      [1000, 1500],
    ]).to.deep.include(afterEach);
    expect(amountsAfter.some((p) => p.status === 'refunded' && p.amount_refunded === 1500)).to.equal(true);
    const refunds = await db('refunds').where({ payment_id: result.id });
    expect(refunds.map((r: { status: string; amount: number }) => [r.status, r.amount]).sort()).to.deep.equal([
      ['completed', 1000],
      ['completed', 500],
    ]);
    await record('payment-refunded-in-parts', handle);
  });

  it('re-opens a settled payment for each refund from the read model, so a later run sees what earlier ones refunded', async () => {
    const completed = await completedPayment();
    const first = await reopen(completed.id);
    await first.executeUpdate(refundPaymentUpdate, { args: [{ refundId: newId('ref_'), amount: 1000 }] });
    expect(((await first.result()) as PaymentSnapshot).amountRefunded).to.equal(1000);
    const second = await reopen(completed.id);
    expect(
      await updateFailure(
        second.executeUpdate(refundPaymentUpdate, { args: [{ refundId: newId('ref_'), amount: 501 }] }),
      ),
    ).to.equal('amount_exceeds_refundable');
    await second.result();
    const third = await reopen(completed.id);
    // A refund id an earlier run settled is not refunded again (a retried request, docs/payments.md#idempotency).
    const refundId = newId('ref_');
    await third.executeUpdate(refundPaymentUpdate, { args: [{ refundId, amount: 500 }] });
    await third.result();
    // Answered with the refund it made, as it stands; nothing reserved or sent again
    // (docs/payments.md#refunds-happen-once).
    const fourth = await reopen(completed.id);
    const again = await fourth.executeUpdate(refundPaymentUpdate, { args: [{ refundId, amount: 500 }] });
    expect(again).to.include({ id: refundId, status: 'completed', amount: 500 });
    expect(((await fourth.result()) as PaymentSnapshot).amountRefunded).to.equal(1500);
    expect((await stored(completed.id))?.amountRefunded).to.equal(1500);
  });

  it('refuses a refund of a payment that is not completed (409 payment_not_refundable)', async () => {
    const handle = await start(await payment('+250788000003'));
    await waitInitiated(handle);
    expect(
      await updateFailure(handle.executeUpdate(refundPaymentUpdate, { args: [{ refundId: newId('ref_') }] })),
    ).to.equal('payment_not_refundable');
    // Left to expire by itself: a mobile-money request cannot be cancelled.
  });

  it('lets exactly one of two refunds racing for the last amount win', async () => {
    const completed = await completedPayment();
    const handle = await reopen(completed.id);
    const outcomes = await Promise.allSettled([
      handle.executeUpdate(refundPaymentUpdate, { args: [{ refundId: newId('ref_'), amount: 1500 }] }),
      handle.executeUpdate(refundPaymentUpdate, { args: [{ refundId: newId('ref_'), amount: 1500 }] }),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).to.have.length(1);
    const rejected = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(['amount_exceeds_refundable', 'payment_not_refundable']).to.include(
      (rejected.reason.cause as ApplicationFailure).type,
    );
    expect((await handle.result()) as PaymentSnapshot).to.include({ status: 'refunded', amountRefunded: 1500 });
    expect(
      await db('refunds').where({ payment_id: completed.id, status: 'completed' }).count('id as n').first(),
    ).to.deep.equal({ n: 1 });
  });

  it('keeps a refund whose answer is unknown pending and reserved, then settles it by asking the provider (docs/payments.md#cancel-and-refund, 0007)', async () => {
    const completed = await completedPayment('+250788000007');
    const handle = await reopen(completed.id);
    const refund = await handle.executeUpdate(refundPaymentUpdate, {
      args: [{ refundId: newId('ref_'), amount: 600 }],
    });
    expect(refund).to.include({ status: 'pending', amount: 600 });
    expect(
      await updateFailure(
        handle.executeUpdate(refundPaymentUpdate, { args: [{ refundId: newId('ref_'), amount: 901 }] }),
      ),
    ).to.equal('amount_exceeds_refundable');
    expect((await stored(completed.id))?.amountRefunded).to.equal(0);
    // The provider decides the refund it took; the workflow's next question finds it.
    await db('sandbox_provider_refunds')
      .where({ idempotency_key: `refund:${refund.id}` })
      .update({ status: 'succeeded' });
    const result = (await handle.result()) as PaymentSnapshot;
    expect(result).to.include({ status: 'completed', amountRefunded: 600 });
    const rows = await db('refunds').where({ payment_id: completed.id });
    expect(rows.map((r: { id: string; status: string }) => [r.id, r.status])).to.deep.equal([[refund.id, 'completed']]);
    expect(await eventTypes(completed.id)).to.deep.equal(['payment.created', 'payment.completed', 'refund.completed']);
    await record('payment-refund-unknown-then-settled', handle);
  });

  it('refuses in its validators a cancel or refund whose reason is not well-formed text: nothing written, nothing sent (docs/limits.md#request-bodies)', async () => {
    const completed = await completedPayment();
    const handle = await reopen(completed.id);
    expect(
      await updateFailure(
        handle.executeUpdate(refundPaymentUpdate, {
          args: [{ refundId: newId('ref_'), amount: 500, reason: 'broken \ud800' }],
        }),
      ),
    ).to.equal('validation_error');
    expect(await db('refunds').where({ payment_id: completed.id })).to.deep.equal([]);
    expect(
      await db('sandbox_provider_refunds').where({ provider_reference: completed.providerReference }),
    ).to.deep.equal([]);
    // The refused Update left the run with nothing to do: it ends, and the next refund re-opens it.
    expect((await handle.result()) as PaymentSnapshot).to.include({ status: 'completed', amountRefunded: 0 });
    const refund = await (
      await reopen(completed.id)
    ).executeUpdate(refundPaymentUpdate, { args: [{ refundId: newId('ref_'), amount: 500, reason: 'broken' }] });
    expect(refund).to.include({ status: 'completed', reason: 'broken' });
    const open = await start(await payment('+250788000003'));
    await waitInitiated(open);
    expect(await updateFailure(open.executeUpdate(cancelPaymentUpdate, { args: [{ reason: '\udc00' }] }))).to.equal(
      'validation_error',
    );
    expect(['pending', 'processing']).to.include((await open.query(getPaymentQuery)).status);
    expect((await open.describe()).status.name).to.equal('RUNNING');
    expect(await eventTypes((await waitInitiated(open)).id)).to.not.include('payment.cancelled');
    // A well-formed cancel of a mobile-money request is refused as well: the operator's prompt cannot be withdrawn.
    expect(await updateFailure(open.executeUpdate(cancelPaymentUpdate, { args: [{}] }))).to.equal(
      'payment_not_cancellable',
    );
    expect(await eventTypes((await waitInitiated(open)).id)).to.not.include('payment.cancelled');
  });

  it('fails a refund the provider refuses, writes refund.failed once and releases its amount (docs/payments.md#cancel-and-refund, 0006)', async () => {
    const completed = await completedPayment('+250788000006');
    const handle = await reopen(completed.id);
    const refund = await handle.executeUpdate(refundPaymentUpdate, {
      args: [{ refundId: newId('ref_'), amount: 1500 }],
    });
    expect(refund).to.include({ status: 'failed', amount: 1500 });
    expect((await handle.result()) as PaymentSnapshot).to.include({ status: 'completed', amountRefunded: 0 });
    expect(await eventTypes(completed.id)).to.deep.equal(['payment.created', 'payment.completed', 'refund.failed']);
    const [failed] = (await listEventsForObject(db, completed.id)).slice(-1);
    expect(failed?.data).to.deep.include({ id: refund.id, status: 'failed', amount: 1500 });
    expect((failed?.data as { payment: object }).payment).to.include({ amount_refunded: 0, amount_refund_pending: 0 });
    expect(await db('refunds').where({ payment_id: completed.id }).select('status')).to.deep.equal([
      { status: 'failed' },
    ]);
    await record('payment-refund-refused', handle);
  });

  it('expires an unconfirmed card payment after 24 hours at the gateway, polling every 60 s with a history that stays short', async function () {
    this.timeout(180_000);
    const created = cardPayment(merchantId, { nowMs: await env.currentTimeMs() });
    const handle = await start({ ...created, nextAction: null });
    const result = (await handle.result()) as PaymentSnapshot;
    expect(result).to.include({ status: 'failed', failureCode: 'expired' });
    const elapsedMs = Date.parse(result.updatedAt) - Date.parse(created.createdAt);
    expect(elapsedMs)
      .to.be.at.least(24 * 3600 * 1000)
      .and.below(24 * 3600 * 1000 + 60_000);
    const history = (await handle.fetchHistory()).events ?? [];
    expect(pollActivities(history).map((p) => p.attempt)).to.deep.equal([1_443]);
    expect(history.length).to.be.below(HISTORY_EVENTS_BEFORE_CONTINUE);
    // one run: never continued as new
    expect(history[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId ?? '').to.equal('');
    expect((await findSandboxTransactionByPayment(db, 'card_gateway', created.id))?.status).to.equal('cancelled');
    expect(await eventTypes(created.id)).to.deep.equal(['payment.created', 'payment.failed']);
  });
});
