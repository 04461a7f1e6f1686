/**
 * Cancel and refund Updates have a deadline (docs/limits.md#update-deadlines): with no
 * worker running, `POST …/cancel` and `…/refund` answer 503 `service_unavailable` with
 * `Retry-After` once UPDATE_DEADLINE_MS has passed, instead of hanging. The server may still hold
 * the Update; once a worker runs, a retry with the same `Idempotency-Key` gets the one cancel and
 * the one refund that were made, never a second. The real API app and a worker process
 * (`src/worker.ts`) on a task queue of their own.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { registerDeveloper } from '../helpers/http';
import { useAppAndWorker, WorkerProcess } from '../helpers/processes';
import { getStack, testConfig } from '../helpers/stack';

const DEADLINE_MS = 3_000;

describe('Update deadline: cancel and refund with no worker running (docs/limits.md#update-deadlines)', function () {
  this.timeout(180_000);
  const taskQueue = `payments-deadline-${randomBytes(4).toString('hex')}`;
  const config = testConfig({
    TEMPORAL_TASK_QUEUE: taskQueue,
    UPDATE_DEADLINE_MS: String(DEADLINE_MS),
    IDEMPOTENCY_LEASE_MS: '500',
    RATE_LIMIT_MULTIPLIER: '1000',
  });
  const worker = new WorkerProcess(taskQueue);
  const app = useAppAndWorker(config, worker);

  async function post(
    key: string,
    path: string,
    body: unknown,
    idempotencyKey: string,
  ): Promise<{ status: number; retryAfter: string | null; body: any; ms: number }> {
    const started = Date.now();
    const response = await fetch(`${app.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'idempotency-key': idempotencyKey,
      },
      body: JSON.stringify(body),
    });
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      body: await response.json(),
      ms: Date.now() - started,
    };
  }

  async function payment(key: string, id: string): Promise<any> {
    const response = await fetch(`${app.baseUrl}/v1/payments/${id}`, { headers: { authorization: `Bearer ${key}` } });
    return ((await response.json()) as { data: unknown }).data;
  }

  async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (done(value) || Date.now() > deadline) return value;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  function expectDeadlineAnswer(answer: { status: number; retryAfter: string | null; body: any; ms: number }): void {
    expect(answer.status, JSON.stringify(answer.body)).to.equal(503);
    expect(answer.body.error.code).to.equal('service_unavailable');
    expect(answer.body.error.message).to.match(/retry it with the same Idempotency-Key/);
    expect(answer.retryAfter).to.match(/^\d+$/);
    expect(answer.ms)
      .to.be.at.least(DEADLINE_MS - 500)
      .and.below(DEADLINE_MS + 3_000);
  }

  it('answers 503 with Retry-After at the deadline, and a retry with the same key cancels and refunds once', async () => {
    const developer = await registerDeveloper();
    worker.start();
    const order = { amount: 1500, currency: 'RWF', payment_method: 'mobile_money' };
    const paid = await post(
      developer.key,
      '/v1/payments',
      { ...order, phone_number: '+250788000001' },
      `create-paid-${taskQueue}`,
    );
    const waiting = await post(
      developer.key,
      '/v1/payments',
      // A card payment: its gateway can withdraw it, and it waits a day to be confirmed (a mobile-money prompt cannot
      // be withdrawn, docs/payments.md#cancel-and-refund).
      { amount: 2500, currency: 'USD', payment_method: 'card' },
      `create-waiting-${taskQueue}`,
    );
    expect([paid.status, waiting.status]).to.deep.equal([201, 201]);
    const paidId = paid.body.data.id as string;
    const waitingId = waiting.body.data.id as string;
    expect(
      (
        await until(
          () => payment(developer.key, paidId),
          (p) => p.status === 'completed',
          30_000,
        )
      ).status,
    ).to.equal('completed');

    await worker.kill();
    const refundKey = `refund-${taskQueue}`;
    const cancelKey = `cancel-${taskQueue}`;
    expectDeadlineAnswer(await post(developer.key, `/v1/payments/${paidId}/refund`, { amount: 500 }, refundKey));
    expectDeadlineAnswer(
      await post(developer.key, `/v1/payments/${waitingId}/cancel`, { reason: 'customer left' }, cancelKey),
    );
    expect((await payment(developer.key, paidId)).amount_refunded).to.equal(0);
    expect((await payment(developer.key, waitingId)).status).to.be.oneOf(['pending', 'processing']);

    worker.start();
    const retry = (path: string, body: unknown, key: string) =>
      until(
        () => post(developer.key, path, body, key),
        (answer) => answer.status !== 503,
        90_000,
      );
    const refund = await retry(`/v1/payments/${paidId}/refund`, { amount: 500 }, refundKey);
    expect(refund.status, JSON.stringify(refund.body)).to.equal(201);
    expect(refund.body.data).to.include({ amount: 500, status: 'completed' });
    const cancel = await retry(`/v1/payments/${waitingId}/cancel`, { reason: 'customer left' }, cancelKey);
    expect(cancel.status, JSON.stringify(cancel.body)).to.equal(200);
    expect(cancel.body.data).to.include({ id: waitingId, status: 'cancelled' });

    // Once each: one refund row, the amount refunded once; the same key again replays the same refund.
    const again = await post(developer.key, `/v1/payments/${paidId}/refund`, { amount: 500 }, refundKey);
    expect(again.body.data.id).to.equal(refund.body.data.id);
    const { db } = await getStack();
    expect(await db('refunds').where({ payment_id: paidId }).count<{ n: number }[]>('id as n')).to.deep.equal([
      { n: 1 },
    ]);
    expect((await payment(developer.key, paidId)).amount_refunded).to.equal(500);
  });
});
