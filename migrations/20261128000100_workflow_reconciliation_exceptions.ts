/**
 * Reconciliation exceptions the payment workflow records itself (docs/payments.md#late-successes,
 * docs/reconciliation.md#exceptions): a late success booked without a refund is written with the payment's
 * completion, in its statement, by no reconciliation run, so `run_id` may be null; and the kinds grow by three.
 */
import type { Knex } from 'knex';

const KINDS_BEFORE = [
  'missing_at_provider',
  'missing_in_books',
  'amount_mismatch',
  'status_mismatch',
  'balance_drift',
  'late_answer',
];
const KINDS_AFTER = [
  ...KINDS_BEFORE,
  'late_success_unrefundable',
  'late_success_after_window',
  'late_success_after_decline',
];

async function kinds(knex: Knex, allowed: readonly string[]): Promise<void> {
  await knex.raw(`ALTER TABLE reconciliation_exceptions DROP CONSTRAINT reconciliation_exceptions_kind_check`);
  // DDL takes no bind parameters: the kinds are this file's constants.
  const list = allowed.map((kind) => `'${kind}'`).join(', ');
  await knex.raw(
    `ALTER TABLE reconciliation_exceptions ADD CONSTRAINT reconciliation_exceptions_kind_check CHECK (kind IN (${list}))`,
  );
}

/** Lets `run_id` be null and allows the workflow's kinds. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE reconciliation_exceptions ALTER COLUMN run_id DROP NOT NULL');
  await kinds(knex, KINDS_AFTER);
}

/** Drops the workflow's exceptions and restores the constraints. */
export async function down(knex: Knex): Promise<void> {
  await knex('reconciliation_exceptions')
    .whereNull('run_id')
    .orWhereIn('kind', KINDS_AFTER.slice(KINDS_BEFORE.length))
    .del();
  await kinds(knex, KINDS_BEFORE);
  await knex.raw('ALTER TABLE reconciliation_exceptions ALTER COLUMN run_id SET NOT NULL');
}
