/**
 * Webhook secret rotation with an overlap and the reason an endpoint failed (docs/webhooks.md):
 * - `previous_secret`, `previous_secret_expires_at`: the secret a rotation replaced, which still signs
 *   every delivery (beside the new one) until that time, 24 h after the rotation;
 * - `failure_kind`, `failure_reason`: why a `failed` endpoint failed. `gone` (the receiver answered
 *   410 Gone) stops every delivery until the merchant enables the endpoint again; `exhausted` (a
 *   delivery's fifth failure) keeps it receiving new events. The reason is the text the API shows.
 */
import type { Knex } from 'knex';

/** Adds the four columns; the failure fields only ever describe a `failed` endpoint. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhooks', (t) => {
    t.text('previous_secret');
    t.timestamp('previous_secret_expires_at', { useTz: true });
    t.text('failure_kind');
    t.text('failure_reason');
  });
  await knex.raw(`
    ALTER TABLE webhooks
      ADD CONSTRAINT webhooks_failure_kind_check CHECK (failure_kind IN ('gone', 'exhausted')),
      ADD CONSTRAINT webhooks_failure_of_failed_check CHECK (status = 'failed' OR (failure_kind IS NULL AND failure_reason IS NULL)),
      ADD CONSTRAINT webhooks_previous_secret_check CHECK ((previous_secret IS NULL) = (previous_secret_expires_at IS NULL))`);
}

/** Drops the four columns and their checks. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE webhooks
      DROP CONSTRAINT webhooks_failure_kind_check,
      DROP CONSTRAINT webhooks_failure_of_failed_check,
      DROP CONSTRAINT webhooks_previous_secret_check`);
  await knex.schema.alterTable('webhooks', (t) => {
    t.dropColumn('previous_secret');
    t.dropColumn('previous_secret_expires_at');
    t.dropColumn('failure_kind');
    t.dropColumn('failure_reason');
  });
}
