/**
 * What the sandbox payout rails know of each payout (docs/payouts.md#sandbox-destinations): one row per provider
 * reference (derived from the payout id, so a repeated send finds its row), the behaviour its destination's ending
 * chose, when the rail first saw it and when it took it (null while the simulated rail is down). Everything the
 * rail answers follows from these and the clock.
 */
import type { Knex } from 'knex';

/** Creates `sandbox_provider_payouts`. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sandbox_provider_payouts', (t) => {
    t.text('provider_reference').primary();
    t.text('provider').notNullable();
    t.text('payout_id').notNullable();
    t.bigInteger('amount').notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.text('destination_type').notNullable();
    t.text('destination_ending').notNullable();
    t.text('behaviour').notNullable();
    t.timestamp('first_attempt_at', { useTz: true }).notNullable();
    t.timestamp('taken_at', { useTz: true }).nullable();
    t.unique(['provider', 'payout_id']);
  });
}

/** Drops `sandbox_provider_payouts`. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sandbox_provider_payouts');
}
