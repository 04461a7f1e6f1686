/**
 * The sandbox number `0011` (docs/payments.md#sandbox-scenarios): the simulator takes the request, then answers no
 * status question about it until the payment's expiry, kept as `silent_until`.
 */
import type { Knex } from 'knex';

/** Adds `silent_until` to the simulators' transactions. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sandbox_provider_transactions', (t) => {
    t.timestamp('silent_until', { useTz: true });
  });
}

/** Drops it. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('sandbox_provider_transactions', (t) => {
    t.dropColumn('silent_until');
  });
}
