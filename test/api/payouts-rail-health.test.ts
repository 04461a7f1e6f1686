/**
 * Payouts and their rail's health against the real stack (docs/payouts.md#rail-down, docs/availability.md#payouts):
 * - every payout the rail decided is recorded once as an outcome of operation `payout` under its rail's key, with its
 *   side (a success, the payee's failure), and a cancelled payout never;
 * - a payout to a rail whose status an operator set `down` is not sent: it stays `pending` with a `pending_reason`
 *   naming the rail and the operator's reason, may be cancelled while it waits (nothing sent, funds back), and is sent
 *   once the status is cleared; an automatic payout waits the same way.
 * The ledger invariants (docs/ledger.md#invariants) are asserted after each.
 */
import { expect } from 'chai';
import { setOverride } from '../../src/db/provider-health';
import type { HealthKey } from '../../src/domain/provider-health';
import { call } from '../helpers/http';
import { keepHistory, recordHistory } from '../helpers/history';
import { ledgerProblems } from '../helpers/ledger';
import { fundedMerchant, waitForPayout, wallet } from '../helpers/payouts';
import { getStack } from '../helpers/stack';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Airtel's payout rail in Rwanda: the sandbox rail no other payout test uses, so setting it down stops only ours. */
const AIRTEL_RW: HealthKey = { provider: 'mobile_money_b', country: 'RW', operation: 'payout' };

async function airtelWallet(key: string, ending: string): Promise<string> {
  const added = await call('/v1/payout_destinations', {
    key,
    body: { type: 'mobile_money', phone_number: `+25073000${ending}` },
  });
  expect(added.status, JSON.stringify(added.body)).to.equal(201);
  expect(added.body.data.provider).to.equal('mobile_money_b');
  return added.body.data.id as string;
}

async function available(key: string): Promise<number> {
  const balance = await call('/v1/balance', { key });
  return (balance.body.data.available[0]?.amount as number | undefined) ?? 0;
}

async function outcomesOf(ids: string[]) {
  const { db } = await getStack();
  return (await db('provider_outcomes').whereIn('object_id', ids).orderBy('object_id')) as {
    object_id: string;
    environment: string;
    provider: string;
    country: string;
    operation: string;
    merchant_id: string;
    outcome: string;
    side: string | null;
    duration_ms: string;
    never_reached: boolean;
  }[];
}

async function transfersOf(ids: string[]): Promise<number> {
  const { db } = await getStack();
  return (await db('sandbox_provider_payouts').whereIn('payout_id', ids)).length;
}

async function setRail(status: 'down' | null): Promise<void> {
  const { db } = await getStack();
  const override = status ? { status, reason: 'Airtel Rwanda maintenance', by: 'ops@test' } : null;
  await setOverride(db, 'sandbox', AIRTEL_RW, override, Date.now());
}

