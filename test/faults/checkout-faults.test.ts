/**
 * Checkout sessions' faults on the real stack (Temporal, PostgreSQL, the sandbox simulator and its callbacks;
 * docs/checkout.md#states), on a worker and app of their own whose attempts expire after 6 s
 * (EXPIRY_MOBILE_MONEY_SECONDS) and whose activities can be made to fail:
 * - a duplicate: the first attempt (`0004`) fails at its expiry, the second (`0001`) completes the session, then the
 *   first one's provider success arrives late (docs/payments.md#late-successes); the session stays completed by the
 *   second, the first is refunded at once in full with `reason: duplicate` (MTN MoMo refunds), and the books show
 *   both payments and the refund; where the provider refuses that refund, the reconciliation exception
 *   `duplicate_checkout_payment` is recorded instead, and the money stays collected, also when it refuses it later,
 *   after answering it pending (as an M-Pesa reversal is decided);
 * - an attempt whose payment cannot be started (the activity fails for good) fails, and the session takes a new one;
 * - a payment's word to its session that fails is retried until it lands;
 * - a session whose workflow ended (expired by the merchant) hears a failed attempt's late success: its workflow is
 *   started again (Signal-with-Start) and the session completes.
 */
import { randomBytes } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { expect } from 'chai';
import { createActivities } from '../../src/activities';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import { createMailer } from '../../src/lib/mailer';
import { providerRegistryFromConfig, type ProviderRegistry } from '../../src/providers/registry';
import { call, registerDeveloper, type TestDeveloper } from '../helpers/http';
import { ledgerProblems } from '../helpers/ledger';
import { startApp } from '../helpers/processes';
import { getStack, testConfig, workflowBundle } from '../helpers/stack';
import { checkoutWorkflowId } from '../../src/workflows/checkout-messages';

