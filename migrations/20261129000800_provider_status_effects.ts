/**
 * What an operator's status changes (docs/availability.md#effects): the merchant's `refuse_when_provider_down`
 * setting on `developers`, and `sandbox_provider_statuses`, a merchant's own status of a provider, country and
 * operation in its sandbox, which lapses at `expires_at` (docs/availability.md#sandbox-override).
 */
import type { Knex } from 'knex';

/** Adds the setting and the table. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('developers', (t) => {
    t.boolean('refuse_when_provider_down').notNullable().defaultTo(false);
  });
  await knex.schema.createTable('sandbox_provider_statuses', (t) => {
    t.text('merchant_id').notNullable();
    t.text('provider').notNullable();
    t.specificType('country', 'char(2)').notNullable();
    t.text('operation').notNullable();
    t.text('status').notNullable();
    t.text('reason').notNullable();
    t.timestamp('set_at', { useTz: true }).notNullable();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.primary(['merchant_id', 'provider', 'country', 'operation']);
  });
  await knex.raw(
    `ALTER TABLE sandbox_provider_statuses
       ADD CONSTRAINT sandbox_provider_statuses_status_check CHECK (status IN ('operational', 'degraded', 'down')),
       ADD CONSTRAINT sandbox_provider_statuses_operation_check CHECK (operation IN ('collection', 'payout', 'refund'))`,
  );
}

/** Drops them. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('sandbox_provider_statuses');
  await knex.schema.alterTable('developers', (t) => {
    t.dropColumn('refuse_when_provider_down');
  });
}
