/**
 * Idempotency claims with a lease (docs/payments.md#idempotency): `claimed_at` is when the request that owns the key
 * took it; a claim with no stored answer whose owner died is taken over once the lease ran out,
 * while `created_at` still starts the key's 24 h replay window.
 */
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.timestamp('claimed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => t.dropColumn('claimed_at'));
}
