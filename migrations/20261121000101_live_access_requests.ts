/**
 * Live access requests (docs/live-access.md#review) with their conversation between reviewers and the developer, and
 * the
 * first live key waiting to be revealed once (docs/api.md#secret-keys), sealed so that no plaintext key is ever stored.
 */
import type { Knex } from 'knex';

/** Creates `live_access_requests` (one open per merchant), `live_access_messages` and `live_key_reveals`. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('live_access_requests', (t) => {
    t.text('id').primary();
    t.text('merchant_id').notNullable().references('merchant_id').inTable('developers').onDelete('CASCADE');
    t.text('developer_id').notNullable();
    t.text('business_name').notNullable();
    t.text('business_type').notNullable();
    t.text('business_website').notNullable();
    t.bigInteger('expected_monthly_volume').notNullable();
    t.text('use_case').notNullable();
    t.text('status').notNullable();
    t.text('reviewer_message');
    t.text('decided_by');
    t.integer('info_rounds').notNullable().defaultTo(0);
    t.integer('reminders_sent').notNullable().defaultTo(0);
    t.text('live_key_id');
    t.timestamp('requested_at', { useTz: true }).notNullable();
    t.timestamp('under_review_since', { useTz: true }).notNullable();
    t.timestamp('decided_at', { useTz: true });
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['merchant_id', 'requested_at'], 'live_access_requests_merchant_idx');
    t.index(['status', 'requested_at'], 'live_access_requests_status_idx');
  });
  await knex.raw(`
    ALTER TABLE live_access_requests
      ADD CONSTRAINT live_access_requests_status_check
        CHECK (status IN ('under_review', 'more_info_required', 'approved', 'rejected')),
      ADD CONSTRAINT live_access_requests_volume_check CHECK (expected_monthly_volume >= 0)`);
  // One open request per merchant (docs/live-access.md#review): a second insert fails with unique_violation → 409.
  await knex.raw(`
    CREATE UNIQUE INDEX live_access_requests_one_open_idx ON live_access_requests (merchant_id)
      WHERE status IN ('under_review', 'more_info_required')`);

  await knex.schema.createTable('live_access_messages', (t) => {
    t.text('id').primary();
    t.text('request_id').notNullable().references('id').inTable('live_access_requests').onDelete('CASCADE');
    t.text('author_type').notNullable();
    t.text('author').notNullable();
    t.text('body').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['request_id', 'created_at'], 'live_access_messages_request_idx');
  });
  await knex.raw(`
    ALTER TABLE live_access_messages
      ADD CONSTRAINT live_access_messages_author_check CHECK (author_type IN ('reviewer', 'developer'))`);

  await knex.schema.createTable('live_key_reveals', (t) => {
    t.text('key_id').primary().references('id').inTable('api_keys').onDelete('CASCADE');
    t.text('merchant_id').notNullable().references('merchant_id').inTable('developers').onDelete('CASCADE');
    t.text('request_id').notNullable();
    t.text('sealed_secret').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.index(['merchant_id'], 'live_key_reveals_merchant_idx');
  });
}

/** Drops the three tables. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('live_key_reveals');
  await knex.schema.dropTable('live_access_messages');
  await knex.schema.dropTable('live_access_requests');
}
