/**
 * A payment's `next_action` is kept only while it is open (docs/payments.md#payment-record): every
 * status change that settles it now clears it. Rows written before kept theirs (a completed
 * card payment still held its client secret); this clears them. Nothing to restore on the way down:
 * a settled payment has no next step.
 */
import type { Knex } from 'knex';

/** Clears `next_action` of every payment that is settled (no longer `pending` or `processing`). */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `UPDATE payments SET next_action = NULL WHERE status NOT IN ('pending', 'processing') AND next_action IS NOT NULL`,
  );
}

/** Nothing: the cleared next steps belonged to settled payments. */
export async function down(): Promise<void> {}
