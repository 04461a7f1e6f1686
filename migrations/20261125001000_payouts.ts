/**
 * Payouts (docs/payouts.md): the destinations a merchant pays itself to, and its payouts. A payout row changes
 * status in the same transaction as the ledger journals its change causes (docs/payouts.md#money), so a status
 * never exists without its postings.
 */
import type { Knex } from 'knex';

/** Creates `payout_destinations` and `payouts`. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payout_destinations', (t) => {
    t.text('id').primary();
    t.text('merchant_id').notNullable();
    t.text('environment').notNullable();
    t.text('type').notNullable();
    // The provider whose payout rail pays this destination (the wallet's operator, or the bank rail).
    t.text('provider').notNullable();
    t.text('phone_number');
    t.text('bank_code');
    t.text('account_number');
    t.text('account_holder_name');
    t.text('last4').notNullable();
    t.text('status').notNullable();
    t.timestamp('usable_from', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('deleted_at', { useTz: true });
    t.index(['merchant_id', 'environment', 'created_at'], 'payout_destinations_list_idx');
  });
  await knex.raw(`
    ALTER TABLE payout_destinations
      ADD CONSTRAINT payout_destinations_type_check CHECK (type IN ('mobile_money', 'bank_account')),
      ADD CONSTRAINT payout_destinations_status_check CHECK (status IN ('verified', 'pending_verification', 'unverified')),
      ADD CONSTRAINT payout_destinations_fields_check CHECK (
        (type = 'mobile_money' AND phone_number IS NOT NULL) OR
        (type = 'bank_account' AND bank_code IS NOT NULL AND account_number IS NOT NULL AND account_holder_name IS NOT NULL))`);

  await knex.schema.createTable('payouts', (t) => {
    t.text('id').primary();
    t.text('merchant_id').notNullable();
    t.text('environment').notNullable();
    t.bigInteger('amount').notNullable();
    t.bigInteger('fee').notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.text('destination_id').notNullable().references('id').inTable('payout_destinations');
    t.text('provider').notNullable();
    t.text('description');
    t.text('status').notNullable();
    t.text('failure_code');
    t.text('failure_message');
    // Why a pending payout has not reached its provider yet (the rail is down), null otherwise.
    t.text('pending_reason');
    t.text('provider_reference');
    t.boolean('automatic').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.timestamp('in_transit_at', { useTz: true });
    t.timestamp('paid_at', { useTz: true });
    t.timestamp('failed_at', { useTz: true });
    t.timestamp('returned_at', { useTz: true });
    t.timestamp('cancelled_at', { useTz: true });
    t.index(['merchant_id', 'environment', 'created_at', 'id'], 'payouts_list_idx');
  });
  await knex.raw(`
    ALTER TABLE payouts
      ADD CONSTRAINT payouts_status_check CHECK (status IN ('pending', 'in_transit', 'paid', 'failed', 'returned', 'cancelled')),
      ADD CONSTRAINT payouts_amount_check CHECK (amount > 0 AND fee >= 0)`);
}

/** Drops `payouts` and `payout_destinations`. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('payouts');
  await knex.schema.dropTable('payout_destinations');
}
