/**
 * Durability: the worker process killed with SIGKILL while payments are waiting on their provider,
 * then started again. Every payment still reaches its final state, and nothing is written twice:
 * one provider transaction, one `payment.created` and one `payment.completed` per payment (docs/payments.md#events).
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { registerDeveloper } from '../helpers/http';
import { useAppAndWorker, WorkerProcess } from '../helpers/processes';
import { getStack, testConfig } from '../helpers/stack';
import { freePort } from '../../scripts/lib/ports';

describe('worker killed with SIGKILL while payments are pending (docs/payments.md#workflow, docs/payments.md#events)', function () {
  this.timeout(180_000);
  const taskQueue = `payments-crash-${randomBytes(4).toString('hex')}`;
  const config = testConfig({
    TEMPORAL_TASK_QUEUE: taskQueue,
    SANDBOX_APPROVAL_DELAY_MS: '6000',
    RATE_LIMIT_MULTIPLIER: '1000',
  });
  const worker = new WorkerProcess(taskQueue, { SANDBOX_APPROVAL_DELAY_MS: '6000' });
  const app = useAppAndWorker(config, worker);

  /**
   * The payment's status, or `initiated` while it is `pending` with the provider's prompt (the provider has it, the
   * customer has not approved).
   */
  async function status(key: string, id: string): Promise<string> {
    const response = await fetch(`${app.baseUrl}/v1/payments/${id}`, { headers: { authorization: `Bearer ${key}` } });
    const { data } = (await response.json()) as { data: { status: string; next_action: unknown } };
    return data.status === 'pending' && data.next_action ? 'initiated' : data.status;
  }

  async function waitAll(key: string, ids: string[], wanted: string, timeoutMs: number): Promise<string[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const statuses = await Promise.all(ids.map((id) => status(key, id)));
      if (statuses.every((s) => s === wanted) || Date.now() >= deadline) return statuses;
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  it('finishes every payment after a restart, writing nothing twice', async () => {
    const developer = await registerDeveloper();
    worker.start();
    const ids: string[] = [];
    for (let i = 0; i < 8; i += 1) {
      const response = await fetch(`${app.baseUrl}/v1/payments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${developer.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          amount: 1000 + i,
          currency: 'RWF',
          payment_method: 'mobile_money',
          phone_number: `+25078812${String(3400 + i)}`,
        }),
      });
      expect(response.status).to.equal(201);
      ids.push(((await response.json()) as { data: { id: string } }).data.id);
    }
    expect(await waitAll(developer.key, ids, 'initiated', 60_000)).to.deep.equal(Array(ids.length).fill('initiated'));

    await worker.kill();
    await new Promise((r) => setTimeout(r, 1000));
    expect(await waitAll(developer.key, ids, 'initiated', 0)).to.deep.equal(Array(ids.length).fill('initiated'));

    const metricsPort = await freePort();
    worker.start(metricsPort);
    expect(await waitAll(developer.key, ids, 'completed', 90_000)).to.deep.equal(Array(ids.length).fill('completed'));
    // The restarted worker exposes the Temporal SDK's metrics (docs/operations.md#metrics).
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).to.match(/temporal_.*task_queue="payments-crash-/);

    const { db } = await getStack();
    const events = await db('events').whereIn('object_id', ids).select('object_id', 'type');
    for (const id of ids) {
      expect(
        events
          .filter((e: { object_id: string }) => e.object_id === id)
          .map((e: { type: string }) => e.type)
          .sort(),
      ).to.deep.equal(['payment.completed', 'payment.created']);
    }
    const transactions = await db('sandbox_provider_transactions')
      .whereIn('payment_id', ids)
      .count('payment_id as n')
      .first();
    expect(transactions).to.deep.equal({ n: ids.length });
  });
});
