/**
 * The balance over HTTP (docs/ledger.md#balance-transactions): a completed payment credits the merchant `amount −
 * fee`, pending until its provider's settlement day; a refund takes its amount at once; the sandbox's settle makes
 * pending funds available; the payment and refund views name their balance transactions; the list pages and filters,
 * refuses bad values naming the parameter, and another merchant's balance transaction is not found.
 */
import { expect } from 'chai';
import { call, registerDeveloper, waitForPayment } from '../helpers/http';
import { ledgerProblems } from '../helpers/ledger';
import { getStack } from '../helpers/stack';

const INSTANT = { amount: 1500, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' };

describe('balance and balance transactions (docs/ledger.md#balance-transactions)', function () {
  this.timeout(60_000);

  it('credits a completed payment as pending, debits a refund, settles on demand, and names both transactions', async () => {
    const developer = await registerDeveloper();
    const key = developer.key;
    const created = await call('/v1/payments', { key, body: INSTANT });
    const paymentId = created.body.data.id as string;
    expect(created.body.data.balance_transaction).to.equal(null);
    const payment = await waitForPayment(key, paymentId, (p) => p.status === 'completed');
    expect(payment.balance_transaction).to.match(/^txn_/);

    const shown = await call(`/v1/balance_transactions/${payment.balance_transaction}`, { key });
    expect(shown.status).to.equal(200);
    // momo settles the next day (docs/ledger.md#available-on); the fee is 1.5 %, rounded half-up.
    expect(shown.body.data).to.include({ type: 'payment', amount: 1500, fee: 23, net: 1477, source: paymentId });
    expect(shown.body.data.status).to.equal('pending');
    const balance = await call('/v1/balance', { key });
    expect(balance.body.data).to.deep.include({
      available: [{ amount: 0, currency: 'RWF' }],
      pending: [{ amount: 1477, currency: 'RWF' }],
      environment: 'sandbox',
    });

    const refund = await call(`/v1/payments/${paymentId}/refund`, { key, body: { amount: 500 } });
    expect(refund.status).to.equal(201);
    expect(refund.body.data.balance_transaction).to.match(/^txn_/);
    const refundTxn = await call(`/v1/balance_transactions/${refund.body.data.balance_transaction}`, { key });
    expect(refundTxn.body.data).to.include({ type: 'refund', amount: -500, fee: 0, net: -500, status: 'available' });
    expect((await call('/v1/balance', { key })).body.data.available).to.deep.equal([{ amount: -500, currency: 'RWF' }]);

    const settled = await call('/v1/sandbox/balance/settle', { key, method: 'POST' });
    expect(settled.status).to.equal(200);
    expect(settled.body.data).to.deep.include({
      available: [{ amount: 977, currency: 'RWF' }],
      pending: [{ amount: 0, currency: 'RWF' }],
    });

    const list = await call('/v1/balance_transactions?limit=1', { key });
    expect(list.body.data.balance_transactions.map((t: { type: string }) => t.type)).to.deep.equal(['refund']);
    expect(list.body.data.pagination).to.include({ has_more: true });
    const next = await call(
      `/v1/balance_transactions?limit=1&starting_after=${list.body.data.pagination.next_starting_after}`,
      { key },
    );
    expect(next.body.data.balance_transactions.map((t: { source: string }) => t.source)).to.deep.equal([paymentId]);
    const payments = await call('/v1/balance_transactions?type=payment', { key });
    expect(payments.body.data.balance_transactions).to.have.length(1);
    const bySource = await call(`/v1/balance_transactions?source=${refund.body.data.id}`, { key });
    expect(bySource.body.data.balance_transactions).to.have.length(1);
    const future = await call('/v1/balance_transactions?available_on[gte]=2100-01-01T00:00:00Z', { key });
    expect(future.body.data.balance_transactions).to.have.length(0);

    // The session token sees the same, as the dashboard reads it.
    const bySession = await call('/v1/balance', { headers: { authorization: `Bearer ${developer.token}` } });
    expect(bySession.body.data.available).to.deep.equal([{ amount: 977, currency: 'RWF' }]);

    const other = await registerDeveloper();
    const foreign = await call(`/v1/balance_transactions/${payment.balance_transaction}`, { key: other.key });
    expect(foreign.status).to.equal(404);
    expect((await call('/v1/balance', { key: other.key })).body.data.available).to.deep.equal([]);
    const { db } = await getStack();
    expect(await ledgerProblems(db, { merchantIds: [developer.merchantId], againstSimulators: true })).to.deep.equal(
      [],
    );
  });

  it('answers 400 naming the parameter for a bad type, limit, date or cursor', async () => {
    const { key } = await registerDeveloper();
    for (const [query, field] of [
      ['type=charge', 'type'],
      ['limit=101', 'limit'],
      ['created[gte]=yesterday', 'created[gte]'],
      ['available_on[lte]=2026-13-45', 'available_on[lte]'],
      ['starting_after=txn_unknown', 'starting_after'],
      ['colour=blue', 'colour'],
    ]) {
      const answer = await call(`/v1/balance_transactions?${query}`, { key });
      expect(answer.status, query).to.equal(400);
      expect(
        answer.body.error.details.map((d: { field: string }) => d.field),
        query,
      ).to.include(field);
    }
  });
});
