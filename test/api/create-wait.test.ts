/**
 * The create's wait during a worker outage (docs/payments.md#workflow): with no worker on the task
 * queue, `POST /v1/payments` answers the payment as recorded (`pending`, no next action) once
 * CREATE_WAIT_MS has passed, not when the Temporal server ends its own wait on the Update (~20 s),
 * and the payment completes once a worker runs. The API writes no payment row meanwhile (the workflow is its
 * only writer); GET answers the payment from the workflow's start. The real API app and a worker process
 * (`src/worker.ts`) on a task queue of their own.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createDb } from '../../src/db/knex';
import { registerDeveloper } from '../helpers/http';
import { useAppAndWorker, WorkerProcess } from '../helpers/processes';
import { testConfig } from '../helpers/stack';

const CREATE_WAIT_MS = 2_000;

describe('create with no worker running (docs/payments.md#workflow)', function () {
  this.timeout(120_000);
  const taskQueue = `create-wait-${randomBytes(4).toString('hex')}`;
  const config = testConfig({
    TEMPORAL_TASK_QUEUE: taskQueue,
    CREATE_WAIT_MS: String(CREATE_WAIT_MS),
    RATE_LIMIT_MULTIPLIER: '1000',
  });
  const worker = new WorkerProcess(taskQueue);
  const app = useAppAndWorker(config, worker);

  it('answers the payment as recorded once CREATE_WAIT_MS has passed, and the payment completes once a worker runs', async () => {
    const developer = await registerDeveloper();
    const auth = { authorization: `Bearer ${developer.key}` };
    const started = Date.now();
    const response = await fetch(`${app.baseUrl}/v1/payments`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': `wait-${taskQueue}` },
      body: JSON.stringify({
        amount: 1500,
        currency: 'RWF',
        payment_method: 'mobile_money',
        phone_number: '+250788000001',
      }),
    });
    const elapsedMs = Date.now() - started;
    const payment = ((await response.json()) as { data: { id: string; status: string; next_action: unknown } }).data;
    expect(response.status).to.equal(201);
    expect(payment).to.include({ status: 'pending', next_action: null });
    // The server holds an Update-with-Start ~20 s when no worker polls; the answer must not wait for that.
    expect(elapsedMs)
      .to.be.at.least(CREATE_WAIT_MS - 200)
      .and.below(CREATE_WAIT_MS + 6_000);

    // One writer per row (docs/payments.md#workflow): the API wrote no payment row, and GET answers the payment from
    // the workflow's start until its activities write it.
    const db = createDb(config.DATABASE_URL, 1);
    try {
      expect(await db('payments').where({ id: payment.id }).first()).to.equal(undefined);
    } finally {
      await db.destroy();
    }
    const early = await fetch(`${app.baseUrl}/v1/payments/${payment.id}`, { headers: auth });
    expect(early.status).to.equal(200);
    expect(((await early.json()) as { data: { id: string; status: string } }).data).to.include({
      id: payment.id,
      status: 'pending',
    });
    const foreign = await registerDeveloper();
    const hidden = await fetch(`${app.baseUrl}/v1/payments/${payment.id}`, {
      headers: { authorization: `Bearer ${foreign.key}` },
    });
    expect(hidden.status, "another merchant's payment is not found").to.equal(404);

    worker.start();
    let status = payment.status;
    for (const deadline = Date.now() + 60_000; status !== 'completed' && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      status = (
        (await (await fetch(`${app.baseUrl}/v1/payments/${payment.id}`, { headers: auth })).json()) as {
          data: { status: string };
        }
      ).data.status;
    }
    expect(status).to.equal('completed');
  });
});
