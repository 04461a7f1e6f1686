/**
 * The payout sweeper (docs/payouts.md#workflow) against the real stack: a payout stored with its reservation by the
 * API's own create, whose workflow was never started (the API process killed between the two, played by a Temporal
 * client that dies on the call), is left alone within the grace period, then started by the sweeper under the
 * payout's workflow id while a late start by the API races it; the payout is paid once, with one transfer at the
 * rail, and the ledger invariants hold. The Schedule that runs the sweeper is created once and left alone after.
 */
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import { expect } from 'chai';
import type { Principal } from '../../src/domain/principal';
import {
  createPayout,
  ensurePayoutSweepSchedule,
  PAYOUT_SWEEP_GRACE_SECONDS,
  type PayoutServiceDeps,
} from '../../src/services/payout-service';
import { PAYOUT_SWEEP_SCHEDULE_ID, payoutWorkflowId, type PayoutSweepInput } from '../../src/workflows/payout-messages';
import { call } from '../helpers/http';
import { ledgerProblems } from '../helpers/ledger';
import { fundedMerchant, waitForPayout, wallet } from '../helpers/payouts';
import { getStack } from '../helpers/stack';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A Temporal client of an API process killed before its call reached Temporal: every start dies. */
function killedBeforeStart(client: Client): Client {
  const killed = () => Promise.reject(new Error('the API process was killed before starting the workflow'));
  return {
    connection: client.connection,
    workflow: { executeUpdateWithStart: killed, start: killed, signalWithStart: killed },
  } as unknown as Client;
}

describe('payout sweeper (docs/payouts.md#workflow)', function () {
  this.timeout(120_000);

  /** Runs the sweeper once (as its Schedule does) with `graceSeconds`; the ids of the payouts it started. */
  async function sweep(graceSeconds: number): Promise<string[]> {
    const { client, config } = await getStack();
    return client.workflow.execute('payoutSweepWorkflow', {
      taskQueue: config.TEMPORAL_TASK_QUEUE,
      workflowId: `payout-sweep-test-${Date.now()}-${Math.random()}`,
      args: [{ graceSeconds } satisfies PayoutSweepInput],
    });
  }

  /**
   * A funded merchant's payout of `amount` RWF to a `0001` wallet (paid at once), stored by the API's create with its
   * reservation, the API then killed before its workflow started.
   */
  async function strandedPayout(amount: number, seed: string) {
    const { db, client, config } = await getStack();
    const merchant = await fundedMerchant(20_000);
    const destination = await wallet(merchant.key, '0001');
    const owner: Principal = {
      merchantId: merchant.merchantId,
      developerId: 'dev_test',
      keyId: 'key_test',
      environment: 'sandbox',
      via: 'key',
    };
    const request = { amount, currency: 'RWF' as const, destination };
    const dying: PayoutServiceDeps = { db, temporal: killedBeforeStart(client), config };
    const refused = await createPayout(dying, owner, request, null, seed).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(refused?.message).to.match(/is recorded but could not be sent right now/);
    const [stored] = (await db('payouts').where({ merchant_id: merchant.merchantId }).select('id', 'status')) as {
      id: string;
      status: string;
    }[];
    expect(stored?.status).to.equal('pending');
    return { merchant, owner, request, id: stored!.id };
  }

  it('starts the workflow of a payout whose API died before starting it, once, and it is paid', async () => {
    const { db, client, config } = await getStack();
    const seed = `sweeper-${Date.now()}`;
    const { merchant, owner, request, id } = await strandedPayout(1_000, seed);
    const described = await client.workflow
      .getHandle(payoutWorkflowId(id))
      .describe()
      .then(
        () => 'running',
        (error: unknown) => (error instanceof WorkflowNotFoundError ? 'never started' : String(error)),
      );
    expect(described).to.equal('never started');
    const balance = await call('/v1/balance', { key: merchant.key });
    expect(balance.body.data.available[0].amount).to.equal(merchant.available - 1_010);

    // Within the grace period the sweeper leaves it to the API.
    expect(await sweep(PAYOUT_SWEEP_GRACE_SECONDS)).not.to.include(id);
    await sleep(1_100);
    // After it, the sweeper starts it while a late start of the API (the client's retry with its key) races it.
    const live: PayoutServiceDeps = { db, temporal: client, config };
    const [swept, retried] = await Promise.all([sweep(1), createPayout(live, owner, request, null, seed)]);
    expect(retried.id).to.equal(id);
    expect(swept.length, 'started by the sweeper, or found running after the API started it').to.be.at.most(1);
    const paid = await waitForPayout(merchant.key, id, (p) => p.status === 'paid');
    expect(paid.timeline.map((s: { status: string }) => s.status)).to.deep.equal(['pending', 'in_transit', 'paid']);
    expect(await sweep(1)).not.to.include(id);

    // One workflow id, one transfer at the rail, the reservation once, and the ledger balanced.
    expect(await db('sandbox_provider_payouts').where({ payout_id: id })).to.have.length(1);
    const transactions = await call(`/v1/balance_transactions?source=${id}`, { key: merchant.key });
    expect(transactions.body.data.balance_transactions.map((t: { type: string }) => t.type)).to.deep.equal(['payout']);
    expect(await ledgerProblems(db, { merchantIds: [merchant.merchantId] })).to.deep.equal([]);
  });

  it('starts a payout the API never started even when nothing else comes for it', async () => {
    const { db } = await getStack();
    const { merchant, id } = await strandedPayout(500, 'alone');
    await sleep(1_100);
    expect(await sweep(1)).to.include(id);
    expect((await waitForPayout(merchant.key, id, (p) => p.status === 'paid')).status).to.equal('paid');
    expect(await db('sandbox_provider_payouts').where({ payout_id: id })).to.have.length(1);
    expect(await ledgerProblems(db, { merchantIds: [merchant.merchantId] })).to.deep.equal([]);
  });

  it('runs every minute from a Temporal Schedule created once, which an operator may pause', async () => {
    const { client, config } = await getStack();
    await client.schedule
      .getHandle(PAYOUT_SWEEP_SCHEDULE_ID)
      .delete()
      .catch(() => undefined);
    try {
      expect(await ensurePayoutSweepSchedule(client, config.TEMPORAL_TASK_QUEUE)).to.equal(true);
      const handle = client.schedule.getHandle(PAYOUT_SWEEP_SCHEDULE_ID);
      await handle.pause('operator');
      expect(await ensurePayoutSweepSchedule(client, config.TEMPORAL_TASK_QUEUE)).to.equal(false);
      const described = await handle.describe();
      expect(described.state.paused).to.equal(true);
      expect(described.action).to.include({ type: 'startWorkflow', workflowType: 'payoutSweepWorkflow' });
      expect(described.spec.intervals?.[0]?.every).to.equal(60_000);
    } finally {
      await client.schedule
        .getHandle(PAYOUT_SWEEP_SCHEDULE_ID)
        .delete()
        .catch(() => undefined);
    }
  });
});
