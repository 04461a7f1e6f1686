/**
 * Attempts of a delivery (docs/webhooks.md#retries): time, status code, the first 1 KiB of the answer, duration in
 * milliseconds and the error, one row per attempt number, so a retried write records it once.
 */
import type { Knex } from 'knex';

/**
 * Creates `webhook_attempts`: attempt 1–5, duration ≥ 0 ms, response excerpt ≤ 1024 bytes (docs/webhooks.md#retries).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('webhook_attempts', (t) => {
    t.text('delivery_id').notNullable().references('id').inTable('webhook_deliveries').onDelete('CASCADE');
    t.integer('attempt').notNullable();
    t.timestamp('attempted_at', { useTz: true }).notNullable();
    t.integer('status_code');
    t.text('response_body');
    t.integer('duration_ms').notNullable();
    t.text('error');
    t.primary(['delivery_id', 'attempt']);
  });
  await knex.raw(`
    ALTER TABLE webhook_attempts
      ADD CONSTRAINT webhook_attempts_attempt_check CHECK (attempt BETWEEN 1 AND 5),
      ADD CONSTRAINT webhook_attempts_duration_check CHECK (duration_ms >= 0),
      ADD CONSTRAINT webhook_attempts_body_check CHECK (octet_length(response_body) <= 1024)`);
}

/** Drops `webhook_attempts`. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('webhook_attempts');
}
