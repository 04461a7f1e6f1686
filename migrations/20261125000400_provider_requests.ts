/**
 * The provider requests journal (docs/providers.md#m-pesa): requests a provider cannot recognise as repeated (an
 * M-Pesa STK push has no idempotency key) are claimed here before they are sent, once per provider and key, so no
 * retried activity in any worker sends a second one; the provider's own reference is added when its answer or its
 * callback names it.
 */
import type { Knex } from 'knex';

/** Creates `provider_requests`. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('provider_requests', (table) => {
    table.text('provider').notNullable();
    table.text('request_key').notNullable();
    table.text('reference');
    table.timestamp('claimed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.primary(['provider', 'request_key']);
  });
}

/** Drops `provider_requests`. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('provider_requests');
}
