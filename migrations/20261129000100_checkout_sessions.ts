/**
 * Checkout sessions (docs/checkout.md): the session's row, written by its workflow's one writer; the attempts'
 * payments name their session (`payments.checkout_session`); and the reconciliation exception kind
 * `duplicate_checkout_payment` of a late success after another attempt completed the session, where its provider does
 * not refund (docs/reconciliation.md#exceptions). Amounts are bigint minor units.
 */
import type { Knex } from 'knex';

const KINDS_BEFORE = [
  'missing_at_provider',
  'missing_in_books',
  'amount_mismatch',
  'status_mismatch',
  'balance_drift',
  'late_answer',
  'late_success_unrefundable',
  'late_success_after_window',
  'late_success_after_decline',
];
const KINDS_AFTER = [...KINDS_BEFORE, 'duplicate_checkout_payment'];

async function kinds(knex: Knex, allowed: readonly string[]): Promise<void> {
  await knex.raw(`ALTER TABLE reconciliation_exceptions DROP CONSTRAINT reconciliation_exceptions_kind_check`);
  // DDL takes no bind parameters: the kinds are this file's constants.
  const list = allowed.map((kind) => `'${kind}'`).join(', ');
  await knex.raw(
    `ALTER TABLE reconciliation_exceptions ADD CONSTRAINT reconciliation_exceptions_kind_check CHECK (kind IN (${list}))`,
  );
}

/** Creates `checkout_sessions`, adds `payments.checkout_session` and the exception kind. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('checkout_sessions', (t) => {
    t.text('id').primary();
    t.text('merchant_id').notNullable();
    t.text('environment').notNullable();
    t.bigInteger('amount').notNullable();
    t.specificType('currency', 'char(3)').notNullable();
    t.text('description').notNullable();
    t.text('customer_phone');
    t.text('success_url').notNullable();
    t.text('cancel_url');
    t.text('locale').notNullable();
    t.jsonb('metadata').notNullable().defaultTo('{}');
    t.text('status').notNullable();
    t.text('payment');
    // The attempts' payments in order with their outcome as the session knows it: [{payment, status}].
    t.jsonb('attempts').notNullable().defaultTo('[]');
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable();
    t.timestamp('updated_at', { useTz: true }).notNullable();
    t.timestamp('completed_at', { useTz: true });
    t.timestamp('expired_at', { useTz: true });
    t.index(['merchant_id', 'environment', 'created_at', 'id'], 'checkout_sessions_list_idx');
  });
  await knex.raw(`
    ALTER TABLE checkout_sessions
      ADD CONSTRAINT checkout_sessions_status_check CHECK (status IN ('open', 'complete', 'expired')),
      ADD CONSTRAINT checkout_sessions_amount_check CHECK (amount > 0)`);
  await knex.schema.alterTable('payments', (t) => {
    t.text('checkout_session').nullable();
    t.index(['checkout_session'], 'payments_checkout_session_idx');
  });
  await kinds(knex, KINDS_AFTER);
}

/** Drops them again. */
export async function down(knex: Knex): Promise<void> {
  await knex('reconciliation_exceptions').where('kind', 'duplicate_checkout_payment').del();
  await kinds(knex, KINDS_BEFORE);
  await knex.schema.alterTable('payments', (t) => {
    t.dropIndex(['checkout_session'], 'payments_checkout_session_idx');
    t.dropColumn('checkout_session');
  });
  await knex.schema.dropTable('checkout_sessions');
}
