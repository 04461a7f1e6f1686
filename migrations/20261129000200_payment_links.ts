/**
 * Payment links (docs/payment-links.md): the link's row, written by its one writer (src/db/payment-links.ts); the
 * reservations that admit a link's attempts against its completion limit (docs/payment-links.md#limits); and what a
 * session opened from a link carries: the link, a customer-chosen amount's range (the session's `amount` is null until
 * an attempt carries one), the fields the attempt collects, and the after-completion message (a session from a link
 * without a redirect has no `success_url`). Amounts are bigint minor units.
 */
import type { Knex } from 'knex';

/** Creates `payment_links` and `payment_link_reservations`, and the sessions' link columns. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('payment_links', (t) => {
    t.text('id').primary();
    t.text('merchant_id').notNullable();
    t.text('environment').notNullable();
    // A fixed amount, or a range the customer chooses in (both bounds inclusive); never both.
    t.bigInteger('amount');
    t.bigInteger('amount_min');
    t.bigInteger('amount_max');
    t.specificType('currency', 'char(3)').notNullable();
    t.text('description').notNullable();
    t.jsonb('payment_methods').notNullable().defaultTo('["mobile_money"]');
    t.integer('completed_limit');
    t.integer('completed_count').notNullable().defaultTo(0);
    // {type: "message", message} or {type: "redirect", url}; null: the page's own thanks.
    t.jsonb('after_completion');
    t.jsonb('collect').notNullable().defaultTo('[]');
    t.boolean('active').notNullable().defaultTo(true);
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['merchant_id', 'environment', 'created_at', 'id'], 'payment_links_list_idx');
  });
  await knex.raw(`
    ALTER TABLE payment_links
      ADD CONSTRAINT payment_links_amount_check CHECK (
        (amount IS NOT NULL AND amount > 0 AND amount_min IS NULL AND amount_max IS NULL)
        OR (amount IS NULL AND amount_min >= 1 AND amount_max >= amount_min)),
      ADD CONSTRAINT payment_links_limit_check CHECK (completed_limit IS NULL OR completed_limit >= 1),
      ADD CONSTRAINT payment_links_count_check CHECK (completed_count >= 0)`);
  await knex.schema.createTable('payment_link_reservations', (t) => {
    // One reservation per attempt: the attempt's payment id.
    t.text('payment').primary();
    t.text('payment_link').notNullable().references('id').inTable('payment_links');
    t.text('checkout_session').notNullable();
    t.text('status').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.index(['payment_link', 'status'], 'payment_link_reservations_link_idx');
  });
  await knex.raw(`
    ALTER TABLE payment_link_reservations
      ADD CONSTRAINT payment_link_reservations_status_check CHECK (status IN ('held', 'released', 'completed'))`);
  await knex.schema.alterTable('checkout_sessions', (t) => {
    t.text('payment_link');
    t.bigInteger('amount_min');
    t.bigInteger('amount_max');
    t.jsonb('collect').notNullable().defaultTo('[]');
    t.text('completion_message');
    t.index(['payment_link'], 'checkout_sessions_payment_link_idx');
  });
  await knex.raw(`ALTER TABLE checkout_sessions ALTER COLUMN amount DROP NOT NULL`);
  await knex.raw(`ALTER TABLE checkout_sessions ALTER COLUMN success_url DROP NOT NULL`);
}

/** Drops them again (sessions without an amount or a success URL are dropped with them). */
export async function down(knex: Knex): Promise<void> {
  await knex('checkout_sessions').whereNull('amount').orWhereNull('success_url').del();
  await knex.raw(`ALTER TABLE checkout_sessions ALTER COLUMN success_url SET NOT NULL`);
  await knex.raw(`ALTER TABLE checkout_sessions ALTER COLUMN amount SET NOT NULL`);
  await knex.schema.alterTable('checkout_sessions', (t) => {
    t.dropIndex(['payment_link'], 'checkout_sessions_payment_link_idx');
    t.dropColumns('payment_link', 'amount_min', 'amount_max', 'collect', 'completion_message');
  });
  await knex.schema.dropTable('payment_link_reservations');
  await knex.schema.dropTable('payment_links');
}
