/**
 * Payout faults (docs/payouts.md#workflow, docs/payouts.md#rails), against the real PostgreSQL and Temporal:
 * - the worker process killed with SIGKILL after the rail took a payout and before its write committed: a
 *   restarted worker records the rail's answer, the rail holds one transfer, the events are written once;
 * - a rail answering 500, then an unknown answer, a duplicate send, then a reversal of the paid payout: the payout
 *   reaches `returned` with its money back, and nothing is sent after an unknown answer.
 * The ledger invariants (docs/ledger.md#invariants) are asserted after each.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { PayoutRail, PayoutRequest } from '../../src/providers/payout-rail';
import { PayoutRailUnavailable } from '../../src/providers/payout-rail';
import type { PayoutRailRegistry } from '../../src/providers/payout-registry';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { recordHistory } from '../helpers/history';
import { ledgerProblems } from '../helpers/ledger';
import { startApp, WorkerProcess } from '../helpers/processes';
import { startWithPayoutRails } from '../helpers/payouts';
import { getStack, testConfig } from '../helpers/stack';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A merchant of the shared stack with 20,000 RWF collected and available. */
async function fundedMerchant(): Promise<TestDeveloper> {
  const developer = await registerDeveloper();
  const created = await call('/v1/payments', {
    key: developer.key,
    body: { amount: 20_000, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' },
  });
  await waitForPayment(developer.key, created.body.data.id, (p) => p.status === 'completed');
  await call('/v1/sandbox/balance/settle', { key: developer.key, method: 'POST' });
  return developer;
}

async function postJson(baseUrl: string, key: string, path: string, body: unknown) {
  const response = await fetch(baseUrl + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function waitForStatus(baseUrl: string, key: string, id: string, wanted: string, ms: number) {
  const until = Date.now() + ms;
  for (;;) {
    const response = await fetch(`${baseUrl}/v1/payouts/${id}`, { headers: { authorization: `Bearer ${key}` } });
    const { data } = (await response.json()) as any;
    if (data.status === wanted || Date.now() > until) return data;
    await sleep(250);
  }
}

describe('payout faults (docs/payouts.md#workflow)', function () {
  this.timeout(240_000);

  it('a worker killed between the rail taking a payout and its write: recorded once the worker is back, sent once', async () => {
    const taskQueue = `payouts-crash-${randomBytes(4).toString('hex')}`;
    const config = testConfig({
      TEMPORAL_TASK_QUEUE: taskQueue,
      CREATE_WAIT_MS: '1500',
      RATE_LIMIT_MULTIPLIER: '1000',
    });
    const app = await startApp(config);
    const worker = new WorkerProcess(taskQueue);
    const { db } = await getStack();
    try {
      const merchant = await fundedMerchant();
      // A bank account ending 0001: the sandbox bank rail pays it at once; the destination waits for its first
      // payout to be verified, so recording `paid` updates its row.
      const destination = await postJson(app.baseUrl, merchant.key, '/v1/payout_destinations', {
        type: 'bank_account',
        bank_code: 'BKIGRWRW',
        account_number: '00040000120001',
        account_holder_name: 'Kigali Crafts',
      });
      expect(destination.body.data.status).to.equal('pending_verification');
      // Holding that row keeps the write of `paid` waiting after the rail took the payout (a payout's insert only
      // needs the row's key, which this lock leaves alone).
      const hold = await db.transaction();
      await hold.raw('select 1 from payout_destinations where id = ? for no key update', [destination.body.data.id]);
      worker.start();
      const created = await postJson(app.baseUrl, merchant.key, '/v1/payouts', {
        amount: 5_000,
        currency: 'RWF',
        destination: destination.body.data.id,
      });
      expect(created.status).to.equal(201);
      expect(created.body.data.status).to.equal('pending');
      const id = created.body.data.id as string;
      const until = Date.now() + 60_000;
      while (!(await db('sandbox_provider_payouts').where({ payout_id: id }).whereNotNull('taken_at').first())) {
        if (Date.now() > until) throw new Error('the rail never took the payout');
        await sleep(100);
      }
      await sleep(500); // the write of `paid` is now waiting on the held row
      expect((await db('payouts').where({ id }).first()).status).to.equal('pending');
      await worker.kill();
      await hold.rollback();
      expect((await db('payouts').where({ id }).first()).status).to.equal('pending');

      worker.start();
      const paid = await waitForStatus(app.baseUrl, merchant.key, id, 'paid', 90_000);
      expect(paid.status).to.equal('paid');
      expect(await db('sandbox_provider_payouts').where({ payout_id: id })).to.have.length(1);
      const events = await db('events').where({ object_id: id }).select('type');
      expect(events.map((e: { type: string }) => e.type).sort()).to.deep.equal(['payout.created', 'payout.paid']);
      expect((await db('payout_destinations').where({ id: destination.body.data.id }).first()).status).to.equal(
        'verified',
      );
      expect(await ledgerProblems(db, { merchantIds: [merchant.merchantId] })).to.deep.equal([]);
    } finally {
      await worker.kill();
      await app.close();
    }
  });

  it('a rail answering 500, unknown, a duplicate and a reversal: returned, money back, never sent after unknown', async () => {
    const stack = await getStack();
    const sends: { request: PayoutRequest; answeredUnknownBefore: boolean }[] = [];
    const statusCalls: string[] = [];
    let answeredUnknown = false;
    const reference = (request: PayoutRequest) => `scripted_${request.payoutId}`;
    // The scripted MoMo rail: down once, then a 500 (thrown: unknown whether it was sent, the activity retries under
    // the same reference), then the provider's duplicate check answering `unknown`; asked about: unknown, paid, then
    // reversed.
    const rail: PayoutRail = {
      code: 'momo',
      async sendPayout(request) {
        sends.push({ request, answeredUnknownBefore: answeredUnknown });
        if (sends.length === 1) throw new PayoutRailUnavailable('MoMo Disbursement answered 503', 200);
        if (sends.length === 2) throw new Error('MoMo Disbursement answered 500');
        answeredUnknown = true;
        return { outcome: 'unknown', providerReference: reference(request), failureMessage: 'duplicate: 409' };
      },
      async payoutStatus(providerReference) {
        statusCalls.push(providerReference);
        const outcome = statusCalls.length === 1 ? 'unknown' : statusCalls.length === 2 ? 'paid' : 'returned';
        return { outcome, providerReference };
      },
    };
    const payoutRails: PayoutRailRegistry = {
      get: (environment, provider) => (provider === 'momo' ? rail : undefined),
    };
    const app = await startWithPayoutRails('payouts-rail', payoutRails);
    try {
      const merchant = await fundedMerchant();
      const before = (await call('/v1/balance', { key: merchant.key })).body.data.available[0].amount as number;
      const destination = await postJson(app.baseUrl, merchant.key, '/v1/payout_destinations', {
        type: 'mobile_money',
        phone_number: '+250788004321',
      });
      const created = await postJson(app.baseUrl, merchant.key, '/v1/payouts', {
        amount: 4_000,
        currency: 'RWF',
        destination: destination.body.data.id,
      });
      expect(created.status).to.equal(201);
      const id = created.body.data.id as string;
      const returned = await waitForStatus(app.baseUrl, merchant.key, id, 'returned', 120_000);
      expect(returned.status).to.equal('returned');
      expect(returned.timeline.map((s: { status: string }) => s.status)).to.deep.equal([
        'pending',
        'in_transit',
        'paid',
        'returned',
      ]);
      // Every send named the same payout; none came after the unknown answer.
      expect(new Set(sends.map((s) => s.request.payoutId))).to.deep.equal(new Set([id]));
      expect(sends.filter((s) => s.answeredUnknownBefore)).to.deep.equal([]);
      expect(statusCalls.every((r) => r === `scripted_${id}`)).to.equal(true);
      expect((await call('/v1/balance', { key: merchant.key })).body.data.available[0].amount).to.equal(before);
      const events = await stack.db('events').where({ object_id: id }).select('type');
      expect(events.map((e: { type: string }) => e.type).sort()).to.deep.equal([
        'payout.created',
        'payout.paid',
        'payout.returned',
      ]);
      expect(await ledgerProblems(stack.db, { merchantIds: [merchant.merchantId] })).to.deep.equal([]);
      await recordHistory('payout-down-unknown-paid-returned', `payout:${id}`);
    } finally {
      await app.stop();
    }
  });
});
