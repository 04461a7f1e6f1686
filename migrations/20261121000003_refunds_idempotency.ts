/**
 * Refunds (docs/payments.md#cancel-and-refund), idempotency keys (docs/payments.md#idempotency), a version on payments
 * so status writes that arrive out of
 * order never regress the read model, the provider reference index for callbacks (docs/payments.md#provider-callbacks),
 * and the
 * sandbox simulators' refunds.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (t) => {
    t.integer('version').notNullable().defaultTo(0);
    t.text('customer_wallet');
    t.text('cancellation_reason');
    t.index(['provider', 'provider_reference'], 'payments_provider_reference_idx');
  });

  await knex.schema.createTable('refunds', (t) => {
    t.text('id').primary();
    t.text('payment_id').notNullable().references('id').inTable('payments').onDelete('CASCADE');
    t.text('merchant_id').notNullable();
    t.text('environment').notNullable();
    t.bigInteger('amount').notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.text('status').notNullable();
    t.text('reason');
    t.text('provider_reference');
    t.text('failure_message');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('completed_at', { useTz: true });
    t.index(['payment_id']);
    t.index(['merchant_id', 'environment', 'created_at', 'id'], 'refunds_merchant_created_idx');
  });
  await knex.raw(`
    ALTER TABLE refunds
      ADD CONSTRAINT refunds_amount_check CHECK (amount >= 1),
      ADD CONSTRAINT refunds_status_check CHECK (status IN ('pending', 'completed', 'failed'))`);

  await knex.schema.createTable('idempotency_keys', (t) => {
    t.text('merchant_id').notNullable();
    t.text('environment').notNullable();
    t.text('key').notNullable();
    t.text('request_hash').notNullable();
    t.integer('response_status');
    t.text('response_body'); // the exact JSON text, so a replay is byte-identical
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.primary(['merchant_id', 'environment', 'key']);
    t.index(['created_at']);
  });

  await knex.schema.alterTable('sandbox_provider_transactions', (t) => {
    t.bigInteger('refunded_amount').notNullable().defaultTo(0);
  });
  await knex.schema.createTable('sandbox_provider_refunds', (t) => {
    t.text('idempotency_key').primary();
    t.text('provider_reference').notNullable();
    t.bigInteger('amount').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sandbox_provider_refunds');
  await knex.schema.alterTable('sandbox_provider_transactions', (t) => t.dropColumn('refunded_amount'));
  await knex.schema.dropTable('idempotency_keys');
  await knex.schema.dropTable('refunds');
  await knex.schema.alterTable('payments', (t) => {
    t.dropIndex(['provider', 'provider_reference'], 'payments_provider_reference_idx');
    t.dropColumn('version');
    t.dropColumn('customer_wallet');
    t.dropColumn('cancellation_reason');
  });
}
