/**
 * A checkout session's attempt survives its worker (docs/checkout.md#states): the API (`src/server.ts`) and the worker
 * (`src/worker.ts`) run as their own processes on a task queue of their own, as `npm start` runs them; while an
 * attempt waits for the payer's approval (sandbox `0005`: it completes after the approval delay, and the provider then
 * repeats its answer), the worker is killed with SIGKILL and started again. The session completes with that attempt's
 * payment, nothing is lost, and the payer was prompted once: one provider request, one payment, one
 * `checkout.session.completed`.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createDb, type Db } from '../../src/db/knex';
import { call, registerDeveloper } from '../helpers/http';
import { ledgerProblems } from '../helpers/ledger';
import { ApiProcess, WorkerProcess } from '../helpers/processes';
import { testConfig } from '../helpers/stack';
import { FAULT_SETTINGS } from './burst';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('checkout: a worker killed while an attempt waits (docs/checkout.md#states)', function () {
  this.timeout(180_000);
  const taskQueue = `checkout-kill-${randomBytes(4).toString('hex')}`;
  // A longer approval delay, so that the worker is down while the payer is being asked.
  const settings = { ...FAULT_SETTINGS, SANDBOX_APPROVAL_DELAY_MS: '4000' };
  let api: ApiProcess;
  let worker: WorkerProcess;
  let db: Db;

  before(async () => {
    db = createDb(testConfig().DATABASE_URL, 2);
    api = await ApiProcess.create(taskQueue, settings);
    worker = new WorkerProcess(taskQueue, { ...settings, PROVIDER_CALLBACK_BASE_URL: api.baseUrl });
    worker.start();
    await api.start();
  });

  after(async () => {
    await api?.kill();
    await worker?.kill();
    await db?.destroy();
  });

  it('loses nothing and prompts nobody twice', async () => {
    const { key, merchantId } = await registerDeveloper();
    const baseUrl = api.baseUrl;
    const created = await call('/v1/checkout/sessions', {
      baseUrl,
      key,
      body: { amount: 1500, currency: 'RWF', description: 'Kill test', success_url: 'https://shop.example/paid' },
      headers: { 'idempotency-key': `kill-${randomBytes(4).toString('hex')}` },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const sessionId = created.body.data.id as string;

    const attempt = await call(`/v1/checkout/sessions/${sessionId}/attempts`, {
      baseUrl,
      body: { payment_method: 'mobile_money', phone_number: '0788 000 005' },
    });
    expect(attempt.status, JSON.stringify(attempt.body)).to.equal(201);
    const paymentId = attempt.body.data.payment as string;

    await worker.kill();
    await sleep(1_500);
    // While the worker is down, the payer's second attempt is still refused: one attempt at a time.
    const second = await call(`/v1/checkout/sessions/${sessionId}/attempts`, {
      baseUrl,
      body: { payment_method: 'mobile_money', phone_number: '0788 000 001' },
    });
    expect(second.status, JSON.stringify(second.body)).to.be.oneOf([409, 503]);
    worker.start();

    let session: { status: string; payment: string | null } | undefined;
    for (const deadline = Date.now() + 90_000; Date.now() < deadline && session?.status !== 'complete';) {
      await sleep(500);
      session = (await call(`/v1/checkout/sessions/${sessionId}`, { baseUrl, key })).body.data;
    }
    expect(session).to.deep.include({ status: 'complete', payment: paymentId });

    const payments = await db('payments').where({ checkout_session: sessionId }).select('id', 'status');
    expect(payments).to.deep.equal([{ id: paymentId, status: 'completed' }]);
    const prompts = await db('sandbox_provider_transactions').where({ payment_id: paymentId }).select('status');
    expect(prompts, 'provider requests of the attempt').to.have.length(1);
    const events = await db('events')
      .whereIn('object_id', [sessionId, paymentId])
      .select('type')
      .then((rows: { type: string }[]) => rows.map((row) => row.type).sort());
    expect(events.filter((type) => type === 'checkout.session.completed')).to.have.length(1);
    expect(events.filter((type) => type === 'payment.completed')).to.have.length(1);
    expect(await ledgerProblems(db, { merchantIds: [merchantId], againstSimulators: true })).to.deep.equal([]);
  });
});
