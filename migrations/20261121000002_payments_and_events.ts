/**
 * Payments (docs/payments.md#payment-record), events (docs/payments.md#events) and the sandbox simulators' own ledger
 * (docs/payments.md#sandbox-scenarios).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payments', (t) => {
    t.text('id').primary();
    t.text('merchant_id').notNullable().references('merchant_id').inTable('developers').onDelete('CASCADE');
    t.text('environment').notNullable();
    t.text('family').notNullable();
    t.bigInteger('amount').notNullable();
    t.bigInteger('amount_refunded').notNullable().defaultTo(0);
    t.specificType('currency', 'char(3)').notNullable();
    t.text('status').notNullable();
    t.text('payment_method').notNullable();
    t.text('provider').notNullable();
    t.text('description');
    t.text('customer_phone');
    t.text('customer_email');
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.bigInteger('fee_amount').notNullable().defaultTo(0);
    t.text('failure_code');
    t.text('failure_message');
    t.text('provider_reference');
    t.jsonb('next_action');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['merchant_id', 'environment', 'created_at', 'id'], 'payments_merchant_created_idx');
  });
  await knex.raw(`
    ALTER TABLE payments
      ADD CONSTRAINT payments_amount_check CHECK (amount >= 1 AND amount <= 1000000000000),
      ADD CONSTRAINT payments_refunded_check CHECK (amount_refunded >= 0 AND amount_refunded <= amount),
      ADD CONSTRAINT payments_environment_check CHECK (environment IN ('sandbox', 'live')),
      ADD CONSTRAINT payments_family_check CHECK (family IN ('generic', 'merchant')),
      ADD CONSTRAINT payments_status_check
        CHECK (status IN ('pending', 'processing', 'completed', 'failed', 'cancelled', 'refunded'))`);

  await knex.schema.createTable('events', (t) => {
    t.text('id').primary();
    t.text('merchant_id').notNullable().references('merchant_id').inTable('developers').onDelete('CASCADE');
    t.text('environment').notNullable();
    t.text('type').notNullable();
    t.text('object_id');
    t.jsonb('data').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['merchant_id', 'environment', 'created_at', 'id'], 'events_merchant_created_idx');
    t.index(['object_id'], 'events_object_idx');
  });

  await knex.schema.createTable('sandbox_provider_transactions', (t) => {
    t.text('provider_reference').primary();
    t.text('provider').notNullable();
    t.text('idempotency_key').notNullable().unique();
    t.text('payment_id').notNullable();
    t.text('customer').notNullable();
    t.bigInteger('amount').notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.text('status').notNullable();
    t.text('failure_code');
    t.text('failure_message');
    t.timestamp('settle_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sandbox_provider_transactions');
  await knex.schema.dropTable('events');
  await knex.schema.dropTable('payments');
}
