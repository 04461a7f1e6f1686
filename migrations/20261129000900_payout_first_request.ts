/**
 * When our first request that a payout's rail answered was made (docs/availability.md#payouts): the start of the
 * seconds to final that the payout's decided outcome is measured by. Null until the rail first answers, and for payouts
 * made before this column (their time in transit starts then).
 */
import type { Knex } from 'knex';

/** Adds `payouts.first_request_at`. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payouts', (t) => {
    t.timestamp('first_request_at', { useTz: true });
  });
}

/** Drops it. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payouts', (t) => {
    t.dropColumn('first_request_at');
  });
}
