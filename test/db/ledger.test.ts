/**
 * The ledger's own guarantees against a real PostgreSQL (docs/ledger.md#invariants): the database refuses to change
 * or delete a posting or journal and to commit a journal that does not balance; a cause is posted once; a
 * payment's completion and a refund's steps post with their writes.
 */
import { expect } from 'chai';
import { writeJournal } from '../../src/db/ledger';
import {
  insertPaymentWithCreatedEvent,
  insertRefund,
  statusWriteOf,
  updatePaymentStatus,
  updateRefundOutcome,
} from '../../src/db/payments';
import { paymentEvent } from '../../src/activities/events';
import { adjustmentJournal, journalProblems, paymentCollectedJournal } from '../../src/domain/ledger';
import { withStatusChange } from '../../src/domain/payment';
import type { RefundRecord } from '../../src/domain/refund';
import { newId } from '../../src/lib/ids';
import { insertMerchant, mobileMoneyPayment } from '../helpers/fixtures';
import { ledgerProblems } from '../helpers/ledger';
import { getStack } from '../helpers/stack';

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
    const completed = withStatusChange(payment, { status: 'completed' }, new Date().toISOString());
    await updatePaymentStatus(db, statusWriteOf(completed), paymentEvent(completed, 'payment.completed'));
    await updatePaymentStatus(db, statusWriteOf(completed)); // a retried activity
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
    await insertRefund(db, refund);
    await insertRefund(db, refund);
    const done = { ...refund, status: 'completed' as const, completedAt: new Date().toISOString() };
    const after = { ...completed, amountRefunded: 500, version: (completed.version ?? 0) + 1 };
    await updateRefundOutcome(db, done, statusWriteOf(after));
    await updateRefundOutcome(db, done, statusWriteOf(after));
    const nets = (await db('ledger_balance_transactions').where({ merchant_id: merchantId }).orderBy('created_at')).map(
      (r) => [r.type, r.net],
    );
    expect(nets).to.deep.equal([
      ['payment', 1477],
      ['refund', -500],
    ]);
    const [account] = await db('ledger_accounts').where({ kind: 'merchant_balance', owner: merchantId });
    expect(-account.balance).to.equal(977);
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
    const [posting] = await db('ledger_postings')
      .join('ledger_accounts', 'ledger_accounts.id', 'ledger_postings.account_id')
      .where({ owner: merchantId })
      .select('ledger_postings.id', 'journal_id');
    for (const attempt of [
      db('ledger_postings').where({ id: posting.id }).update({ amount: 1 }),
      db('ledger_postings').where({ id: posting.id }).delete(),
      db('ledger_journals').where({ id: posting.journal_id }).update({ description: 'changed' }),
      db('ledger_journals').where({ id: posting.journal_id }).delete(),
      db.raw('truncate ledger_postings cascade'),
      db('ledger_balance_transactions').where({ merchant_id: merchantId }).update({ net: 0, amount: 0 }),
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
          .insert({ environment: 'sandbox', currency: 'RWF', kind: 'merchant_balance', owner: merchantId, balance: 0 })
          .returning('id');
        const [journalRow] = await trx('ledger_journals').where({ cause: `test:${merchantId}` });
        await trx('ledger_postings').insert({
          journal_id: journalRow.id,
          account_id: account.id,
          currency: 'RWF',
          amount: 5,
        });
      }),
    );
    expect(error?.message).to.include('does not balance');
    expect(await db('ledger_journals').where({ cause: `test:${merchantId}` })).to.have.length(0);
  });
});
