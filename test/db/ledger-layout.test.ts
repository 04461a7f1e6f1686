/**
 * What a settlement's journal writes and locks (docs/ledger.md#layout), against the real PostgreSQL: the rows and index
 * entries each table takes, read from the WAL itself (`pg_walinspect`), no lock on a row a foreign key would point to
 * (so a settlement never waits for a payout holding its merchant's balance account), and the database's refusal of a
 * posting or balance transaction that names no journal or account, and of any change to an account.
 */
import { expect } from 'chai';
import { paymentEvent } from '../../src/activities/events';
import { insertPaymentWithCreatedEvent, statusWriteOf, updatePaymentStatus } from '../../src/db/payments';
import type { Db } from '../../src/db/knex';
import { paymentCollectedCause } from '../../src/domain/ledger';
import type { PaymentSnapshot } from '../../src/domain/payment';
import { apply, initialPaymentState } from '../../src/domain/payment-table';
import { newId } from '../../src/lib/ids';
import { insertMerchant, mobileMoneyPayment } from '../helpers/fixtures';
import { ledgerProblems } from '../helpers/ledger';
import { getStack } from '../helpers/stack';

const refused = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e as Error & { code?: string },
  );

/** A pending payment of `merchantId`, stored, and the completed snapshot the table makes of it. */
async function pendingThenCompleted(db: Db, merchantId: string): Promise<PaymentSnapshot> {
  const payment = mobileMoneyPayment(merchantId, '+250788000001');
  await insertPaymentWithCreatedEvent(db, payment, paymentEvent(payment, 'payment.created'));
  const applied = apply(initialPaymentState(payment), { type: 'provider_success' }, new Date().toISOString());
  if (!applied.ok) throw new Error('the table refused a success of a pending payment');
  return applied.state.payment;
}

/** Records `payment` completed with its collection's journal, as the workflow's activity does. */
async function settle(db: Db, payment: PaymentSnapshot): Promise<void> {
  await updatePaymentStatus(
    db,
    statusWriteOf(payment, [paymentCollectedCause(payment.id)]),
    paymentEvent(payment, 'payment.completed'),
  );
}

