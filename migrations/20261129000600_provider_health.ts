/**
 * Operator health (docs/availability.md): `provider_outcomes`, one row per decided attempt of a collection, payout or
 * refund with whose its failure was; `provider_health`, the last measured status of each provider, country and
 * operation per environment with an operator's override; `provider_status_changes`, every change, for the status
 * page's history.
 */
import type { Knex } from 'knex';

const KEY = (t: Knex.CreateTableBuilder) => {
  t.text('environment').notNullable();
  t.text('provider').notNullable();
  t.specificType('country', 'char(2)').notNullable();
  t.text('operation').notNullable();
};

/** Creates the three tables. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('provider_outcomes', (t) => {
    t.bigIncrements('id').primary();
    KEY(t);
    t.text('merchant_id').notNullable();
    t.text('object_id').notNullable();
    t.timestamp('decided_at', { useTz: true }).notNullable();
    t.bigInteger('duration_ms').notNullable();
    t.text('outcome').notNullable();
    t.text('side');
    t.boolean('never_reached').notNullable().defaultTo(false);
    t.unique(['object_id', 'operation']);
    t.index(['environment', 'provider', 'country', 'operation', 'decided_at']);
  });
  await knex.raw(
    `ALTER TABLE provider_outcomes ADD CONSTRAINT provider_outcomes_outcome_check CHECK (outcome IN ('success', 'failure')),
     ADD CONSTRAINT provider_outcomes_side_check CHECK (side IN ('provider', 'payer', 'platform')),
     ADD CONSTRAINT provider_outcomes_operation_check CHECK (operation IN ('collection', 'payout', 'refund'))`,
  );
  await knex.schema.createTable('provider_health', (t) => {
    KEY(t);
    t.text('status').notNullable();
    t.timestamp('since', { useTz: true }).notNullable();
    t.timestamp('better_since', { useTz: true });
    t.integer('window_attempts').notNullable().defaultTo(0);
    t.double('success_rate');
    t.double('provider_failure_share');
    t.bigInteger('p50_ms');
    t.bigInteger('p95_ms');
    t.text('override_status');
    t.text('override_reason');
    t.text('override_by');
    t.timestamp('measured_at', { useTz: true }).notNullable();
    t.primary(['environment', 'provider', 'country', 'operation']);
  });
  await knex.schema.createTable('provider_status_changes', (t) => {
    t.bigIncrements('id').primary();
    KEY(t);
    t.text('from_status').notNullable();
    t.text('to_status').notNullable();
    t.text('reason');
    t.timestamp('at', { useTz: true }).notNullable();
    t.index(['environment', 'at']);
  });
}

/** Drops them. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('provider_status_changes');
  await knex.schema.dropTable('provider_health');
  await knex.schema.dropTable('provider_outcomes');
}
