/**
 * The history bench figure (f) seeds for its balance read (bench/figures/ledger.ts, `seedPostings`) is a ledger the
 * service could have written: its statements, run here at a small size against the real PostgreSQL, leave every
 * invariant of docs/ledger.md#invariants holding, a balance the service reads as the seed's payments add up to, and the
 * ledger's own guards on for everyone after it (the seed turns row triggers off for its own transactions only).
 */
import { expect } from 'chai';
import { seedPostings } from '../../bench/figures/ledger';
import { ledgerProblems } from '../helpers/ledger';
import { call, registerDeveloper } from '../helpers/http';
import { getStack } from '../helpers/stack';
import type { Db } from '../../src/db/knex';

/** Every index and constraint of the tables the seed fills, with its definition and whether it is valid. */
async function schemaOfSeededTables(db: Db): Promise<{ name: string; definition: string; valid: boolean }[]> {
  const tables = ['ledger_journals', 'ledger_postings', 'ledger_balance_transactions'];
  const { rows } = await db.raw<{ rows: { name: string; definition: string; valid: boolean }[] }>(
    `select x.relname as name, pg_get_indexdef(i.indexrelid) as definition, i.indisvalid as valid
       from pg_index i join pg_class x on x.oid = i.indexrelid where i.indrelid in (?::regclass, ?::regclass, ?::regclass)
     union all
     select conname, pg_get_constraintdef(oid), convalidated from pg_constraint where conrelid in (?::regclass, ?::regclass, ?::regclass)
     order by 1, 2`,
    [...tables, ...tables],
  );
  return rows;
}

describe('bench: the ledger history figure (f) seeds (bench/figures/ledger.ts)', function () {
  this.timeout(60_000);

  it('seeds balanced journals whose balance the service reads as their payments add up to', async () => {
    const { db } = await getStack();
    const developer = await registerDeveloper();
    const seed = await seedPostings(db, developer.merchantId, 2_999);
    expect(seed).to.include({ journals: 1_000, postings: 3_000 });
    expect(await ledgerProblems(db)).to.deep.equal([]);

    // One 1,500 RWF payment (net 1,477) every 95 s up to now, each available a day after: the newest 909 are pending.
    const balance = await call('/v1/balance', { key: developer.key });
    expect(balance.status).to.equal(200);
    expect(balance.body.data.available).to.deep.equal([{ amount: 91 * 1_477, currency: 'RWF' }]);
    expect(balance.body.data.pending).to.deep.equal([{ amount: 909 * 1_477, currency: 'RWF' }]);
    const [tail] = (await db('ledger_balance_transactions')
      .where({ merchant_id: developer.merchantId, rolled_up: false })
      .count('* as n')) as { n: string }[];
    expect(Number(tail?.n)).to.equal(500);
  });

  it('leaves the seeded tables with the indexes and constraints it found, each checked and whole', async () => {
    const { db } = await getStack();
    const developer = await registerDeveloper();
    const before = await schemaOfSeededTables(db);
    await seedPostings(db, developer.merchantId, 300);
    expect(await schemaOfSeededTables(db)).to.deep.equal(before);
    expect(before.map((row) => row.name)).to.include.members([
      'ledger_postings_pkey',
      'ledger_journals_created_idx',
      'ledger_balance_transactions_tail_idx',
      'ledger_journals_cause_unique',
      'ledger_balance_transactions_id_of_journal',
    ]);
  });

  it('says when its rows and indexes are written, once, before it returns', async () => {
    const { db } = await getStack();
    const developer = await registerDeveloper();
    const before = await schemaOfSeededTables(db);
    const seen: Promise<[number, unknown]>[] = [];
    await seedPostings(db, developer.merchantId, 300, () => {
      seen.push(
        Promise.all([
          db('ledger_balance_transactions')
            .where({ merchant_id: developer.merchantId })
            .count<{ n: string }[]>('* as n')
            .then((rows) => Number(rows[0]?.n)),
          schemaOfSeededTables(db),
        ]),
      );
    });
    expect(seen).to.have.length(1);
    const [transactions, schema] = await (seen[0] as Promise<[number, unknown]>);
    expect(transactions).to.equal(100);
    expect(schema).to.deep.equal(before);
  });

  it('leaves the ledger append-only for the statements after it', async () => {
    const { db } = await getStack();
    const developer = await registerDeveloper();
    await seedPostings(db, developer.merchantId, 30);
    const seeded = (await db('ledger_balance_transactions')
      .where({ merchant_id: developer.merchantId })
      .first('journal_id')) as { journal_id: string };
    let refused: unknown;
    try {
      await db('ledger_postings').where({ journal_id: seeded.journal_id }).update({ amount: 1 });
    } catch (error) {
      refused = error;
    }
    expect(String(refused)).to.match(/append-only/);
  });
});
