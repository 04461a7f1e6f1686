/**
 * The ledger's own guarantees against a real PostgreSQL (docs/ledger.md#invariants): the database refuses to change
 * or delete a posting or journal and to commit a journal that does not balance; a cause is posted once; a
 * payment's completion and a refund's steps post with their writes.
 */
import { expect } from 'chai';
import { readBalance, rollUpBalance, writeJournal } from '../../src/db/ledger';
import {
  insertPaymentWithCreatedEvent,
  insertRefund,
  statusWriteOf,
  updatePaymentStatus,
  updateRefundOutcome,
} from '../../src/db/payments';
import { paymentEvent } from '../../src/activities/events';
import {
  adjustmentJournal,
  journalProblems,
  paymentCollectedCause,
  paymentCollectedJournal,
  refundCause,
} from '../../src/domain/ledger';
import { apply, initialPaymentState } from '../../src/domain/payment-table';
import type { RefundRecord } from '../../src/domain/refund';
import { newId } from '../../src/lib/ids';
import { insertMerchant, mobileMoneyPayment } from '../helpers/fixtures';
import { ledgerProblems } from '../helpers/ledger';
import { getStack } from '../helpers/stack';
import { withStatusChange } from '../helpers/status-change';

const refused = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e as Error,
  );

describe('ledger (docs/ledger.md#invariants)', () => {
  it('posts a completed payment once, and a refund reserved then completed, with the writes that cause them', async () => {
    const { db } = await getStack();
    const merchantId = await insertMerchant(db);
    const payment = mobileMoneyPayment(merchantId, '+250788000001');
    await insertPaymentWithCreatedEvent(db, payment, paymentEvent(payment, 'payment.created'));
    const applied = apply(initialPaymentState(payment), { type: 'provider_success' }, new Date().toISOString());
    if (!applied.ok) throw new Error('the table refused a success of a pending payment');
    const completed = applied.state.payment;
    const collected = [paymentCollectedCause(completed.id)];
    await updatePaymentStatus(db, statusWriteOf(completed, collected), paymentEvent(completed, 'payment.completed'));
    await updatePaymentStatus(db, statusWriteOf(completed, collected)); // a retried activity
    const rows = await db('ledger_balance_transactions').where({ merchant_id: merchantId });
    expect(rows.map((r) => [r.type, r.amount, r.fee, r.net])).to.deep.equal([['payment', 1500, 23, 1477]]);
    // momo: one day after completion (docs/ledger.md#available-on)
    expect(new Date(rows[0].available_on).getTime() - Date.parse(completed.updatedAt)).to.equal(86_400_000);

    const refund: RefundRecord = {
      id: newId('ref_'),
      paymentId: payment.id,
      merchantId,
      environment: 'sandbox',
      amount: 500,
      currency: 'RWF',
      status: 'pending',
      reason: null,
      providerReference: null,
      failureMessage: null,
      createdAt: new Date().toISOString(),
      completedAt: null,
    };
    await insertRefund(db, refund, [refundCause(refund.id, 'reserved')]);
    await insertRefund(db, refund, [refundCause(refund.id, 'reserved')]);
    const done = { ...refund, status: 'completed' as const, completedAt: new Date().toISOString() };
    const after = { ...completed, amountRefunded: 500, version: (completed.version ?? 0) + 1 };
    await updateRefundOutcome(db, done, statusWriteOf(after, []), undefined, [refundCause(done.id, 'completed')]);
    await updateRefundOutcome(db, done, statusWriteOf(after, []), undefined, [refundCause(done.id, 'completed')]);
    const nets = (await db('ledger_balance_transactions').where({ merchant_id: merchantId }).orderBy('created_at')).map(
      (r) => [r.type, r.net],
    );
    expect(nets).to.deep.equal([
      ['payment', 1477],
      ['refund', -500],
    ]);
    // The balance read gives the same before and after its rows are rolled up (docs/ledger.md#balance-read).
    const owed = async () => {
      const balance = await readBalance(db, { merchantId, environment: 'sandbox' }, new Date());
      return (balance.available[0]?.amount ?? 0) + (balance.pending[0]?.amount ?? 0);
    };
    expect(await owed()).to.equal(977);
    expect(await rollUpBalance(db, { merchantId, environment: 'sandbox' })).to.equal(2);
    expect(await rollUpBalance(db, { merchantId, environment: 'sandbox' })).to.equal(0);
    expect(await owed()).to.equal(977);
    expect(await ledgerProblems(db, { merchantIds: [merchantId] })).to.deep.equal([]);
  });

  it('refuses to update, delete or truncate postings and journals', async () => {
    const { db } = await getStack();
    const merchantId = await insertMerchant(db);
    await writeJournal(
      db,
      adjustmentJournal({
        id: newId('adj_'),
        merchantId,
        environment: 'sandbox',
        currency: 'RWF',
        amount: 100,
        operator: 'test',
        reason: 'fixture',
      }),
      new Date(),
    );
    await rollUpBalance(db, { merchantId, environment: 'sandbox' });
    const [posting] = await db('ledger_postings')
      .join('ledger_accounts', 'ledger_accounts.id', 'ledger_postings.account_id')
      .where({ owner: merchantId })
      .select('line', 'journal_id');
    const key = { journal_id: posting.journal_id, line: posting.line };
    for (const attempt of [
      db('ledger_postings').where(key).update({ amount: 1 }),
      db('ledger_postings').where(key).delete(),
      db('ledger_journals').where({ id: posting.journal_id }).update({ description: 'changed' }),
      db('ledger_journals').where({ id: posting.journal_id }).delete(),
      db.raw('truncate ledger_postings cascade'),
      db('ledger_balance_transactions').where({ merchant_id: merchantId }).update({ net: 0, amount: 0 }),
      db('ledger_balance_transactions').where({ merchant_id: merchantId }).update({ rolled_up: false }),
      db('ledger_balance_transactions').where({ merchant_id: merchantId }).delete(),
    ]) {
      const error = await refused(attempt);
      expect(error?.message).to.match(/append-only|changes only its available_on/);
    }
    expect(await ledgerProblems(db, { merchantIds: [merchantId] })).to.deep.equal([]);
  });

  it('refuses at commit a journal whose postings do not sum to zero, and the domain refuses it before', async () => {
    const { db } = await getStack();
    const merchantId = await insertMerchant(db);
    const journal = paymentCollectedJournal({
      id: newId('pay_'),
      merchantId,
      environment: 'sandbox',
      currency: 'RWF',
      provider: 'momo',
      amount: 1000,
      fee: 15,
      settlementDelayDays: 1,
    });
    const lopsided = { ...journal, postings: journal.postings.slice(0, 2) };
    expect(journalProblems(lopsided).join()).to.include('sum to 15');
    const error = await refused(
      db.transaction(async (trx) => {
        await trx('ledger_journals').insert({
          id: newId('jrn_'),
          cause: `test:${merchantId}`,
          environment: 'sandbox',
          description: 'lopsided',
          created_at: new Date(),
        });
        const [account] = await trx('ledger_accounts')
          .insert({ environment: 'sandbox', currency: 'RWF', kind: 'merchant_balance', owner: merchantId })
          .returning('id');
        const [journalRow] = await trx('ledger_journals').where({ cause: `test:${merchantId}` });
        await trx('ledger_postings').insert({
          journal_id: journalRow.id,
          line: 1,
          account_id: account.id,
          currency: 'RWF',
          amount: 5,
        });
      }),
    );
    expect(error?.message).to.include('does not balance');
    expect(await db('ledger_journals').where({ cause: `test:${merchantId}` })).to.have.length(0);
  });
  it("posts a collection in the statement that records it, and writes nothing from a write whose facts are not the row's", async () => {
    const { db } = await getStack();
    const merchantId = await insertMerchant(db);
    // A payment is created pending, and posts nothing: only its table's rows post (docs/ledger.md#postings).
    const instant = withStatusChange(
      mobileMoneyPayment(merchantId, '+250788000001'),
      { status: 'completed' },
      new Date().toISOString(),
    );
    const notPending = await refused(
      insertPaymentWithCreatedEvent(db, instant, paymentEvent(instant, 'payment.created')),
    );
    expect(notPending?.message).to.include('a payment is created pending');
    expect(await db('payments').where({ id: instant.id })).to.have.length(0);
    expect(await db('ledger_journals').where({ cause: `payment:${instant.id}:completed` })).to.have.length(0);

    const payment = mobileMoneyPayment(merchantId, '+250788000002');
    await insertPaymentWithCreatedEvent(db, payment, paymentEvent(payment, 'payment.created'));
    const completed = withStatusChange(payment, { status: 'completed' }, new Date().toISOString());
    const other = { ...completed, amount: 1400 };
    const error = await refused(
      updatePaymentStatus(
        db,
        statusWriteOf(other, [paymentCollectedCause(other.id)]),
        paymentEvent(other, 'payment.completed'),
      ),
    );
    expect(error?.message).to.include('differs from the collection to post');
    expect((await db('payments').where({ id: payment.id }).first('status')).status).to.equal('pending');
    expect(await db('events').where({ object_id: payment.id, type: 'payment.completed' })).to.have.length(0);
    expect(await db('ledger_journals').where({ cause: `payment:${payment.id}:completed` })).to.have.length(0);

    expect(await ledgerProblems(db)).to.deep.equal([]);
  });

  it('never posts to an account id that a rolled-back transaction created', async () => {
    const { db } = await getStack();
    const merchantId = await insertMerchant(db);
    const payment = mobileMoneyPayment(merchantId, '+250788000001');
    await insertPaymentWithCreatedEvent(db, payment, paymentEvent(payment, 'payment.created'));
    const journal = paymentCollectedJournal({
      id: payment.id,
      merchantId,
      environment: 'sandbox',
      currency: 'RWF',
      provider: 'momo',
      amount: 1500,
      fee: 23,
      settlementDelayDays: 1,
    });
    // The merchant's balance account is first created inside a transaction that then rolls back.
    await refused(
      db.transaction(async (trx) => {
        await writeJournal(trx, journal, new Date());
        throw new Error('rolled back');
      }),
    );
    expect(await db('ledger_accounts').where({ kind: 'merchant_balance', owner: merchantId })).to.have.length(0);
    const completed = withStatusChange(payment, { status: 'completed' }, new Date().toISOString());
    await updatePaymentStatus(db, statusWriteOf(completed, [paymentCollectedCause(completed.id)]));
    expect(await db('ledger_accounts').where({ kind: 'merchant_balance', owner: merchantId })).to.have.length(1);
    expect(await ledgerProblems(db)).to.deep.equal([]);
  });
});
