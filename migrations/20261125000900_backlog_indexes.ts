/**
 * Partial indexes under the backlog gauges and the on-call commands (docs/operations.md#backlog): the
 * deliveries and refunds still `pending`, by environment and age. They hold only what is open, so a
 * scrape counts the backlog without reading settled rows, however many there are.
 */
import type { Knex } from 'knex';

/** Creates the two partial indexes. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `CREATE INDEX IF NOT EXISTS webhook_deliveries_pending_idx ON webhook_deliveries (environment, created_at)
       WHERE status = 'pending'`,
  );
  await knex.raw(
    `CREATE INDEX IF NOT EXISTS refunds_pending_idx ON refunds (environment, created_at) WHERE status = 'pending'`,
  );
}

/** Drops them. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS webhook_deliveries_pending_idx');
  await knex.raw('DROP INDEX IF EXISTS refunds_pending_idx');
}
