/**
 * Webhook deliveries (docs/payments.md#events, docs/webhooks.md#retries): one event to one endpoint, run by the
 * workflow `workflow_id`
 * (`webhook-delivery:{evt_id}:{whk_id}`, docs/payments.md#workflow; a retry adds a suffix and names the delivery it
 * retries). Test deliveries (docs/webhooks.md#test) have no workflow.
 */
import type { Knex } from 'knex';

/**
 * Creates `webhook_deliveries` with checks on status and the number of attempts (at most 5, docs/webhooks.md#retries).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.text('id').primary();
    t.text('webhook_id').notNullable().references('id').inTable('webhooks').onDelete('CASCADE');
    t.text('merchant_id').notNullable();
    t.text('environment').notNullable();
    t.text('event_id').notNullable();
    t.text('event_type').notNullable();
    t.text('workflow_id').unique();
    t.text('retry_of').references('id').inTable('webhook_deliveries').onDelete('SET NULL');
    t.text('status').notNullable().defaultTo('pending');
    t.integer('attempt_count').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['webhook_id', 'created_at', 'id'], 'webhook_deliveries_webhook_created_idx');
    t.index(['event_id'], 'webhook_deliveries_event_idx');
  });
  await knex.raw(`
    ALTER TABLE webhook_deliveries
      ADD CONSTRAINT webhook_deliveries_status_check CHECK (status IN ('pending', 'succeeded', 'failed', 'cancelled')),
      ADD CONSTRAINT webhook_deliveries_attempts_check CHECK (attempt_count BETWEEN 0 AND 5)`);
}

/** Drops `webhook_deliveries`. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_deliveries');
}
