/**
 * kill -9 of the API between accepting a payout and its workflow's start (docs/payouts.md#workflow): the API
 * (`src/server.ts`) and the worker (`src/worker.ts`) run as separate processes on a task queue of their own. A payout
 * request is sent to the API, which is killed with SIGKILL at a moment of the request (before it reached Temporal,
 * while its Update-with-Start is under way, after); the API is started again and the merchant retries the request
 * with the same `Idempotency-Key`, as it would on a dropped connection. The API writes no payout row, so nothing is
 * left half-done: each key ends as one payout, paid, reserved and paid out once in the ledger, taken by the rail once,
 * with one `payout.created` and one `payout.paid`; nothing is lost, and nothing is sent twice.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createDb, type Db } from '../../src/db/knex';
import { ledgerProblems } from '../helpers/ledger';
import { fundedMerchant, wallet } from '../helpers/payouts';
import { ApiProcess, WorkerProcess } from '../helpers/processes';
import { testConfig } from '../helpers/stack';
import { FAULT_SETTINGS } from './burst';
import { removePayoutSweepSchedule } from '../../src/services/payout-service';
import { PAYOUT_SWEEP_SCHEDULE_ID } from '../../src/workflows/payout-messages';
import { getStack } from '../helpers/stack';

/** When the API is killed after the request was sent, in milliseconds: before, during and after the start. */
const KILL_AFTER_MS = [0, 40, 150, 400, 1500];

async function postPayout(baseUrl: string, key: string, idempotencyKey: string, destination: string) {
  const response = await fetch(`${baseUrl}/v1/payouts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    body: JSON.stringify({ amount: 1_000, currency: 'RWF', destination }),
  });
  return { status: response.status, body: (await response.json()) as { data: { id: string; status: string } } };
}

describe('kill -9 of the API between accepting a payout and its workflow start (docs/payouts.md#workflow)', function () {
  this.timeout(300_000);
  const taskQueue = `payout-kill-${randomBytes(4).toString('hex')}`;
  let api: ApiProcess;
  let worker: WorkerProcess;
  let db: Db;

  before(async () => {
    db = createDb(testConfig().DATABASE_URL, 2);
    api = await ApiProcess.create(taskQueue, FAULT_SETTINGS);
    worker = new WorkerProcess(taskQueue, { ...FAULT_SETTINGS, PROVIDER_CALLBACK_BASE_URL: api.baseUrl });
    worker.start();
    await api.start();
  });

  after(async () => {
    await api?.kill();
    await worker?.kill();
    await db?.destroy();
  });

  it('loses no payout and sends none twice: the retried request answers the one payout, paid once', async () => {
    const merchant = await fundedMerchant(500_000);
    const destination = await wallet(merchant.key, '0001');
    const keys: string[] = [];
    for (const delay of KILL_AFTER_MS) {
      const key = `payout-kill-${delay}-${randomBytes(3).toString('hex')}`;
      keys.push(key);
      const first = postPayout(api.baseUrl, merchant.key, key, destination).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, delay));
      await api.kill();
      await first;
      await api.start();
      const retried = await postPayout(api.baseUrl, merchant.key, key, destination);
      expect(retried.status, JSON.stringify(retried.body)).to.be.oneOf([200, 201]);
    }
    const until = Date.now() + 120_000;
    for (;;) {
      const rows = (await db('payouts').where({ merchant_id: merchant.merchantId })) as { status: string }[];
      if (rows.length >= keys.length && rows.every((r) => r.status === 'paid')) break;
      if (Date.now() > until) throw new Error(`payouts not all paid: ${JSON.stringify(rows)}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const payouts = (await db('payouts').where({ merchant_id: merchant.merchantId }).select('id')) as { id: string }[];
    expect(payouts, 'one payout per key').to.have.length(keys.length);
    for (const { id } of payouts) {
      expect(await db('sandbox_provider_payouts').where({ payout_id: id }), `rail sends of ${id}`).to.have.length(1);
      const journals = (await db('ledger_journals').where('cause', 'like', `payout:${id}:%`).orderBy('cause')) as {
        cause: string;
      }[];
      expect(journals.map((j) => j.cause)).to.deep.equal([`payout:${id}:paid`, `payout:${id}:reserved`]);
      const events = (await db('events').where({ object_id: id }).orderBy('type')) as { type: string }[];
      expect(events.map((e) => e.type)).to.deep.equal(['payout.created', 'payout.paid']);
    }
    expect(await ledgerProblems(db, { merchantIds: [merchant.merchantId] })).to.deep.equal([]);
  });
});

describe('the payout sweeper of earlier versions (docs/payouts.md#workflow)', () => {
  it('is deleted where it is left, and nothing happens where it is not', async () => {
    const { client } = await getStack();
    await client.schedule.create({
      scheduleId: PAYOUT_SWEEP_SCHEDULE_ID,
      spec: { intervals: [{ every: '1 hour' }] },
      action: { type: 'startWorkflow', workflowType: 'payoutSweepWorkflow', args: [], taskQueue: 'unused' },
      state: { paused: true },
    });
    expect(await removePayoutSweepSchedule(client)).to.equal(true);
    expect(await removePayoutSweepSchedule(client)).to.equal(false);
  });
});
