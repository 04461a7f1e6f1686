/** Developers (docs/api.md#profile) and their secret keys (docs/api.md#secret-keys). */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('developers', (t) => {
    t.text('id').primary();
    t.text('merchant_id').notNullable().unique();
    t.text('email').notNullable().unique();
    t.text('password_hash').notNullable();
    t.text('name').notNullable();
    t.text('business_name');
    t.text('country');
    t.text('phone');
    t.text('plan').notNullable().defaultTo('sandbox');
    t.boolean('has_live_access').notNullable().defaultTo(false);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.schema.createTable('api_keys', (t) => {
    t.text('id').primary();
    t.text('merchant_id').notNullable().references('merchant_id').inTable('developers').onDelete('CASCADE');
    t.text('environment').notNullable();
    t.text('key_hash').notNullable().unique();
    t.text('last4').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('expires_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
    t.index(['merchant_id', 'environment']);
  });
  await knex.raw(
    `ALTER TABLE api_keys ADD CONSTRAINT api_keys_environment_check CHECK (environment IN ('sandbox', 'live'))`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('api_keys');
  await knex.schema.dropTable('developers');
}
