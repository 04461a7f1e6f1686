/**
 * Rate-limit counters (D50), in the table shape rate-limiter-flexible's PostgreSQL store uses, and
 * an enterprise merchant's custom limits (set with the admin command).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('rate_limits', (t) => {
    t.string('key', 255).primary();
    t.integer('points').notNullable().defaultTo(0);
    t.bigInteger('expire');
  });
  await knex.schema.alterTable('developers', (t) => {
    t.integer('rate_limit_per_minute');
    t.integer('rate_limit_per_hour');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('developers', (t) => {
    t.dropColumn('rate_limit_per_minute');
    t.dropColumn('rate_limit_per_hour');
  });
  await knex.schema.dropTable('rate_limits');
}
