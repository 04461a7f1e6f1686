/**
 * The sandbox simulators as real providers behave (docs/payments.md#sandbox-scenarios, docs/providers.md#adapters): the
 * next action each gives at
 * initiation (the card gateway's client secret, transfer instructions, the mobile-money prompt),
 * refunds whose answer is decided later (`0007`), and the callbacks they send to the API.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sandbox_provider_transactions', (t) => {
    t.jsonb('next_action');
    t.text('client_secret').unique();
    t.text('callback_url');
  });
  await knex.schema.alterTable('sandbox_provider_refunds', (t) => {
    t.text('status').notNullable().defaultTo('succeeded');
    t.timestamp('decide_at', { useTz: true });
  });
  await knex.schema.createTable('sandbox_provider_callbacks', (t) => {
    t.bigIncrements('id').primary();
    t.text('provider').notNullable();
    t.text('provider_reference').notNullable();
    t.text('callback_url').notNullable();
    t.text('body').notNullable();
    t.timestamp('due_at', { useTz: true }).notNullable();
    t.timestamp('sent_at', { useTz: true });
    t.integer('attempts').notNullable().defaultTo(0);
    t.index(['due_at'], 'sandbox_provider_callbacks_due_idx');
    t.index(['provider_reference']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sandbox_provider_callbacks');
  await knex.schema.alterTable('sandbox_provider_refunds', (t) => {
    t.dropColumn('status');
    t.dropColumn('decide_at');
  });
  await knex.schema.alterTable('sandbox_provider_transactions', (t) => {
    t.dropColumn('next_action');
    t.dropColumn('client_secret');
    t.dropColumn('callback_url');
  });
}
