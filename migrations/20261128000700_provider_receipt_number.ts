/**
 * The provider's receipt number of a payment (docs/payments.md#payment-record `provider_receipt_number`): the
 * provider's own customer-facing id of the collected money (M-Pesa's `MpesaReceiptNumber`, the one the customer gets by
 * SMS; MTN MoMo's `financialTransactionId`; Airtel's `airtel_money_id`; the card gateway's charge id). Null until the
 * provider's success names one, and for every payment written before this column.
 */
import type { Knex } from 'knex';

/** Adds the nullable column (at most 100 characters, like the provider reference's longest ids). */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (table) => {
    table.string('provider_receipt_number', 100).nullable();
  });
}

/** Drops it. */
export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('payments', (table) => {
    table.dropColumn('provider_receipt_number');
  });
}