/** Polls `read` until `predicate` holds (`timeoutMs` at most); answers the last value read. */
async function until<T>(read: () => Promise<T>, predicate: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (predicate(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('checkout faults on the real stack (docs/checkout.md#states)', function () {
  this.timeout(180_000);
  let app: Awaited<ReturnType<typeof startApp>>;
  let worker: Worker;
  let running: Promise<void>;
  let connection: NativeConnection;
  /** Sessions whose attempts' payments cannot be started, and how often the start was asked. */
  const startFails = new Set<string>();
  let startCalls = 0;
  /** Sessions whose payments' word fails twice before it lands, and how often it was tried. */
  const tellFails = new Set<string>();
  const tellCalls = new Map<string, number>();
  /** Provider references whose refunds the provider refuses, as MTN MoMo answers a refund it will not make. */
  const refundRefused = new Set<string>();
  /** Provider references whose refunds the provider takes `pending`, and refuses when asked about them. */
  const refundRefusedLater = new Set<string>();

  before(async () => {
    const stack = await getStack();
    const taskQueue = `checkout-dup-${randomBytes(4).toString('hex')}`;
    const base = { TEMPORAL_TASK_QUEUE: taskQueue, EXPIRY_MOBILE_MONEY_SECONDS: '6', RATE_LIMIT_MULTIPLIER: '1000' };
    app = await startApp(testConfig(base));
    // The simulator calls this app back, as a provider calls the URL it is given.
    const config = testConfig({ ...base, PROVIDER_CALLBACK_BASE_URL: app.baseUrl });
    const registry = providerRegistryFromConfig(createSandboxLedger(stack.db), config);
    const providers: ProviderRegistry = {
      get(environment, code) {
        const adapter = registry.get(environment, code);
        if (!adapter) return adapter;
        return {
          ...adapter,
          async refund(request) {
            if (refundRefusedLater.has(request.providerReference)) return { status: 'pending' };
            if (!refundRefused.has(request.providerReference)) return adapter.refund(request);
            return { status: 'failed', failureMessage: 'the provider refused the refund' };
          },
          async fetchRefund(request) {
            if (!refundRefusedLater.has(request.providerReference)) return adapter.fetchRefund(request);
            return { status: 'failed', failureMessage: 'the provider reversed nothing' };
          },
        };
      },
    };
    const activities = createActivities({
      db: stack.db,
      providers,
      mailer: createMailer(config),
      temporal: stack.client,
      config,
    });
    const faulty: typeof activities = {
      ...activities,
      async startCheckoutPayment(input) {
        if (!startFails.has(input.session.id)) return activities.startCheckoutPayment(input);
        startCalls += 1;
        throw ApplicationFailure.create({
          type: 'provider_rejected',
          message: 'the provider refused the request',
          nonRetryable: true,
        });
      },
      async tellCheckoutSession(input) {
        const tried = (tellCalls.get(input.sessionId) ?? 0) + 1;
        tellCalls.set(input.sessionId, tried);
        if (tellFails.has(input.sessionId) && tried <= 2) throw new Error('Temporal is unreachable');
        return activities.tellCheckoutSession(input);
      },
    };
    connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
    worker = await Worker.create({
      connection,
      taskQueue,
      workflowBundle: await workflowBundle(),
      activities: faulty,
    });
    running = worker.run();
  });

  after(async () => {
    await app.close();
    worker.shutdown();
    await running;
    await connection.close();
  });

  /** A request to this describe's app. */
  const at = (path: string, body?: object, key?: string) =>
    call(path, {
      baseUrl: app.baseUrl,
      body,
      key,
      headers: body && key ? { 'idempotency-key': `cf-${Math.random()}` } : {},
    });

  /** A new session of `dev` on this describe's app, and its page's attempt and reads. */
  async function newSession(dev: TestDeveloper) {
    const created = await at(
      '/v1/checkout/sessions',
      { amount: 4_000, currency: 'RWF', description: 'Term fees', success_url: 'https://school.example/paid' },
      dev.key,
    );
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const id = created.body.data.id as string;
    return {
      id,
      attempt: (phone: string) =>
        at(`/v1/checkout/sessions/${id}/attempts`, { payment_method: 'mobile_money', phone_number: phone }),
      read: () => at(`/v1/checkout/sessions/${id}`, undefined, dev.key),
      payment: (paymentId: string) => at(`/v1/payments/${paymentId}`, undefined, dev.key),
    };
  }

  /**
   * A session of `dev` completed by its second attempt (`0001`) after its first (`0004`) failed at its expiry; the
   * first one's provider success comes 5 s later. `firstStarted` runs once the first attempt's payment is initiated.
   * @returns the session id, the late (first) payment and the paid (second) one
   */
  async function duplicateOf(
    dev: TestDeveloper,
    firstStarted: (payment: string) => Promise<void> = async () => {},
  ): Promise<{ id: string; late: string; paid: string }> {
    const { id, attempt, payment } = await newSession(dev);
    const first = await attempt('0788 000 004');
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    const late = first.body.data.payment as string;
    await firstStarted(late);
    const expired = await until(
      () => payment(late),
      (p) => p.body.data.status === 'failed',
    );
    expect(expired.body.data).to.include({ status: 'failed', failure_code: 'expired' });

    // The session hears the failure, then takes the second attempt, which completes it.
    const second = await until(
      () => attempt('0788 000 001'),
      (a) => a.status !== 409,
    );
    expect(second.status, JSON.stringify(second.body)).to.equal(201);
    const paid = second.body.data.payment as string;
    const complete = await until(
      () => at(`/v1/checkout/sessions/${id}`, undefined, dev.key),
      (s) => s.body.data.status === 'complete',
    );
    expect(complete.body.data).to.include({ status: 'complete', payment: paid, attempts_count: 2 });
    return { id, late, paid };
  }

  it('refunds the late success of a failed attempt after another completed the session, with reason duplicate', async () => {
    const { db } = await getStack();
    const dev = await registerDeveloper();
    const { id, late, paid } = await duplicateOf(dev);
    const payment = (paymentId: string) => at(`/v1/payments/${paymentId}`, undefined, dev.key);

    // The first attempt's late success, then its refund with reason duplicate.
    const refunds = await until(
      () => db('refunds').where({ payment_id: late }).select('id', 'status', 'reason', 'amount'),
      (rows) => rows.some((r) => r.status === 'completed'),
      40_000,
    );
    expect(refunds.map(({ id: _id, ...r }) => r)).to.deep.equal([
      { status: 'completed', reason: 'duplicate', amount: 4_000 },
    ]);
    const lateNow = (await payment(late)).body.data;
    expect(lateNow).to.include({ amount_refunded: 4_000 });
    expect(lateNow.reconciled_at).to.be.a('string');
    expect((await payment(paid)).body.data).to.include({ status: 'completed', amount_refunded: 0 });

    // Still completed by the second attempt; one completed event; no exception, since it was refunded.
    const after = (await at(`/v1/checkout/sessions/${id}`, undefined, dev.key)).body.data;
    expect(after).to.include({ status: 'complete', payment: paid, attempts_count: 2 });
    const events = await call('/v1/developer/events?limit=100', { key: dev.key });
    const types = (events.body.data.events as { event: string; data: { id: string } }[])
      .filter((e) => [id, late, paid, refunds[0]?.id].includes(e.data.id))
      .map((e) => e.event)
      .sort();
    expect(types.filter((t) => t === 'checkout.session.completed')).to.have.length(1);
    expect(types).to.include('refund.completed');
    expect(
      await db('reconciliation_exceptions').where({ object_id: late, kind: 'duplicate_checkout_payment' }).select('id'),
    ).to.deep.equal([]);
    expect(await ledgerProblems(db, { merchantIds: [dev.merchantId] })).to.deep.equal([]);
  });

  for (const later of [false, true])
    it(`records the exception duplicate_checkout_payment when the provider refuses the duplicate's refund${
      later ? ' later, after answering it pending' : ''
    }`, async () => {
      const { db } = await getStack();
      const dev = await registerDeveloper();
      const { id, late, paid } = await duplicateOf(dev, async (payment) => {
        const row = await until(
          () => db('payments').where({ id: payment }).first('provider_reference'),
          (r) => Boolean(r?.provider_reference),
        );
        (later ? refundRefusedLater : refundRefused).add(row.provider_reference as string);
      });

      // The late success is booked, its refund sent and refused: the money stays collected, and an operator is told.
      const exceptions = await until(
        () =>
          db('reconciliation_exceptions').where({ object_id: late, kind: 'duplicate_checkout_payment' }).select('*'),
        (rows) => rows.length > 0,
        40_000,
      );
      expect(exceptions).to.have.length(1);
      const refunds = await db('refunds').where({ payment_id: late }).select('status', 'reason', 'amount');
      expect(refunds).to.deep.equal([{ status: 'failed', reason: 'duplicate', amount: 4_000 }]);
      const lateNow = (await at(`/v1/payments/${late}`, undefined, dev.key)).body.data;
      expect(lateNow).to.include({ status: 'completed', amount_refunded: 0 });
      const session = (await at(`/v1/checkout/sessions/${id}`, undefined, dev.key)).body.data;
      expect(session).to.include({ status: 'complete', payment: paid, attempts_count: 2 });
      expect(await ledgerProblems(db, { merchantIds: [dev.merchantId] })).to.deep.equal([]);
      // The session's settlement ran once: it does not wait, failing, for the provider to decide a refund it took; the
      // refund's own outcome recorded the exception.
      expect(await settlementAttempts(id)).to.deep.equal([1]);
    });

  /** The attempts of `settleDuplicateCheckoutPayment` that completed in the session's last run, once one did. */
  async function settlementAttempts(sessionId: string): Promise<number[]> {
    const { client } = await getStack();
    const handle = client.workflow.getHandle(checkoutWorkflowId(sessionId));
    return until(
      async () => {
        const events = (await handle.fetchHistory()).events ?? [];
        const scheduled = new Set(
          events
            .filter(
              (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'settleDuplicateCheckoutPayment',
            )
            .map((e) => String(e.eventId)),
        );
        return events
          .map((e) => e.activityTaskStartedEventAttributes)
          .filter((started) => started && scheduled.has(String(started.scheduledEventId)))
          .map((started) => started!.attempt ?? 0);
      },
      (attempts) => attempts.length > 0,
      40_000,
    );
  }

  it('fails an attempt whose payment cannot be started, and the session takes a new one', async () => {
    const { db } = await getStack();
    const dev = await registerDeveloper();
    const session = await newSession(dev);
    startFails.add(session.id);
    const refused = await session.attempt('0788 000 001');
    expect(refused.status, JSON.stringify(refused.body)).to.be.within(500, 599);
    expect(startCalls).to.equal(1);
    const read = await until(session.read, (s) => s.body.data.attempts_count === 1);
    const page = await at(`/v1/checkout/sessions/${session.id}/public`);
    expect(page.body.data).to.include({ status: 'open', attempt_in_progress: false, attempts_left: 9 });
    expect(read.body.data).to.include({ status: 'open', payment: null });

    startFails.delete(session.id);
    const second = await session.attempt('0788 000 001');
    expect(second.status, JSON.stringify(second.body)).to.equal(201);
    const complete = await until(session.read, (s) => s.body.data.status === 'complete');
    expect(complete.body.data).to.include({ status: 'complete', payment: second.body.data.payment, attempts_count: 2 });
    expect(await db('payments').where({ checkout_session: session.id }).select('id')).to.deep.equal([
      { id: second.body.data.payment },
    ]);
  });

  it("retries a payment's word to its session until it lands", async () => {
    const dev = await registerDeveloper();
    const session = await newSession(dev);
    tellFails.add(session.id);
    const started = await session.attempt('0788 000 001');
    expect(started.status, JSON.stringify(started.body)).to.equal(201);
    const complete = await until(session.read, (s) => s.body.data.status === 'complete');
    expect(complete.body.data).to.include({ status: 'complete', payment: started.body.data.payment });
    expect(tellCalls.get(session.id)).to.equal(3);
  });

  it("starts an ended session's workflow again for a late success, and the session completes", async () => {
    const { client } = await getStack();
    const dev = await registerDeveloper();
    const session = await newSession(dev);
    const first = await session.attempt('0788 000 004');
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    const late = first.body.data.payment as string;
    await until(
      () => session.payment(late),
      (p) => p.body.data.status === 'failed',
    );
    // The merchant expires it once the session heard the failure; its workflow then ends.
    const expired = await until(
      () => at(`/v1/checkout/sessions/${session.id}/expire`, {}, dev.key),
      (e) => e.status !== 409,
    );
    expect(expired.status, JSON.stringify(expired.body)).to.equal(200);
    const handle = client.workflow.getHandle(`checkout:${session.id}`);
    const ended = await handle.describe();
    await handle.result();
    expect((await client.workflow.getHandle(`checkout:${session.id}`, ended.runId).describe()).status.name).to.equal(
      'COMPLETED',
    );

    // 5 s after its expiry the first attempt collects after all: a new run hears it, and the session completes.
    const complete = await until(session.read, (s) => s.body.data.status === 'complete', 40_000);
    expect(complete.body.data).to.include({ status: 'complete', payment: late, attempts_count: 1 });
    const now = await handle.describe();
    expect(now.runId).to.not.equal(ended.runId);
    const events = await call('/v1/developer/events?limit=100', { key: dev.key });
    const types = (events.body.data.events as { event: string; data: { id: string } }[])
      .filter((e) => e.data.id === session.id)
      .map((e) => e.event)
      .sort();
    expect(types).to.deep.equal(['checkout.session.completed', 'checkout.session.expired']);
  });
});
