/**
 * One balance transaction a journal, kept by the balance transactions' primary key instead of an index of its own
 * (docs/ledger.md#layout). A balance transaction's id and its journal's are derived from the same cause
 * (`txn_` and `jrn_` before the same digest, src/db/ledger.ts), so a check that the id is its journal's with the other
 * prefix makes two balance transactions of one journal two rows of one id, which the primary key refuses: the unique
 * index on `journal_id`, read by no query, took one more WAL record a settlement for the same promise.
 */
import type { Knex } from 'knex';

/** The id follows from the journal; the unique index on `journal_id` goes. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE ledger_balance_transactions
      ADD CONSTRAINT ledger_balance_transactions_id_of_journal CHECK (id = 'txn_' || substr(journal_id, 5)),
      DROP CONSTRAINT ledger_balance_transactions_journal_id_unique`);
}

/** Puts the unique index back and drops the check. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE ledger_balance_transactions
      ADD CONSTRAINT ledger_balance_transactions_journal_id_unique UNIQUE (journal_id),
      DROP CONSTRAINT ledger_balance_transactions_id_of_journal`);
}
