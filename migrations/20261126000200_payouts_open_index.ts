/**
 * A partial index under the payout backlog gauges, the on-call command that lists payouts waiting for their rail
 * (docs/operations.md#backlog) and the sweeper that starts the workflow of a payout whose API died before starting it
 * (docs/payouts.md#workflow): only payouts still `pending` or `in_transit` are in it, so each read costs what is open,
 * not the history.
 */
import type { Knex } from 'knex';

/** Creates the partial index. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE INDEX IF NOT EXISTS payouts_open_idx ON payouts (environment, created_at)
       WHERE status IN ('pending', 'in_transit')`,
  );
}

/** Drops it. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS payouts_open_idx');
}
