/** Audit entries (docs/live-access.md#audit-log) made with a secret key name the key as their actor (`api_key`). */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE activity_log
      DROP CONSTRAINT activity_log_actor_check,
      ADD CONSTRAINT activity_log_actor_check CHECK (actor_type IN ('developer', 'api_key', 'reviewer', 'operator', 'system'))`);
}

export async function down(knex: Knex): Promise<void> {
  await knex('activity_log').where({ actor_type: 'api_key' }).delete();
  await knex.raw(`
    ALTER TABLE activity_log
      DROP CONSTRAINT activity_log_actor_check,
      ADD CONSTRAINT activity_log_actor_check CHECK (actor_type IN ('developer', 'reviewer', 'operator', 'system'))`);
}
