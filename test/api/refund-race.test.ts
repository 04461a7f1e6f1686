/**
 * Refunds happen once and are counted once (docs/payments.md#refunds-happen-once): 20 concurrent `POST …/refund
 * {amount:
 * 100}` without idempotency keys on a completed 1500 RWF payment, repeated for 20 rounds, and once
 * more with the worker process killed mid-burst (each refund retried with its Idempotency-Key after a
 * 503, as a merchant would). After each round: no 5xx, nothing beyond the rest
 * reached the provider, and the provider's ledger = the completed refunds = the payment's
 * `amount_refunded` = the `refund.completed` events.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Db } from '../../src/db/knex';
import { ledgerProblems } from '../helpers/ledger';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { useAppAndWorker, WorkerProcess } from '../helpers/processes';
import { getStack, testConfig } from '../helpers/stack';

const ROUNDS = 20;
const CONCURRENT = 20;
const INSTANT = { amount: 1500, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' };

/** What one burst of refunds answered: HTTP statuses and error codes. */
interface Burst {
  statuses: number[];
  codes: string[];
  /** The error messages of the answers that were errors ('' for the others), for the failure's message. */
  messages: string[];
}

/**
 * Fires `CONCURRENT` refunds of 100 at once at `paymentId` through `baseUrl`. With `retry`, each
 * refund carries an Idempotency-Key of its own and is sent again with it after a 503 (as a merchant
 * does when the service answers `service_unavailable` with Retry-After); the final answer counts.
 */
async function burst(baseUrl: string, key: string, paymentId: string, retry = false): Promise<Burst> {
  const answers = await Promise.all(
    Array.from({ length: CONCURRENT }, async () => {
      const idempotencyKey = randomBytes(8).toString('hex');
      for (;;) {
        const response = await fetch(`${baseUrl}/v1/payments/${paymentId}/refund`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            ...(retry ? { 'idempotency-key': idempotencyKey } : {}),
          },
          body: JSON.stringify({ amount: 100 }),
        });
        const body = (await response.json()) as {
          data?: { status: string };
          error?: { code: string; message: string };
        };
        if (retry && response.status === 503) {
          await new Promise((r) =>
            setTimeout(r, Math.min(Number(response.headers.get('retry-after') ?? '1'), 5) * 1000),
          );
          continue;
        }
        return {
          status: response.status,
          code: body.error?.code ?? body.data?.status ?? '',
          message: body.error?.message ?? '',
        };
      }
    }),
  );
  return {
    statuses: answers.map((a) => a.status),
    codes: answers.map((a) => a.code),
    messages: answers.map((a) => a.message),
  };
}

/** Asserts the books of `paymentId` agree everywhere, once its workflow has settled every refund. */
async function assertBooks(db: Db, key: string, baseUrl: string, paymentId: string, answers: Burst): Promise<void> {
  expect(
    answers.statuses.filter((s) => s >= 500),
    `5xx answers: ${answers.codes.join(',')}; ${answers.messages.filter((_, i) => (answers.statuses[i] ?? 0) >= 500).join(' | ')}`,
  ).to.deep.equal([]);
  for (const [i, status] of answers.statuses.entries()) {
    if (status === 201) expect(answers.codes[i]).to.be.oneOf(['completed', 'pending']);
    else expect(answers.codes[i]).to.be.oneOf(['amount_exceeds_refundable', 'payment_not_refundable']);
  }
  const response = await fetch(`${baseUrl}/v1/payments/${paymentId}`, { headers: { authorization: `Bearer ${key}` } });
  const payment = ((await response.json()) as { data: { amount_refunded: number; status: string; provider: string } })
    .data;
  const { provider_reference: reference } = (await db('payments')
    .where({ id: paymentId })
    .first('provider_reference')) as { provider_reference: string };
  const ledger = await db('sandbox_provider_refunds').where({ provider_reference: reference }).select('amount');
  const refunds = await db('refunds').where({ payment_id: paymentId }).select('status', 'amount');
  const events = await db('events').where({ object_id: paymentId, type: 'refund.completed' }).select('id');
  const providerTotal = ledger.reduce((sum: number, row: { amount: number }) => sum + Number(row.amount), 0);
  const completed = refunds.filter((r: { status: string }) => r.status === 'completed');
  // Nothing beyond the rest ever reached the provider, so it refused nothing.
  expect(refunds.filter((r: { status: string }) => r.status !== 'completed')).to.deep.equal([]);
  expect(providerTotal).to.equal(1500);
  expect(completed.reduce((sum: number, r: { amount: number }) => sum + Number(r.amount), 0)).to.equal(1500);
  expect(payment).to.include({ amount_refunded: 1500, status: 'refunded' });
  expect(events).to.have.length(completed.length);
  expect(answers.statuses.filter((s) => s === 201).length).to.equal(completed.length);
  // The ledger agrees too (docs/ledger.md#invariants): each refund reserved and completed once, clearing = simulator.
  const { merchant_id: merchantId } = (await db('payments').where({ id: paymentId }).first('merchant_id')) as {
    merchant_id: string;
  };
  expect(await ledgerProblems(db, { merchantIds: [merchantId], againstSimulators: true })).to.deep.equal([]);
}

