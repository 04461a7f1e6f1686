/**
 * A refund whose workflow loses workflow tasks still answers by its deadline (docs/limits.md#update-deadlines). The
 * refund race test's burst stalled once in about 200 bursts: the server lost a workflow task a worker held ("Workflow
 * task not found" when the worker completed it) and gave it out again only at the workflow task time-out, 10 s by
 * default; the Updates that met the run closing afterwards re-opened it one after another, and the last answered 503
 * at the 15 s deadline. Here a task is lost for certain: a completed payment's run has ended, the refund re-opens it
 * on a task queue no worker polls yet, and the test takes that run's workflow task twice and never answers it, as a
 * worker whose completions the server refuses. Then a real worker polls, and the refund, sent without an
 * Idempotency-Key (its 503 could not be retried safely), must answer 201 within the default UPDATE_DEADLINE_MS.
 * And an Update whose answer was lost is sent again by the client; when the run that made the refund has closed
 * meanwhile, the new run must answer the refund it made, not reserve its amount again (in the burst that reservation
 * refused the other refunds of the last amount with 409 while it lasted).
 */
import { randomBytes } from 'node:crypto';
import { WithStartWorkflowOperation, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { expect } from 'chai';
import { createActivities } from '../../src/activities';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import { createMailer } from '../../src/lib/mailer';
import { providerRegistryFromConfig } from '../../src/providers/registry';
import { paymentWorkflowId, refundPaymentUpdate } from '../../src/workflows/messages';
import { activityRuns } from '../helpers/history';
import { call, registerDeveloper, waitForPayment } from '../helpers/http';
import { startApp } from '../helpers/processes';
import { getStack, testConfig, workflowBundle } from '../helpers/stack';

const INSTANT = { amount: 1500, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' };

describe('Refunds through lost workflow tasks and lost Update answers (docs/limits.md#update-deadlines)', function () {
  this.timeout(120_000);
  const taskQueue = `lost-task-${randomBytes(4).toString('hex')}`;
  // The default UPDATE_DEADLINE_MS (15 s), as in production; the re-opened run goes to the test's own queue.
  const config = testConfig({
    TEMPORAL_TASK_QUEUE: taskQueue,
    RATE_LIMIT_MULTIPLIER: '1000',
    SANDBOX_REFUND_UNKNOWN_MS: '4000',
  });
  let app: Awaited<ReturnType<typeof startApp>>;
  let connection: NativeConnection;
  let worker: Worker;
  let running: Promise<void> | undefined;

  before(async () => {
    app = await startApp(config);
    const { db, client } = await getStack();
    connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
    // Created now (bundled, connected), polling only once run.
    worker = await Worker.create({
      connection,
      taskQueue,
      workflowBundle: await workflowBundle(),
      activities: createActivities({
        db,
        providers: providerRegistryFromConfig(createSandboxLedger(db), config),
        temporal: client,
        mailer: createMailer(config),
        config,
      }),
    });
  });

  after(async () => {
    if (running) {
      worker.shutdown();
      await running;
    }
    await connection?.close();
    await app?.close();
  });

  /** Takes the next workflow task of the test's queue and never answers it; the workflow id it was for. */
  async function loseWorkflowTask(): Promise<string | undefined> {
    const { client } = await getStack();
    const task = await client.withDeadline(Date.now() + 30_000, () =>
      client.workflowService.pollWorkflowTaskQueue({
        namespace: client.options.namespace,
        taskQueue: { name: taskQueue },
        identity: 'a worker whose completions are lost',
      }),
    );
    return task.workflowExecution?.workflowId ?? undefined;
  }

  it('answers a refund 201 completed within the deadline while its run loses two workflow tasks', async () => {
    const { client } = await getStack();
    const developer = await registerDeveloper();
    const created = await call('/v1/payments', { key: developer.key, body: INSTANT });
    expect(created.status).to.equal(201);
    const id = created.body.data.id as string;
    await waitForPayment(developer.key, id, (p) => p.status === 'completed');
    // The settled payment's run ends; the refund re-opens it on the test's queue.
    for (let status = 'RUNNING'; status === 'RUNNING';) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await client.workflow.getHandle(paymentWorkflowId(id)).describe()).status.name;
    }
    const refund = call(`/v1/payments/${id}/refund`, {
      baseUrl: app.baseUrl,
      key: developer.key,
      body: { amount: 500 },
    });
    expect(await loseWorkflowTask()).to.equal(paymentWorkflowId(id));
    // Given out again only once the workflow task time-out passed, and lost again.
    expect(await loseWorkflowTask()).to.equal(paymentWorkflowId(id));
    running = worker.run();
    const answer = await refund;
    expect(answer.status, JSON.stringify(answer.body)).to.equal(201);
    expect(answer.body.data.status).to.equal('completed');
    const payment = await waitForPayment(developer.key, id, (p) => p.amount_refunded === 500);
    expect(payment).to.include({ amount_refunded: 500, status: 'completed' });
  });

  it('answers a refund Update sent again to a later run, after the run that made it closed, with that refund: no second reservation (docs/payments.md#refunds-happen-once)', async () => {
    // The client re-sends an Update-with-Start whose answer it lost; Temporal knows an Update id within one run only,
    // so once another request has re-opened the payment the re-sent Update meets a run that never saw it.
    const { client } = await getStack();
    running ??= worker.run();
    const developer = await registerDeveloper();
    const post = (path: string, body: unknown) => call(path, { baseUrl: app.baseUrl, key: developer.key, body });
    const created = await post('/v1/payments', { ...INSTANT, phone_number: '+250788000007' });
    const id = created.body.data.id as string;
    await waitForPayment(developer.key, id, (p) => p.status === 'completed');
    const handle = client.workflow.getHandle(paymentWorkflowId(id));
    const closed = async () => {
      for (let status = 'RUNNING'; status === 'RUNNING';) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = (await handle.describe()).status.name;
      }
    };
    await closed();
    const first = await post(`/v1/payments/${id}/refund`, { amount: 100 });
    expect(first.status, JSON.stringify(first.body)).to.equal(201);
    const refundId = first.body.data.id as string;
    await waitForPayment(developer.key, id, (p) => p.amount_refunded === 100, 30_000);
    await closed();
    const { runId: before } = await handle.describe();
    // Another refund re-opens the payment; its answer stays unknown for SANDBOX_REFUND_UNKNOWN_MS, so the run stays.
    const second = post(`/v1/payments/${id}/refund`, { amount: 100 });
    for (let runId = before; runId === before;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      runId = (await handle.describe()).runId;
    }
    const again = await client.workflow.executeUpdateWithStart(refundPaymentUpdate, {
      updateId: refundId,
      args: [{ refundId, amount: 100 }],
      startWorkflowOperation: new WithStartWorkflowOperation('paymentWorkflow', {
        taskQueue,
        workflowId: paymentWorkflowId(id),
        args: [{ mode: 'reopen', paymentId: id, reconciliationWindowSeconds: 86_400, refundWindowSeconds: 86_400 }],
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      }),
    });
    expect(again).to.include({ id: refundId, status: 'completed', amount: 100 });
    expect((await second).status).to.equal(201);
    await closed();
    // The later run wrote and sent the second refund only.
    const history = await handle.fetchHistory();
    const sends = activityRuns(history.events ?? []).filter((run) => run.type === 'recordRefundPending');
    expect(sends).to.have.length(1);
    const payment = await waitForPayment(developer.key, id, (p) => p.amount_refunded === 200, 30_000);
    expect(payment).to.include({ amount_refund_pending: 0, status: 'completed' });
  });
});
