/**
 * Why an open payment waits and until when (docs/payments.md#decision-time): `pending_reason` and
 * `decision_expected_by`, written by the payment's workflow with every change of the payment, null once it is final.
 * Open payments written before these columns get what their table would have decided from their row.
 */
import type { Knex } from 'knex';

/** The reasons the column takes (src/domain/payment.ts PENDING_REASONS). */
const REASONS = [
  'awaiting_customer',
  'awaiting_provider',
  'provider_unreachable',
  'awaiting_callback',
  'checking_with_provider',
];

/** Adds the two nullable columns, their check, the list filter's index, and fills them in for open payments. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (table) => {
    table.text('pending_reason').nullable();
    table.timestamp('decision_expected_by', { useTz: true }).nullable();
  });
  // DDL takes no bound parameters: the fixed reasons are written as literals.
  await knex.raw(
    `ALTER TABLE payments ADD CONSTRAINT payments_pending_reason_check CHECK (pending_reason IN (${REASONS.map((r) => `'${r}'`).join(', ')}))`,
  );
  // `GET /v1/payments?pending_reason=`: only open payments have a reason, so the index holds only them.
  await knex.raw(
    `CREATE INDEX payments_pending_reason_idx ON payments (merchant_id, environment, pending_reason, created_at DESC, id DESC)
     WHERE pending_reason IS NOT NULL`,
  );
  // As the table decides (src/domain/payment-table.ts pendingReasonOf, decisionExpectedBy): 3 minutes for the
  // provider's last word after the expiry (or the last change, when later; for a payment the provider has not
  // acknowledged, no earlier than initiation's give-up 3 minutes after its creation).
  await knex.raw(
    `UPDATE payments SET
       pending_reason = CASE
         WHEN status = 'processing' THEN 'awaiting_provider'
         WHEN provider_reference IS NULL THEN 'provider_unreachable'
         WHEN provider = 'bank_transfer' THEN 'awaiting_callback'
         ELSE 'awaiting_customer' END,
       decision_expected_by = greatest(
         expires_at,
         updated_at,
         CASE WHEN status = 'pending' AND provider_reference IS NULL THEN created_at + interval '3 minutes' END
       ) + interval '3 minutes'
     WHERE status IN ('pending', 'processing')`,
  );
}

/** Drops them. */
export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX IF EXISTS payments_pending_reason_idx');
  await knex.schema.alterTable('payments', (table) => {
    table.dropChecks(['payments_pending_reason_check']);
    table.dropColumn('pending_reason');
    table.dropColumn('decision_expected_by');
  });
}