describe("payouts and their rail's health (docs/payouts.md#rail-down)", function () {
  this.timeout(240_000);

  afterEach(() => setRail(null));

  it('records each payout the rail decided once, with its side, and never a cancelled one', async () => {
    const merchant = await fundedMerchant(50_000);
    const key = merchant.key;
    const create = async (destination: string, key2: string) => {
      const created = await call('/v1/payouts', {
        key,
        headers: { 'idempotency-key': key2 },
        body: { amount: 1_000, currency: 'RWF', destination },
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      return created.body.data;
    };
    const paidTo = await wallet(key, '0001');
    const paid = await create(paidTo, 'paid');
    const refused = await create(await wallet(key, '0002'), 'refused');
    // `0005`: the rail answers it is unavailable, so the payout waits pending; the merchant cancels it.
    const waiting = await create(await wallet(key, '0005'), 'waiting');
    expect(paid.status).to.equal('paid');
    expect(refused).to.include({ status: 'failed', failure_code: 'account_invalid' });
    expect(waiting.status).to.equal('pending');
    const cancelled = await call(`/v1/payouts/${waiting.id}/cancel`, { key, method: 'POST' });
    expect(cancelled.body.data.status).to.equal('cancelled');
    // A retried create of a decided payout records nothing twice.
    expect((await create(paidTo, 'paid')).id).to.equal(paid.id);

    const outcomes = await outcomesOf([paid.id, refused.id, waiting.id]);
    const common = {
      environment: 'sandbox',
      provider: 'momo',
      country: 'RW',
      operation: 'payout',
      merchant_id: merchant.merchantId,
      never_reached: false,
    };
    expect(outcomes.map((o) => o.object_id).sort()).to.deep.equal([paid.id, refused.id].sort());
    expect(outcomes.find((o) => o.object_id === paid.id)).to.include({ ...common, outcome: 'success', side: null });
    expect(outcomes.find((o) => o.object_id === refused.id)).to.include({
      ...common,
      outcome: 'failure',
      side: 'payer',
    });
    for (const o of outcomes) expect(Number(o.duration_ms)).to.be.within(0, 10_000);
    expect(await ledgerProblems((await getStack()).db, { merchantIds: [merchant.merchantId] })).to.deep.equal([]);
  });

  it('holds a payout to a rail set down pending and unsent, lets it be cancelled, and sends it once the status is cleared', async () => {
    const merchant = await fundedMerchant(50_000);
    const key = merchant.key;
    const destination = await airtelWallet(key, '0001');
    await setRail('down');
    const create = async (amount: number) => {
      const created = await call('/v1/payouts', { key, body: { amount, currency: 'RWF', destination } });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      return created.body.data;
    };
    const [kept, cancelledLater] = [await create(2_000), await create(3_000)];
    for (const payout of [kept, cancelledLater]) {
      expect(payout.status).to.equal('pending');
      expect(payout.pending_reason).to.equal(
        'the mobile_money_b payout rail in RW is down (Airtel Rwanda maintenance); the payout is sent when it is back',
      );
    }
    expect(await available(key)).to.equal(merchant.available - 2_020 - 3_030);
    // Past a status check or two: still pending, nothing sent to the rail.
    await sleep(3_000);
    const shown = await call(`/v1/payouts/${kept.id}`, { key });
    expect(shown.body.data).to.include({ status: 'pending', pending_reason: kept.pending_reason });
    expect(await transfersOf([kept.id, cancelledLater.id])).to.equal(0);

    // A cancel while it waits: funds back at once, never sent, no outcome.
    const cancelled = await call(`/v1/payouts/${cancelledLater.id}/cancel`, { key, method: 'POST' });
    expect(cancelled.status, JSON.stringify(cancelled.body)).to.equal(200);
    expect(cancelled.body.data).to.include({ status: 'cancelled', pending_reason: null });
    expect(await available(key)).to.equal(merchant.available - 2_020);

    // The operator clears the status: the next check (within 30 s) sends it, and the rail pays it.
    await setRail(null);
    const paid = await waitForPayout(key, kept.id, (p) => p.status === 'paid', 60_000);
    expect(paid.pending_reason).to.equal(null);
    expect(await transfersOf([kept.id])).to.equal(1);
    expect(await transfersOf([cancelledLater.id])).to.equal(0);
    const outcomes = await outcomesOf([kept.id, cancelledLater.id]);
    expect(outcomes.map((o) => [o.object_id, o.provider, o.outcome])).to.deep.equal([
      [kept.id, 'mobile_money_b', 'success'],
    ]);
    // Its seconds run from the send, not from the wait for the rail.
    expect(Number(outcomes[0]?.duration_ms)).to.be.below(10_000);
    expect(await ledgerProblems((await getStack()).db, { merchantIds: [merchant.merchantId] })).to.deep.equal([]);
    await recordHistory('payout-rail-down-waited-cancelled', `payout:${cancelledLater.id}`);
    // A paid payout's workflow goes on watching for a return for days: its history is kept as it stands.
    await keepHistory(
      'payout-rail-down-waited-then-paid',
      (await getStack()).client.workflow.getHandle(`payout:${kept.id}`),
    );
  });

  it('holds an automatic payout to a rail set down the same way, and sends it once the status is cleared', async () => {
    const merchant = await fundedMerchant(50_000);
    const key = merchant.key;
    const destination = await airtelWallet(key, '0001');
    const set = await call('/v1/payout_schedule', {
      key,
      method: 'PUT',
      body: { schedule: 'daily', destination, currency: 'RWF', minimum: 10_000 },
    });
    expect(set.status, JSON.stringify(set.body)).to.equal(200);
    await setRail('down');
    const { client } = await getStack();
    await client.schedule.getHandle(`payout-schedule:${merchant.merchantId}:sandbox`).trigger();
    const until = Date.now() + 60_000;
    let automatic: any;
    while (!automatic) {
      automatic = (await call('/v1/payouts', { key })).body.data.payouts.find(
        (p: { automatic: boolean; pending_reason: string | null }) => p.automatic && p.pending_reason,
      );
      if (!automatic && Date.now() > until) throw new Error('no automatic payout waiting for its rail');
      await sleep(500);
    }
    expect(automatic.status).to.equal('pending');
    expect(automatic.pending_reason).to.match(/^the mobile_money_b payout rail in RW is down/);
    expect(await transfersOf([automatic.id])).to.equal(0);
    await setRail(null);
    await waitForPayout(key, automatic.id, (p) => p.status === 'paid', 60_000);
    expect(await transfersOf([automatic.id])).to.equal(1);
    await call('/v1/payout_schedule', { key, method: 'PUT', body: { schedule: 'manual' } });
    expect(await ledgerProblems((await getStack()).db, { merchantIds: [merchant.merchantId] })).to.deep.equal([]);
  });
});
