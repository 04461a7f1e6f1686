/**
 * The merchant's time zone (docs/api.md#profile): an IANA zone name the dashboard shows times in; null while the
 * merchant has not chosen one (the dashboard then uses the browser's).
 */
import type { Knex } from 'knex';

/** Adds `time_zone` to the accounts. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('developers', (t) => {
    t.text('time_zone');
  });
}

/** Drops it. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('developers', (t) => {
    t.dropColumn('time_zone');
  });
}
