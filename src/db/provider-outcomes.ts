/**
 * The decided attempts operator health is measured from (docs/availability.md#classification): one
 * `provider_outcomes` row per collection, refund or payout decided, written once per object and operation. Apart from
 * src/db/provider-health.ts (which reads them) so that the payment's writer (src/db/payments.ts) records a row's
 * outcome in its own statement without an import circle.
 */
import type { Knex } from 'knex';
import type { Environment } from '../domain/environment';
import type { DecidedAttempt, HealthKey } from '../domain/provider-health';
import type { Db } from './knex';

/** A decided attempt to record: which provider, country and operation, whose object, and how it ended. */
export interface ProviderOutcomeInput extends HealthKey {
  environment: Environment;
  merchantId: string;
  /** The payment, payout or refund id. */
  objectId: string;
  attempt: DecidedAttempt;
}

/** Records one decided attempt; a second record of the same object and operation changes nothing. */
export async function recordProviderOutcome(db: Db, input: ProviderOutcomeInput): Promise<void> {
  await db('provider_outcomes')
    .insert({
      environment: input.environment,
      provider: input.provider,
      country: input.country,
      operation: input.operation,
      merchant_id: input.merchantId,
      object_id: input.objectId,
      decided_at: new Date(input.attempt.decidedAt),
      duration_ms: Math.round(input.attempt.seconds * 1000),
      outcome: input.attempt.outcome,
      side: input.attempt.side,
      never_reached: input.attempt.neverReached,
    })
    .onConflict(['object_id', 'operation'])
    .ignore();
}

/**
 * SQL: inserts `input` when `holds` is true, unless its object and operation are recorded (a retried write records
 * nothing twice): the form {@link recordProviderOutcome} takes inside the one statement of a payment's write
 * (src/db/payments.ts), so the outcome commits with the row the table's effect came with.
 */
export function providerOutcomeInsert(db: Db, input: ProviderOutcomeInput, holds: Knex.Raw): Knex.Raw {
  return db.raw(
    `insert into provider_outcomes (environment, provider, country, operation, merchant_id, object_id, decided_at,
       duration_ms, outcome, side, never_reached)
     select ?, ?, ?, ?, ?, ?, ?::timestamptz, ?::bigint, ?, ?, ? where ?
     on conflict (object_id, operation) do nothing`,
    [
      input.environment,
      input.provider,
      input.country,
      input.operation,
      input.merchantId,
      input.objectId,
      new Date(input.attempt.decidedAt).toISOString(),
      Math.round(input.attempt.seconds * 1000),
      input.attempt.outcome,
      input.attempt.side,
      input.attempt.neverReached,
      holds,
    ],
  );
}

/**
 * Deletes the outcomes decided before `before` (the retention of docs/availability.md#recording, run by the API's
 * housekeeping in src/db/maintenance.ts).
 * @returns how many were deleted
 */
export async function deleteProviderOutcomesBefore(db: Db, before: Date): Promise<number> {
  return db('provider_outcomes').where('decided_at', '<', before).delete();
}
