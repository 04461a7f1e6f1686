/**
 * Reconciliation against the providers' books (docs/reconciliation.md): one run per provider account,
 * environment and UTC day (so a second run of a day is the same run), and the exceptions it found,
 * each once by its key, open until an operator resolves it.
 */
import type { Knex } from 'knex';

/** Creates `reconciliation_runs` and `reconciliation_exceptions`. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('reconciliation_runs', (t) => {
    t.text('id').primary();
    t.text('provider').notNullable();
    t.text('environment').notNullable();
    t.date('day').notNullable();
    t.text('status').notNullable();
    t.text('method').notNullable();
    t.jsonb('summary').notNullable().defaultTo('{}');
    t.text('error');
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.timestamp('finished_at', { useTz: true });
    t.unique(['provider', 'environment', 'day'], { indexName: 'reconciliation_runs_day_key' });
  });
  await knex.raw(`
    ALTER TABLE reconciliation_runs
      ADD CONSTRAINT reconciliation_runs_status_check CHECK (status IN ('running', 'succeeded', 'failed')),
      ADD CONSTRAINT reconciliation_runs_method_check CHECK (method IN ('transactions', 'balance'))`);
  await knex.schema.createTable('reconciliation_exceptions', (t) => {
    t.text('id').primary();
    t.text('run_id').notNullable().references('id').inTable('reconciliation_runs');
    t.text('provider').notNullable();
    t.text('environment').notNullable();
    t.text('kind').notNullable();
    t.text('key').notNullable();
    t.text('object_id');
    t.text('provider_reference');
    t.bigInteger('expected_amount');
    t.bigInteger('found_amount');
    t.specificType('currency', 'char(3)');
    t.jsonb('evidence').notNullable();
    t.text('status').notNullable().defaultTo('open');
    t.text('resolved_by');
    t.text('resolution');
    t.text('adjustment_journal_id');
    t.timestamp('resolved_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.unique(['provider', 'environment', 'key'], { indexName: 'reconciliation_exceptions_key' });
  });
  await knex.raw(`
    ALTER TABLE reconciliation_exceptions
      ADD CONSTRAINT reconciliation_exceptions_kind_check CHECK (kind IN ('missing_at_provider', 'missing_in_books', 'amount_mismatch', 'status_mismatch', 'balance_drift', 'late_answer')),
      ADD CONSTRAINT reconciliation_exceptions_status_check CHECK (status IN ('open', 'resolved')),
      ADD CONSTRAINT reconciliation_exceptions_resolution_check CHECK ((status = 'resolved') = (resolved_at IS NOT NULL AND resolved_by IS NOT NULL AND resolution IS NOT NULL))`);
  await knex.raw(
    `CREATE INDEX reconciliation_exceptions_open_idx ON reconciliation_exceptions (provider, kind) WHERE status = 'open'`,
  );
}

/** Drops them. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('reconciliation_exceptions');
  await knex.schema.dropTable('reconciliation_runs');
}
