/**
 * A settlement's journal writes fewer WAL records (docs/ledger.md#layout): what each posting and journal wrote that no
 * read needs is gone, and the database still refuses what it refused.
 *
 * - A posting is keyed by its journal and its line in it (`primary key (journal_id, line)`), which replaces both the
 *   `bigserial` id (its sequence and its index, read by nothing) and the index on `journal_id`: one index entry a
 *   posting instead of two.
 * - The index of postings by account goes: no query of the service reads a merchant's or the platform's postings by
 *   account (the balance reads the balance transactions), and the reconciliation's reads of a provider's clearing
 *   postings now find their window through the journals' `created_at` (a new index, one entry a journal, where the
 *   account's index took one a posting and made the read scan the account's whole history).
 * - The foreign keys of postings (to their journal and account) and of balance transactions (to their journal) become
 *   checks in the ledger's insert triggers. A foreign key's check locks the row it points to (`FOR KEY SHARE`), which
 *   PostgreSQL writes to the WAL: the three accounts of every collection (one provider clearing and one fee account
 *   shared by every merchant) and the journal itself, four lock records and a shared-lock (multixact) record a
 *   settlement, and a settlement waited for a payout that held its merchant's balance account. The triggers read the
 *   same rows without locking them; what the lock protected, that the row is not deleted or its key changed before
 *   commit, the ledger's append-only triggers now guarantee for the accounts as they did for the journals.
 */
import type { Knex } from 'knex';

/** Postings keyed by (journal, line), without the account index and the foreign keys' locks. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE ledger_postings ADD COLUMN line smallint`);
  // The line of each existing posting: its place in its journal, in the order it was written (its id's).
  await knex.raw(`ALTER TABLE ledger_postings DISABLE TRIGGER ledger_postings_append_only`);
  await knex.raw(`
    UPDATE ledger_postings p SET line = n.line
      FROM (SELECT id, row_number() OVER (PARTITION BY journal_id ORDER BY id) AS line FROM ledger_postings) n
     WHERE n.id = p.id`);
  await knex.raw(`ALTER TABLE ledger_postings ENABLE TRIGGER ledger_postings_append_only`);
  await knex.raw(`
    ALTER TABLE ledger_postings
      ALTER COLUMN line SET NOT NULL,
      ADD CONSTRAINT ledger_postings_line_check CHECK (line > 0),
      DROP CONSTRAINT ledger_postings_journal_id_foreign,
      DROP CONSTRAINT ledger_postings_account_id_foreign,
      DROP CONSTRAINT ledger_postings_pkey,
      DROP COLUMN id`);
  await knex.raw(`ALTER TABLE ledger_postings ADD CONSTRAINT ledger_postings_pkey PRIMARY KEY (journal_id, line)`);
  await knex.raw(`DROP INDEX ledger_postings_journal_idx`);
  await knex.raw(`DROP INDEX ledger_postings_account_idx`);
  await knex.raw(
    `ALTER TABLE ledger_balance_transactions DROP CONSTRAINT ledger_balance_transactions_journal_id_foreign`,
  );
  // The reconciliation's window of a provider's clearing postings (src/db/reconciliation.ts, ourStatement).
  await knex.raw(`CREATE INDEX ledger_journals_created_idx ON ledger_journals (created_at)`);

  // What the foreign keys checked, without their locks: the rows a posting and a balance transaction name exist.
  await knex.raw(`
    CREATE FUNCTION ledger_check_journal_exists() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM FROM ledger_journals WHERE id = NEW.journal_id;
      IF NOT FOUND THEN
        RAISE EXCEPTION '% names journal %, which does not exist', TG_TABLE_NAME, NEW.journal_id
          USING ERRCODE = 'foreign_key_violation';
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER ledger_balance_transactions_journal AFTER INSERT ON ledger_balance_transactions
      FOR EACH ROW EXECUTE FUNCTION ledger_check_journal_exists()`);
  await knex.raw(`
    CREATE OR REPLACE FUNCTION ledger_apply_posting() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      account_currency char(3);
    BEGIN
      SELECT currency INTO account_currency FROM ledger_accounts WHERE id = NEW.account_id;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'posting on account %, which does not exist', NEW.account_id
          USING ERRCODE = 'foreign_key_violation';
      END IF;
      IF account_currency <> NEW.currency THEN
        RAISE EXCEPTION 'posting in % on account % kept in %', NEW.currency, NEW.account_id, account_currency
          USING ERRCODE = 'check_violation';
      END IF;
      PERFORM FROM ledger_journals WHERE id = NEW.journal_id;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'ledger_postings names journal %, which does not exist', NEW.journal_id
          USING ERRCODE = 'foreign_key_violation';
      END IF;
      RETURN NULL;
    END $$`);
  // Accounts are append-only as journals are: a posting's account is never changed or deleted under it.
  await knex.raw(`
    CREATE TRIGGER ledger_accounts_append_only BEFORE UPDATE OR DELETE ON ledger_accounts
      FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change()`);
  await knex.raw(`
    CREATE TRIGGER ledger_accounts_no_truncate BEFORE TRUNCATE ON ledger_accounts
      FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change()`);
}

/** Puts back the posting ids, their indexes and the foreign keys; accounts may change again. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TRIGGER ledger_accounts_no_truncate ON ledger_accounts`);
  await knex.raw(`DROP TRIGGER ledger_accounts_append_only ON ledger_accounts`);
  // ledger_apply_posting keeps its existence checks: with the foreign keys back they refuse nothing more.
  await knex.raw(`DROP TRIGGER ledger_balance_transactions_journal ON ledger_balance_transactions`);
  await knex.raw(`DROP FUNCTION ledger_check_journal_exists()`);
  await knex.raw(`DROP INDEX ledger_journals_created_idx`);
  await knex.raw(`
    ALTER TABLE ledger_balance_transactions ADD CONSTRAINT ledger_balance_transactions_journal_id_foreign
      FOREIGN KEY (journal_id) REFERENCES ledger_journals (id)`);
  await knex.raw(`ALTER TABLE ledger_postings DROP CONSTRAINT ledger_postings_pkey`);
  await knex.raw(`ALTER TABLE ledger_postings ADD COLUMN id bigserial`);
  await knex.raw(`
    ALTER TABLE ledger_postings
      DROP CONSTRAINT ledger_postings_line_check,
      DROP COLUMN line,
      ADD CONSTRAINT ledger_postings_pkey PRIMARY KEY (id),
      ADD CONSTRAINT ledger_postings_journal_id_foreign FOREIGN KEY (journal_id) REFERENCES ledger_journals (id),
      ADD CONSTRAINT ledger_postings_account_id_foreign FOREIGN KEY (account_id) REFERENCES ledger_accounts (id)`);
  await knex.raw(`CREATE INDEX ledger_postings_journal_idx ON ledger_postings (journal_id)`);
  await knex.raw(`CREATE INDEX ledger_postings_account_idx ON ledger_postings (account_id)`);
}