describe('ledger layout: what a settlement writes and locks (docs/ledger.md#layout)', function () {
  this.timeout(60_000);

  it('writes a journal, three postings and a balance transaction with one index entry a posting, and locks no ledger row', async () => {
    const { db } = await getStack();
    await db.raw('create extension if not exists pg_walinspect');
    const merchantId = await insertMerchant(db);
    await settle(db, await pendingThenCompleted(db, merchantId)); // creates the merchant's account
    const payments = [];
    for (let i = 0; i < 5; i += 1) payments.push(await pendingThenCompleted(db, merchantId));
    const [{ start }] = (await db.raw('select pg_current_wal_insert_lsn()::text as start')).rows as { start: string }[];
    // Each settlement in a transaction of its own whose id picks its records out of the WAL, whatever else runs.
    const xids: string[] = [];
    for (const payment of payments)
      await db.transaction(async (trx) => {
        xids.push(((await trx.raw('select (txid_current() % 4294967296)::text as x')).rows as { x: string }[])[0]!.x);
        await settle(trx, payment);
      });
    const { rows } = await db.raw<{ rows: { relation: string; record: string }[] }>(
      `select distinct c.relname as relation, r.record_type as record
         from pg_get_wal_records_info(?::pg_lsn, pg_current_wal_insert_lsn()) r
         cross join lateral regexp_matches(r.block_ref, 'rel (\\d+)/(\\d+)/(\\d+)', 'g') as m
         join pg_class c on c.relfilenode = m[3]::oid and c.relname like 'ledger%'
        where r.xid::text = any(?::text[])
          -- page upkeep (splits, deduplication, removal of dead entries, pruning) is not the settlement's own write
          and r.record_type not in ('SPLIT_L', 'SPLIT_R', 'INSERT_UPPER', 'NEWROOT', 'DEDUP', 'DELETE', 'PRUNE_ON_ACCESS', 'VACUUM')`,
      [start, xids],
    );
    const written = rows.map(
      (r) => `${r.relation} ${r.record.replace(/\+INIT$/, '').replace('INSERT_POST', 'INSERT_LEAF')}`,
    );
    expect([...new Set(written)].sort()).to.deep.equal([
      'ledger_balance_transactions INSERT',
      'ledger_balance_transactions_available_idx INSERT_LEAF',
      'ledger_balance_transactions_list_idx INSERT_LEAF',
      'ledger_balance_transactions_pkey INSERT_LEAF',
      'ledger_balance_transactions_source_idx INSERT_LEAF',
      'ledger_balance_transactions_tail_idx INSERT_LEAF',
      // insert … on conflict do nothing: the journal is inserted speculatively, then confirmed
      'ledger_journals HEAP_CONFIRM',
      'ledger_journals INSERT',
      'ledger_journals_cause_unique INSERT_LEAF',
      'ledger_journals_created_idx INSERT_LEAF',
      'ledger_journals_pkey INSERT_LEAF',
      'ledger_postings INSERT',
      'ledger_postings_pkey INSERT_LEAF',
    ]);
    expect(await ledgerProblems(db, { merchantIds: [merchantId] })).to.deep.equal([]);
  });

  it("settles while a payout holds the merchant's balance account", async () => {
    const { db } = await getStack();
    const merchantId = await insertMerchant(db);
    await settle(db, await pendingThenCompleted(db, merchantId));
    const payment = await pendingThenCompleted(db, merchantId);
    await db.transaction(async (payout) => {
      // What a payout's reservation holds until it commits (src/db/payouts.ts, lockedAvailable).
      await payout('ledger_accounts')
        .where({ kind: 'merchant_balance', owner: merchantId, environment: 'sandbox', currency: 'RWF' })
        .forUpdate()
        .first('id');
      const error = await refused(
        db.transaction(async (trx) => {
          // Waiting for the payout's lock is an error here, not a wait.
          await trx.raw(`set local lock_timeout = '2s'`);
          await settle(trx, payment);
        }),
      );
      expect(error, error?.message).to.equal(undefined);
    });
    const posted = await db('ledger_balance_transactions').where({ source: payment.id, type: 'payment' });
    expect(posted).to.have.length(1);
  });

  it('refuses a posting or balance transaction naming a journal or account that does not exist, and any change of an account', async () => {
    const { db } = await getStack();
    const merchantId = await insertMerchant(db);
    await settle(db, await pendingThenCompleted(db, merchantId));
    const account = (await db('ledger_accounts').where({ kind: 'merchant_balance', owner: merchantId }).first()) as {
      id: number;
    };
    const journal = (await db('ledger_journals').where('cause', 'like', 'payment:%').first('id')) as { id: string };
    const posting = { line: 9, currency: 'RWF', amount: 1 };
    const balanceTransaction = {
      id: 'txn_missing',
      merchant_id: merchantId,
      environment: 'sandbox',
      type: 'adjustment',
      source: 'adj_test',
      amount: 1,
      fee: 0,
      net: 1,
      currency: 'RWF',
      description: 'test',
      available_on: new Date(),
      created_at: new Date(),
    };
    for (const [attempt, message] of [
      [db('ledger_postings').insert({ ...posting, journal_id: 'jrn_missing', account_id: account.id }), /journal/],
      [db('ledger_postings').insert({ ...posting, journal_id: journal.id, account_id: -1 }), /account/],
      [db('ledger_balance_transactions').insert({ ...balanceTransaction, journal_id: 'jrn_missing' }), /journal/],
    ] as const) {
      const error = await refused(attempt);
      expect(error?.code, String(error)).to.equal('23503'); // foreign_key_violation, as the foreign keys answered
      expect(error?.message).to.match(message);
    }
    for (const attempt of [
      db('ledger_accounts').where({ id: account.id }).update({ owner: 'someone else' }),
      db('ledger_accounts').where({ id: account.id }).delete(),
      db.raw('truncate ledger_accounts cascade'),
    ]) {
      const error = await refused(attempt);
      expect(error?.message).to.match(/append-only/);
    }
    expect(await db('ledger_accounts').where({ id: account.id, owner: merchantId })).to.have.length(1);
  });

  it("refuses a second balance transaction of a journal, and one whose id is not its journal's", async () => {
    const { db } = await getStack();
    const merchantId = await insertMerchant(db);
    const payment = await pendingThenCompleted(db, merchantId);
    await settle(db, payment);
    const existing = (await db('ledger_balance_transactions').where({ source: payment.id }).first()) as Record<
      string,
      unknown
    > & { id: string; journal_id: string };
    const second = { ...existing, source: 'pay_other', rolled_up: false };
    const duplicate = await refused(db('ledger_balance_transactions').insert(second));
    expect(duplicate?.code, String(duplicate)).to.equal('23505'); // unique_violation: the same id as the first
    const otherId = await refused(db('ledger_balance_transactions').insert({ ...second, id: newId('txn_') }));
    expect(otherId?.code, String(otherId)).to.equal('23514'); // check_violation
    expect(await db('ledger_balance_transactions').where({ journal_id: existing.journal_id })).to.have.length(1);
  });
});
