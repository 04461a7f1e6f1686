/**
 * Automatic payouts (docs/payouts.md#automatic-payouts): each merchant's schedule per environment, and the one change a
 * balance transaction takes besides its `available_on`: being named, once, by the automatic payout that covers it
 * (`payout_id`, from null to a payout id).
 */
import type { Knex } from 'knex';

/** Creates `payout_schedules` and lets `payout_id` of a balance transaction be set once. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payout_schedules', (t) => {
    t.text('merchant_id').notNullable();
    t.text('environment').notNullable();
    t.text('schedule').notNullable();
    t.text('destination_id').references('id').inTable('payout_destinations');
    t.specificType('currency', 'char(3)');
    // Minor units kept in the balance; what is above it is paid out.
    t.bigInteger('minimum').notNullable().defaultTo(0);
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.primary(['merchant_id', 'environment']);
  });
  await knex.raw(`
    ALTER TABLE payout_schedules
      ADD CONSTRAINT payout_schedules_schedule_check CHECK (schedule IN ('manual', 'daily', 'weekly')),
      ADD CONSTRAINT payout_schedules_minimum_check CHECK (minimum >= 0),
      ADD CONSTRAINT payout_schedules_destination_check CHECK (
        schedule = 'manual' OR (destination_id IS NOT NULL AND currency IS NOT NULL))`);
  await knex.raw(`
    CREATE OR REPLACE FUNCTION ledger_balance_transaction_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF (to_jsonb(NEW) - 'available_on' - 'rolled_up' - 'payout_id')
           IS DISTINCT FROM (to_jsonb(OLD) - 'available_on' - 'rolled_up' - 'payout_id')
         OR (OLD.rolled_up AND NOT NEW.rolled_up)
         OR (OLD.payout_id IS NOT NULL AND NEW.payout_id IS DISTINCT FROM OLD.payout_id) THEN
        RAISE EXCEPTION 'a balance transaction changes only its available_on, is rolled up once, and gets its payout_id once'
          USING ERRCODE = 'restrict_violation';
      END IF;
      RETURN NEW;
    END $$`);
  await knex.raw(
    `CREATE INDEX ledger_balance_transactions_payout_idx ON ledger_balance_transactions (payout_id) WHERE payout_id IS NOT NULL`,
  );
}

/** Drops `payout_schedules` and restores the ledger's own rule (docs/ledger.md#invariants). */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX ledger_balance_transactions_payout_idx');
  await knex.raw(`
    CREATE OR REPLACE FUNCTION ledger_balance_transaction_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF (to_jsonb(NEW) - 'available_on' - 'rolled_up') IS DISTINCT FROM (to_jsonb(OLD) - 'available_on' - 'rolled_up')
         OR (OLD.rolled_up AND NOT NEW.rolled_up) THEN
        RAISE EXCEPTION 'a balance transaction changes only its available_on (and is rolled up once)'
          USING ERRCODE = 'restrict_violation';
      END IF;
      RETURN NEW;
    END $$`);
  await knex.schema.dropTable('payout_schedules');
}
