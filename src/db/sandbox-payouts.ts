/**
 * The sandbox payout rails' records in PostgreSQL (docs/payouts.md#sandbox-destinations): what
 * src/providers/sandbox/payout-simulator.ts keeps of each payout, shared by every worker. A send is recorded once
 * per reference; the first taking wins. Timestamps are `timestamptz` read back as `Date`.
 */
import type { SandboxPayoutRecord } from '../domain/sandbox-payouts';
import type { Db } from './knex';

/**
 * Records `row` unless a payout with its reference exists (a repeated send, or a concurrent one: `on conflict`
 * waits for it), in one statement when new.
 * @returns the stored record either way
 */
export async function recordSandboxPayoutAttempt(db: Db, row: SandboxPayoutRecord): Promise<SandboxPayoutRecord> {
  const inserted: SandboxPayoutRecord[] = await db('sandbox_provider_payouts')
    .insert(row)
    .onConflict('provider_reference')
    .ignore()
    .returning('*');
  return inserted[0] ?? ((await findSandboxPayout(db, row.provider_reference)) as SandboxPayoutRecord);
}

/**
 * Marks the payout `reference` taken at `at` unless it already was (the first taking stays).
 * @returns the record as it stands afterwards; undefined for an unknown reference
 */
export async function takeSandboxPayout(db: Db, reference: string, at: Date): Promise<SandboxPayoutRecord | undefined> {
  await db('sandbox_provider_payouts').where({ provider_reference: reference }).whereNull('taken_at').update({
    taken_at: at,
  });
  return findSandboxPayout(db, reference);
}

/** The payout `reference` as recorded; undefined when the rail never saw it. */
export async function findSandboxPayout(db: Db, reference: string): Promise<SandboxPayoutRecord | undefined> {
  return db<SandboxPayoutRecord>('sandbox_provider_payouts').where({ provider_reference: reference }).first();
}

/** The records on `db`, as the payout simulator's ledger (`SandboxPayoutLedger`) uses them. */
export function createSandboxPayoutLedger(db: Db) {
  return {
    recordPayoutAttempt: (row: SandboxPayoutRecord) => recordSandboxPayoutAttempt(db, row),
    takePayout: (reference: string, at: Date) => takeSandboxPayout(db, reference, at),
    findPayout: (reference: string) => findSandboxPayout(db, reference),
  };
}
