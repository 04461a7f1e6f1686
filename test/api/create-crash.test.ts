/**
 * A worker that dies between the provider's acceptance and the read-model write (docs/payments.md#idempotency,
 * docs/payments.md#workflow): a worker process whose initiation hangs once the provider took the
 * request is killed with SIGKILL. The create's wait runs out and answers the payment as recorded
 * (`pending`, no next action); once the dead worker's workflow task times out, the initiation
 * (a local activity of that task, docs/payments.md#refunds-happen-once) runs again on another
 * worker with the same idempotency key, finds the provider's request, and the payment reaches its
 * true state with one provider request; the create retried with the same key returns the same payment.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../../src/activities';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import { createMailer } from '../../src/lib/mailer';
import { providerRegistryFromConfig } from '../../src/providers/registry';
import { registerDeveloper } from '../helpers/http';
import { startApp, WorkerProcess } from '../helpers/processes';
import { getStack, testConfig, workflowBundle } from '../helpers/stack';

describe("worker lost between the provider's acceptance and the read-model write (docs/payments.md#idempotency, docs/payments.md#workflow)", function () {
  this.timeout(120_000);
  const taskQueue = `create-crash-${randomBytes(4).toString('hex')}`;
  const config = testConfig({ TEMPORAL_TASK_QUEUE: taskQueue, RATE_LIMIT_MULTIPLIER: '1000', CREATE_WAIT_MS: '3000' });
  let app: Awaited<ReturnType<typeof startApp>>;
  let baseUrl: string;
  const workers: { worker: Worker; running: Promise<void>; connection: NativeConnection }[] = [];
  const dying = new WorkerProcess(
    taskQueue,
    { RATE_LIMIT_MULTIPLIER: '1000' },
    'test/helpers/hanging-initiation-worker.ts',
  );

  /** A worker on the test's queue, in this process. */
  async function startWorker(): Promise<Worker> {
    const { db, client } = await getStack();
    const providers = providerRegistryFromConfig(createSandboxLedger(db), config);
    const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
    const worker = await Worker.create({
      connection,
      taskQueue,
      workflowBundle: await workflowBundle(),
      activities: createActivities({ db, providers, temporal: client, mailer: createMailer(config), config }),
    });
    workers.push({ worker, running: worker.run(), connection });
    return worker;
  }

  before(async () => {
    app = await startApp(config);
    baseUrl = app.baseUrl;
  });

  after(async () => {
    await dying.kill();
    for (const { worker, running, connection } of workers) {
      worker.shutdown();
      await running;
      await connection.close();
    }
    await app.close();
  });

  it('reaches the true state with one provider request, and the retried create returns the same payment', async () => {
    const { db } = await getStack();
    const developer = await registerDeveloper();
    dying.start();
    const create = () =>
      fetch(`${baseUrl}/v1/payments`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${developer.key}`,
          'content-type': 'application/json',
          'idempotency-key': 'order-4711',
        },
        body: JSON.stringify({
          amount: 1500,
          currency: 'RWF',
          payment_method: 'mobile_money',
          phone_number: '+250788000001',
        }),
      });
    const first = await create();
    expect(first.status).to.equal(201);
    const payment = ((await first.json()) as { data: { id: string; status: string; next_action: unknown } }).data;
    // The wait ran out: the payment as recorded, pending, without the provider's next action.
    expect(payment).to.include({ status: 'pending', next_action: null });
    // The dying worker (its start may outlast the create's wait) records the payment and gets the provider's
    // acceptance, then hangs.
    const accepted = async () =>
      Number(
        (
          await db('sandbox_provider_transactions')
            .where({ payment_id: payment.id })
            .count<{ n: number }[]>('payment_id as n')
        )[0]?.n,
      );
    for (let tries = 0; (await accepted()) === 0; tries += 1) {
      if (!dying.running || tries > 300) throw new Error(`the hanging worker took no initiation: ${dying.stderr}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(await accepted()).to.equal(1);
    expect((await db('payments').where({ id: payment.id }).first('provider_reference'))?.provider_reference).to.equal(
      null,
    );

    await dying.kill();
    await startWorker();
    const again = await create();
    expect(again.status).to.equal(201);
    expect(((await again.json()) as { data: { id: string } }).data.id).to.equal(payment.id);

    for (let status = ''; status !== 'completed';) {
      await new Promise((r) => setTimeout(r, 250));
      status = ((await db('payments').where({ id: payment.id }).first('status')) as { status: string }).status;
    }
    expect(
      await db('sandbox_provider_transactions')
        .where({ payment_id: payment.id })
        .count<{ n: number }[]>('payment_id as n'),
    ).to.deep.equal([{ n: 1 }]);
    const events = await db('events').where({ object_id: payment.id }).select('type');
    expect(events.map((e: { type: string }) => e.type).sort()).to.deep.equal(['payment.completed', 'payment.created']);
    expect(
      await db('payments').where({ merchant_id: developer.merchantId }).count<{ n: number }[]>('id as n'),
    ).to.deep.equal([{ n: 1 }]);
  });
});
