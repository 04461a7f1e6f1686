/**
 * A checkout session's duplicate on the real stack (Temporal, PostgreSQL, the sandbox simulator and its callbacks;
 * docs/checkout.md#states): the first attempt (`0004`) fails at its expiry, the second (`0001`) completes the session,
 * then the first one's provider success arrives late (docs/payments.md#late-successes). The session stays completed
 * by the second; the first is refunded at once in full with `reason: duplicate` (MTN MoMo refunds), and the books show
 * both payments and the refund. Attempts expire after 6 s here (their own worker and app, EXPIRY_MOBILE_MONEY_SECONDS).
 */
import { randomBytes } from 'node:crypto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { expect } from 'chai';
import { createActivities } from '../../src/activities';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import { createMailer } from '../../src/lib/mailer';
import { providerRegistryFromConfig } from '../../src/providers/registry';
import { call, registerDeveloper } from '../helpers/http';
import { ledgerProblems } from '../helpers/ledger';
import { startApp } from '../helpers/processes';
import { getStack, testConfig, workflowBundle } from '../helpers/stack';

/** Polls `read` until `predicate` holds (`timeoutMs` at most); answers the last value read. */
async function until<T>(read: () => Promise<T>, predicate: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (predicate(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('a checkout duplicate on the real stack (docs/checkout.md#states)', function () {
  this.timeout(180_000);
  let app: Awaited<ReturnType<typeof startApp>>;
  let worker: Worker;
  let running: Promise<void>;
  let connection: NativeConnection;

  before(async () => {
    const stack = await getStack();
    const taskQueue = `checkout-dup-${randomBytes(4).toString('hex')}`;
    const base = { TEMPORAL_TASK_QUEUE: taskQueue, EXPIRY_MOBILE_MONEY_SECONDS: '6', RATE_LIMIT_MULTIPLIER: '1000' };
    app = await startApp(testConfig(base));
    // The simulator calls this app back, as a provider calls the URL it is given.
    const config = testConfig({ ...base, PROVIDER_CALLBACK_BASE_URL: app.baseUrl });
    connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
    worker = await Worker.create({
      connection,
      taskQueue,
      workflowBundle: await workflowBundle(),
      activities: createActivities({
        db: stack.db,
        providers: providerRegistryFromConfig(createSandboxLedger(stack.db), config),
        mailer: createMailer(config),
        temporal: stack.client,
        config,
      }),
    });
    running = worker.run();
  });

  after(async () => {
    await app.close();
    worker.shutdown();
    await running;
    await connection.close();
  });

  it('refunds the late success of a failed attempt after another completed the session, with reason duplicate', async () => {
    const { db } = await getStack();
    const dev = await registerDeveloper();
    const at = (path: string, body?: object, key?: string) =>
      call(path, {
        baseUrl: app.baseUrl,
        body,
        key,
        headers: body && key ? { 'idempotency-key': `dup-${Math.random()}` } : {},
      });
    const created = await at(
      '/v1/checkout/sessions',
      { amount: 4_000, currency: 'RWF', description: 'Term fees', success_url: 'https://school.example/paid' },
      dev.key,
    );
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const id = created.body.data.id as string;
    const attempt = (phone: string) =>
      at(`/v1/checkout/sessions/${id}/attempts`, { payment_method: 'mobile_money', phone_number: phone });
    const payment = (paymentId: string) => at(`/v1/payments/${paymentId}`, undefined, dev.key);

    const first = await attempt('0788 000 004');
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    const late = first.body.data.payment as string;
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
});
