/**
 * The knex instance and migrations. Only `src/db` imports knex (style guide, rule 9).
 * PostgreSQL `bigint` (money in minor units) is read back as a JS number: every amount is at most
 * 10^12 (D5), well inside Number.MAX_SAFE_INTEGER, and a larger value is refused loudly.
 */
import path from 'node:path';
import knex, { type Knex } from 'knex';
import pg from 'pg';

const INT8_OID = 20;
pg.types.setTypeParser(INT8_OID, (value: string) => {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new RangeError(`bigint ${value} exceeds the safe integer range`);
  return parsed;
});

/** The database handle every repository takes. */
export type Db = Knex;

/** Folder of the knex migrations (top-level `migrations/`). */
export const MIGRATIONS_DIR = path.resolve(__dirname, '../../migrations');

/**
 * Opens a connection pool.
 * @param databaseUrl `postgres://…` connection string
 * @param poolMax largest number of pooled connections
 */
export function createDb(databaseUrl: string, poolMax = 10): Db {
  return knex({
    client: 'pg',
    connection: databaseUrl,
    pool: { min: 0, max: poolMax },
    migrations: { directory: MIGRATIONS_DIR, loadExtensions: ['.ts', '.js'] },
  });
}

/** Applies every pending migration; returns the names of the ones applied. */
export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest()) as [number, string[]];
  return applied;
}

/** Rolls every migration back (used by the test of reversibility). */
export async function migrateRollbackAll(db: Db): Promise<void> {
  await db.migrate.rollback(undefined, true);
}

/** `SELECT 1`, for readiness checks; throws when PostgreSQL cannot be reached. */
export async function pingDb(db: Db): Promise<void> {
  await db.raw('select 1');
}

/** ISO 8601 UTC string of a timestamp column value. */
export function iso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

/** ISO string or null for an optional timestamp column. */
export function isoOrNull(value: Date | string | null | undefined): string | null {
  return value === null || value === undefined ? null : iso(value);
}

/** True when `error` is PostgreSQL's unique_violation (SQLSTATE 23505). */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === '23505';
}
