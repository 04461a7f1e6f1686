/**
 * The ledger (docs/ledger.md): accounts per environment and currency, journals (one per cause, so a
 * retried write never posts twice), their postings in minor units (debit positive, credit negative),
 * and the merchant's side of each journal that touches a merchant balance: its balance transaction.
 *
 * The database keeps the promises of docs/ledger.md#invariants itself, whatever code writes:
 * - postings and journals are append-only: UPDATE, DELETE and TRUNCATE are refused by triggers;
 * - every journal sums to zero per currency, checked at commit by a deferred constraint trigger;
 * - a balance transaction changes only by moving its `available_on` (the sandbox's settle), nothing else;
 * - a merchant balance account's running balance (`balance`) is moved by the trigger that inserts its
 *   postings, in the same transaction, so it always equals the sum of its postings
 *   (docs/ledger.md#balance-read).
 */
import type { Knex } from 'knex';

/** Creates the ledger's tables, triggers and the merchants' settlement delay override. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ledger_accounts', (t) => {
    t.bigIncrements('id').primary();
    t.text('environment').notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.text('kind').notNullable();
    // Provider code for provider clearing, merchant id for a merchant balance, '' for the platform's accounts.
    t.text('owner').notNullable().defaultTo('');
    // Running sum of the account's postings; kept for merchant balances only (null for the others).
    t.bigInteger('balance');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['environment', 'currency', 'kind', 'owner'], { indexName: 'ledger_accounts_key' });
  });
  await knex.raw(`
    ALTER TABLE ledger_accounts
      ADD CONSTRAINT ledger_accounts_environment_check CHECK (environment IN ('sandbox', 'live')),
      ADD CONSTRAINT ledger_accounts_kind_check CHECK (kind IN ('provider_clearing', 'merchant_balance', 'platform_fees', 'refunds_in_flight', 'payouts_in_flight')),
      ADD CONSTRAINT ledger_accounts_balance_check CHECK ((kind = 'merchant_balance') = (balance IS NOT NULL))`);

  await knex.schema.createTable('ledger_journals', (t) => {
    t.text('id').primary();
    t.text('cause').notNullable().unique();
    t.text('environment').notNullable();
    t.text('description').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
  });

  await knex.schema.createTable('ledger_postings', (t) => {
    t.bigIncrements('id').primary();
    t.text('journal_id').notNullable().references('id').inTable('ledger_journals');
    t.bigInteger('account_id').notNullable().references('id').inTable('ledger_accounts');
    t.specificType('currency', 'char(3)').notNullable();
    t.bigInteger('amount').notNullable();
    t.index(['journal_id'], 'ledger_postings_journal_idx');
    t.index(['account_id'], 'ledger_postings_account_idx');
  });
  await knex.raw(`ALTER TABLE ledger_postings ADD CONSTRAINT ledger_postings_amount_check CHECK (amount <> 0)`);

  await knex.schema.createTable('ledger_balance_transactions', (t) => {
    t.text('id').primary();
    t.text('journal_id').notNullable().unique().references('id').inTable('ledger_journals');
    t.text('merchant_id').notNullable();
    t.text('environment').notNullable();
    t.text('type').notNullable();
    t.text('source').notNullable();
    t.text('payout_id');
    t.bigInteger('amount').notNullable();
    t.bigInteger('fee').notNullable();
    t.bigInteger('net').notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.text('description').notNullable();
    t.timestamp('available_on', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['merchant_id', 'environment', 'created_at', 'id'], 'ledger_balance_transactions_list_idx');
    t.index(['source'], 'ledger_balance_transactions_source_idx');
  });
  await knex.raw(`
    ALTER TABLE ledger_balance_transactions
      ADD CONSTRAINT ledger_balance_transactions_type_check CHECK (type IN ('payment', 'refund', 'refund_failure', 'payout', 'payout_failure', 'adjustment')),
      ADD CONSTRAINT ledger_balance_transactions_net_check CHECK (net = amount - fee)`);
  // What is still pending: the balance read sums only the rows not available yet (docs/ledger.md#balance-read).
  await knex.raw(`
    CREATE INDEX ledger_balance_transactions_available_idx
      ON ledger_balance_transactions (merchant_id, environment, available_on) INCLUDE (currency, net)`);

  // What a merchant's refunds in flight reserve (GET /v1/balance's refund_reserved), read without scanning its refunds.
  await knex.raw(
    `CREATE INDEX refunds_pending_merchant_idx ON refunds (merchant_id, environment) WHERE status = 'pending'`,
  );

  await knex.raw(`
    CREATE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'the ledger is append-only: % of % refused', TG_OP, TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
    END $$`);
  for (const table of ['ledger_journals', 'ledger_postings']) {
    await knex.raw(`
      CREATE TRIGGER ${table}_append_only BEFORE UPDATE OR DELETE ON ${table}
        FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change()`);
    await knex.raw(`
      CREATE TRIGGER ${table}_no_truncate BEFORE TRUNCATE ON ${table}
        FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change()`);
  }
  await knex.raw(`
    CREATE TRIGGER ledger_balance_transactions_no_delete BEFORE DELETE ON ledger_balance_transactions
      FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change()`);
  await knex.raw(`
    CREATE FUNCTION ledger_balance_transaction_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF (to_jsonb(NEW) - 'available_on') IS DISTINCT FROM (to_jsonb(OLD) - 'available_on') THEN
        RAISE EXCEPTION 'a balance transaction changes only its available_on' USING ERRCODE = 'restrict_violation';
      END IF;
      RETURN NEW;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER ledger_balance_transactions_only_available_on BEFORE UPDATE ON ledger_balance_transactions
      FOR EACH ROW EXECUTE FUNCTION ledger_balance_transaction_change()`);

  // Every journal sums to zero per currency, checked once its transaction commits.
  await knex.raw(`
    CREATE FUNCTION ledger_check_journal_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      off record;
    BEGIN
      SELECT currency, sum(amount) AS total INTO off FROM ledger_postings
       WHERE journal_id = NEW.journal_id GROUP BY currency HAVING sum(amount) <> 0 LIMIT 1;
      IF FOUND THEN
        RAISE EXCEPTION 'journal % does not balance in %: postings sum to %', NEW.journal_id, off.currency, off.total
          USING ERRCODE = 'check_violation';
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE CONSTRAINT TRIGGER ledger_postings_balanced AFTER INSERT ON ledger_postings
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_check_journal_balanced()`);

  // A posting's currency is its account's, and a merchant balance moves with its postings.
  await knex.raw(`
    CREATE FUNCTION ledger_apply_posting() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      account ledger_accounts%ROWTYPE;
    BEGIN
      SELECT * INTO account FROM ledger_accounts WHERE id = NEW.account_id;
      IF account.currency <> NEW.currency THEN
        RAISE EXCEPTION 'posting in % on account % kept in %', NEW.currency, NEW.account_id, account.currency
          USING ERRCODE = 'check_violation';
      END IF;
      IF account.balance IS NOT NULL THEN
        UPDATE ledger_accounts SET balance = balance + NEW.amount WHERE id = NEW.account_id;
      END IF;
      RETURN NULL;
    END $$`);
  await knex.raw(`
    CREATE TRIGGER ledger_postings_apply AFTER INSERT ON ledger_postings
      FOR EACH ROW EXECUTE FUNCTION ledger_apply_posting()`);

  await knex.schema.alterTable('developers', (t) => {
    // Days from completion to available funds for this merchant; null: its provider's (docs/ledger.md#available-on).
    t.integer('settlement_delay_days');
  });
}

/** Drops the ledger (the append-only triggers go with their tables) and the override column. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('developers', (t) => t.dropColumn('settlement_delay_days'));
  await knex.raw('DROP INDEX refunds_pending_merchant_idx');
  await knex.schema.dropTable('ledger_balance_transactions');
  await knex.schema.dropTable('ledger_postings');
  await knex.schema.dropTable('ledger_journals');
  await knex.schema.dropTable('ledger_accounts');
  await knex.raw('DROP FUNCTION ledger_apply_posting()');
  await knex.raw('DROP FUNCTION ledger_check_journal_balanced()');
  await knex.raw('DROP FUNCTION ledger_balance_transaction_change()');
  await knex.raw('DROP FUNCTION ledger_refuse_change()');
}
