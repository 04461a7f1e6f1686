/**
 * Reconciliation of late provider answers (docs/payments.md#states): when a late success completed a failed payment
 * (`reconciled_at`), and a provider answer that came after the reconciliation window
 * (`late_provider_answer`, recorded and not acted on).
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (t) => {
    t.timestamp('reconciled_at', { useTz: true });
    t.jsonb('late_provider_answer');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (t) => {
    t.dropColumn('reconciled_at');
    t.dropColumn('late_provider_answer');
  });
}
