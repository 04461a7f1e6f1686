/**
 * Custom rate limits of enterprise merchants (docs/limits.md#rate-limits), set with the admin command
 * (docs/live-access.md#admin-command).
 */
import type { Knex } from 'knex';

/** Adds the custom limit columns to `developers` (docs/limits.md#rate-limits). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('developers', (t) => {
    t.integer('custom_limit_per_minute');
    t.integer('custom_limit_per_hour');
  });
  await knex.raw(`
    ALTER TABLE developers
      ADD CONSTRAINT developers_custom_limits_check CHECK (
        (custom_limit_per_minute IS NULL AND custom_limit_per_hour IS NULL)
        OR (custom_limit_per_minute >= 1 AND custom_limit_per_hour >= custom_limit_per_minute))`);
}

/** Removes them. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE developers DROP CONSTRAINT developers_custom_limits_check');
  await knex.schema.alterTable('developers', (t) => {
    t.dropColumn('custom_limit_per_minute');
    t.dropColumn('custom_limit_per_hour');
  });
}
