/**
 * Webhook endpoints (docs/webhooks.md#endpoints): url, subscribed events, status, description and the signing secret,
 * per
 * merchant and environment. Deleted endpoints keep their row (`deleted_at`) so their delivery log
 * stays readable and deliveries under way stop cleanly.
 */
import type { Knex } from 'knex';

/** Creates `webhooks` with checks on environment, status (docs/webhooks.md#endpoints) and a non-empty events array. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhooks', (t) => {
    t.text('id').primary();
    t.text('merchant_id').notNullable().references('merchant_id').inTable('developers').onDelete('CASCADE');
    t.text('environment').notNullable();
    t.text('url').notNullable();
    t.jsonb('events').notNullable();
    t.text('status').notNullable().defaultTo('enabled');
    t.text('description');
    // The secret signs deliveries, so it is kept as issued (like a receiver's copy), never shown in lists.
    t.text('secret').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.timestamp('deleted_at', { useTz: true });
    t.index(['merchant_id', 'environment', 'created_at', 'id'], 'webhooks_merchant_created_idx');
  });
  await knex.raw(`
    ALTER TABLE webhooks
      ADD CONSTRAINT webhooks_environment_check CHECK (environment IN ('sandbox', 'live')),
      ADD CONSTRAINT webhooks_status_check CHECK (status IN ('enabled', 'disabled', 'failed')),
      ADD CONSTRAINT webhooks_events_check CHECK (jsonb_typeof(events) = 'array' AND jsonb_array_length(events) >= 1)`);
}

/** Drops `webhooks`. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhooks');
}
