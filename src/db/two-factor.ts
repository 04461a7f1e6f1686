/**
 * Repository of two-factor sign-in (docs/security.md#two-factor): a person's sealed TOTP secret (pending until
 * confirmed), the last time step a code was taken from, and their hashed recovery codes.
 */
import type { Db } from './knex';

/** A person's two-factor state. */
export interface TwoFactorRow {
  id: string;
  email: string;
  totp_secret: string | null;
  totp_pending_secret: string | null;
  totp_enabled_at: Date | null;
  session_generation: number;
}

/** The two-factor state of a person, if they exist. */
export async function findTwoFactor(db: Db, personId: string): Promise<TwoFactorRow | undefined> {
  return db('developers')
    .where({ id: personId })
    .first('id', 'email', 'totp_secret', 'totp_pending_secret', 'totp_enabled_at', 'session_generation');
}

/** Stores a sealed secret waiting for its first code (replaces an earlier pending one). */
export async function setPendingSecret(db: Db, personId: string, sealed: string): Promise<void> {
  await db('developers').where({ id: personId }).update({ totp_pending_secret: sealed });
}

/**
 * Takes the time step `step` for the person unless a step at or after it was already taken: the atomic
 * guard that makes every code good once (docs/security.md#two-factor).
 * @returns true when the step was free and is now used
 */
export async function takeTotpStep(db: Db, personId: string, step: number): Promise<boolean> {
  const updated = await db('developers')
    .where({ id: personId })
    .where((q) => q.whereNull('totp_last_step').orWhere('totp_last_step', '<', step))
    .update({ totp_last_step: step });
  return updated > 0;
}

/**
 * Turns two-factor on with the pending secret, stores the recovery codes' hashes (replacing any), and raises
 * the session generation (earlier sessions end), in one transaction.
 * @returns the new session generation, or undefined when the pending secret changed meanwhile
 */
export async function enableTwoFactor(
  db: Db,
  personId: string,
  sealedSecret: string,
  recoveryHashes: readonly string[],
): Promise<number | undefined> {
  return db.transaction(async (trx) => {
    const [row] = await trx('developers')
      .where({ id: personId, totp_pending_secret: sealedSecret })
      .update(
        {
          totp_secret: sealedSecret,
          totp_pending_secret: null,
          totp_enabled_at: trx.fn.now(),
          session_generation: trx.raw('session_generation + 1'),
        },
        ['session_generation'],
      );
    if (!row) return undefined;
    await trx('recovery_codes').where({ developer_id: personId }).delete();
    await trx('recovery_codes').insert(recoveryHashes.map((hash) => ({ developer_id: personId, code_hash: hash })));
    return (row as { session_generation: number }).session_generation;
  });
}

/**
 * Turns two-factor off, forgets secret and recovery codes, and raises the session generation.
 * @returns the new session generation
 */
export async function disableTwoFactor(db: Db, personId: string): Promise<number> {
  return db.transaction(async (trx) => {
    const [row] = await trx('developers')
      .where({ id: personId })
      .update(
        {
          totp_secret: null,
          totp_pending_secret: null,
          totp_enabled_at: null,
          totp_last_step: null,
          session_generation: trx.raw('session_generation + 1'),
        },
        ['session_generation'],
      );
    await trx('recovery_codes').where({ developer_id: personId }).delete();
    return (row as { session_generation: number }).session_generation;
  });
}

/** Uses up the recovery code with this hash, once. @returns true when it existed and was unused */
export async function useRecoveryCode(db: Db, personId: string, codeHash: string): Promise<boolean> {
  const updated = await db('recovery_codes')
    .where({ developer_id: personId, code_hash: codeHash })
    .whereNull('used_at')
    .update({ used_at: db.fn.now() });
  return updated > 0;
}

/** How many unused recovery codes the person has left. */
export async function countRecoveryCodesLeft(db: Db, personId: string): Promise<number> {
  const [{ total }] = (await db('recovery_codes')
    .where({ developer_id: personId })
    .whereNull('used_at')
    .count('* as total')) as unknown as [{ total: number }];
  return Number(total);
}