describe('20 concurrent refunds on one payment, 20 rounds (docs/payments.md#refunds-happen-once)', function () {
  this.timeout(600_000);
  let developer: TestDeveloper;

  before(async () => {
    developer = await registerDeveloper();
  });

  it(`refunds exactly the payment in ${ROUNDS} of ${ROUNDS} rounds: no 5xx, provider = refunds = amount_refunded = events`, async () => {
    const { db, baseUrl } = await getStack();
    for (let round = 0; round < ROUNDS; round += 1) {
      const created = await call('/v1/payments', { key: developer.key, body: INSTANT });
      expect(created.status).to.equal(201);
      const id = created.body.data.id as string;
      expect((await waitForPayment(developer.key, id, (p) => p.status === 'completed')).status).to.equal('completed');
      const answers = await burst(baseUrl, developer.key, id);
      await waitForPayment(developer.key, id, (p) => p.status === 'refunded', 30_000);
      await assertBooks(db, developer.key, baseUrl, id, answers);
    }
  });
});

describe('20 concurrent refunds with the worker killed mid-burst (docs/payments.md#refunds-happen-once)', function () {
  this.timeout(300_000);
  const taskQueue = `refund-crash-${randomBytes(4).toString('hex')}`;
  const config = testConfig({ TEMPORAL_TASK_QUEUE: taskQueue, RATE_LIMIT_MULTIPLIER: '1000' });
  const worker = new WorkerProcess(taskQueue);
  const app = useAppAndWorker(config, worker);

  it('loses and doubles nothing: every answer is 2xx or 4xx, and the books agree after the restart', async () => {
    const { db } = await getStack();
    const developer = await registerDeveloper();
    worker.start();
    const created = await fetch(`${app.baseUrl}/v1/payments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${developer.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(INSTANT),
    });
    expect(created.status).to.equal(201);
    const id = ((await created.json()) as { data: { id: string } }).data.id;
    for (let status = ''; status !== 'completed';) {
      await new Promise((r) => setTimeout(r, 200));
      // No row yet while the create answered from its request (the worker had not written it within CREATE_WAIT_MS).
      status = ((await db('payments').where({ id }).first('status')) as { status: string } | undefined)?.status ?? '';
    }
    // The Updates wait for the new worker past their deadline: 503 with Retry-After, then the retry with the same key.
    const answers = burst(app.baseUrl, developer.key, id, true);
    // Kill the worker once the first refunds have reached the provider, then start a new one.
    for (let sent = 0; sent === 0;) {
      await new Promise((r) => setTimeout(r, 20));
      sent = (await db('refunds').where({ payment_id: id }).count<{ n: number }[]>('id as n'))[0]?.n ?? 0;
    }
    await worker.kill();
    worker.start();
    const answered = await answers;
    const deadline = Date.now() + 120_000;
    for (let status = ''; status !== 'refunded' && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 250));
      // No row yet while the create answered from its request (the worker had not written it within CREATE_WAIT_MS).
      status = ((await db('payments').where({ id }).first('status')) as { status: string } | undefined)?.status ?? '';
    }
    await assertBooks(db, developer.key, app.baseUrl, id, answered);
  });
});
