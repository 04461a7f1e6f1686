/**
 * The audit log (docs/live-access.md#audit-log), scoped to a merchant and an environment
 * (docs/api.md#merchants-and-environments).
 */
import type { Knex } from 'knex';

/** Creates `activity_log` (docs/live-access.md#audit-log). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('activity_log', (t) => {
    t.text('id').primary();
    t.text('merchant_id').notNullable().references('merchant_id').inTable('developers').onDelete('CASCADE');
    t.text('environment').notNullable();
    t.text('actor_type').notNullable();
    t.text('actor_id').notNullable();
    t.text('action').notNullable();
    t.text('target').notNullable();
    t.text('ip');
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['merchant_id', 'environment', 'created_at', 'id'], 'activity_log_merchant_created_idx');
  });
  await knex.raw(`
    ALTER TABLE activity_log
      ADD CONSTRAINT activity_log_environment_check CHECK (environment IN ('sandbox', 'live')),
      ADD CONSTRAINT activity_log_actor_check CHECK (actor_type IN ('developer', 'reviewer', 'operator', 'system'))`);
}

/** Drops `activity_log`. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('activity_log');
}
