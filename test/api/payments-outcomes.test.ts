/**
 * Payments through the sandbox, end to end over HTTP against the real PostgreSQL and Temporal, record the decided
 * attempt of each collection and refund that operator health is measured from (docs/availability.md#classification):
 * the right outcome and side for a success (`0001`), a payer's decline (`0002`), the payer's silence (`0003`), the
 * provider's own error (`0010`) and the provider's silence (`0011`); one row however often the provider calls back
 * (`0005`); and a burst of one merchant's payers declining never degrades the operator. The merchant's books balance
 * after them all (docs/ledger.md#invariants).
 */
import { expect } from 'chai';
import { measureProviderHealth } from '../../src/activities/provider-health-activities';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { ledgerProblems } from '../helpers/ledger';
import { getStack } from '../helpers/stack';

const RWANDA = { amount: 1500, currency: 'RWF', payment_method: 'mobile_money' };
const GHANA = { amount: 1500, currency: 'GHS', payment_method: 'mobile_money' };

describe('decided attempts recorded from sandbox payments (docs/availability.md#classification)', function () {
  this.timeout(180_000);
  let developer: TestDeveloper;

  before(async () => {
    developer = await registerDeveloper();
  });

  after(async () => {
    const { db } = await getStack();
    expect(await ledgerProblems(db, { merchantIds: [developer.merchantId] })).to.deep.equal([]);
  });

  async function create(body: object) {
    const response = await call('/v1/payments', { key: developer.key, body });
    expect(response.status, JSON.stringify(response.body)).to.equal(201);
    return response.body.data;
  }

  async function outcomesOf(objectId: string) {
    const { db } = await getStack();
    return db('provider_outcomes').where({ object_id: objectId }).orderBy('id');
  }

  /** The payment `id` once final, and its one recorded outcome once written. */
  async function decided(id: string, timeoutMs: number) {
    const payment = await waitForPayment(
      developer.key,
      id,
      (p) => !['pending', 'processing'].includes(p.status),
      timeoutMs,
    );
    const rows = await outcomesOf(id);
    expect(rows, `outcomes of ${payment.status} ${id}`).to.have.length(1);
    return { payment, outcome: rows[0] };
  }

  it("records a success, a decline, the payer's silence, the provider's error (0010) and its silence (0011) with their sides, and a refund", async () => {
    const [paid, declined, unanswered, errored, silent] = await Promise.all([
      create({ ...RWANDA, phone_number: '+250788000001' }),
      create({ ...RWANDA, phone_number: '+250788000002' }),
      create({ ...RWANDA, phone_number: '+250788000003', expires_in: 60 }),
      create({ ...RWANDA, phone_number: '+250788000010' }),
      create({ ...RWANDA, phone_number: '+250788000011', expires_in: 60 }),
    ]);
    expect(errored).to.include({ status: 'failed', failure_code: 'provider_error' });
    const [success, decline, payerSilence, providerError, providerSilence] = await Promise.all([
      decided(paid.id, 20_000),
      decided(declined.id, 20_000),
      decided(unanswered.id, 120_000),
      decided(errored.id, 20_000),
      decided(silent.id, 120_000),
    ]);
    const key = { environment: 'sandbox', provider: 'momo', country: 'RW', operation: 'collection' };
    expect(success.payment.status).to.equal('completed');
    expect(success.outcome).to.include({ ...key, merchant_id: developer.merchantId, outcome: 'success', side: null });
    expect(decline.payment).to.include({ status: 'failed', failure_code: 'declined' });
    expect(decline.outcome).to.include({ ...key, outcome: 'failure', side: 'payer', never_reached: false });
    // 0003: the provider kept answering "still waiting": the expiry is the payer's silence.
    expect(payerSilence.payment).to.include({ status: 'failed', failure_code: 'expired' });
    expect(payerSilence.outcome).to.include({ ...key, outcome: 'failure', side: 'payer' });
    expect(providerError.outcome).to.include({ ...key, outcome: 'failure', side: 'provider', never_reached: false });
    // 0011: taken, then never a usable answer before the expiry: the provider's silence.
    expect(providerSilence.payment).to.include({ status: 'failed', failure_code: 'expired' });
    expect(providerSilence.outcome).to.include({ ...key, outcome: 'failure', side: 'provider', never_reached: false });
    // Seconds from the first request to the final outcome: about the 60 s to expiry for the two that expired.
    for (const expired of [payerSilence, providerSilence])
      expect(Number(expired.outcome.duration_ms)).to.be.within(55_000, 90_000);
    expect(Number(success.outcome.duration_ms)).to.be.below(15_000);

    const refund = await call(`/v1/payments/${paid.id}/refund`, { key: developer.key, body: { amount: 500 } });
    expect(refund.status, JSON.stringify(refund.body)).to.equal(201);
    expect(refund.body.data).to.include({ status: 'completed' });
    const refunded = await outcomesOf(refund.body.data.id);
    expect(refunded).to.have.length(1);
    expect(refunded[0]).to.include({ ...key, operation: 'refund', outcome: 'success', side: null });
    // The collection's own row is untouched by the refund.
    expect(await outcomesOf(paid.id)).to.have.length(1);
  });

  it('records one outcome for a payment whose provider calls back twice and then again with an older status (0005)', async () => {
    const payment = await create({ ...RWANDA, phone_number: '+250788000005' });
    await waitForPayment(developer.key, payment.id, (p) => p.status === 'completed', 20_000);
    const { db } = await getStack();
    for (let sent = 0; sent < 3;) {
      await new Promise((r) => setTimeout(r, 250));
      const rows = await db('sandbox_provider_callbacks')
        .join('payments', 'payments.provider_reference', 'sandbox_provider_callbacks.provider_reference')
        .where('payments.id', payment.id)
        .whereNotNull('sent_at')
        .count<{ n: number }[]>('sandbox_provider_callbacks.id as n');
      sent = Number(rows[0]?.n ?? 0);
    }
    await new Promise((r) => setTimeout(r, 1_000));
    const rows = await outcomesOf(payment.id);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ outcome: 'success', side: null });
  });

  it("never degrades an operator for a burst of one merchant's payers declining", async () => {
    const burst = await Promise.all(
      Array.from({ length: 25 }, () => create({ ...GHANA, phone_number: '+233240000002' })),
    );
    await Promise.all(burst.map((payment) => decided(payment.id, 30_000)));
    const { db } = await getStack();
    const rows = await db('provider_outcomes').whereIn(
      'object_id',
      burst.map((payment) => payment.id),
    );
    expect(rows.map((row) => `${row.country}:${row.side}`)).to.deep.equal(Array(25).fill('GH:payer'));
    await measureProviderHealth(db, 'sandbox', Date.now());
    const health = await db('provider_health')
      .where({ environment: 'sandbox', provider: 'momo', country: 'GH', operation: 'collection' })
      .first();
    // Other tests' Ghanaian attempts may share the bucket: the burst's 25 declines (at least half of it) are not the
    // operator's failures, so the share stays far below the 20 % that degrades.
    expect(health.status).to.equal('operational');
    expect(health.window_attempts).to.be.at.least(25);
    expect(health.provider_failure_share).to.be.below(0.2);
  });
});
