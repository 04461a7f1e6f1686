/**
 * The knex instance and migrations. Only `src/db` imports knex (docs/architecture.md#layers).
 * PostgreSQL `bigint` (money in minor units) is read back as a JS number: every amount is at most
 * 10^12 (docs/limits.md#amounts), well inside Number.MAX_SAFE_INTEGER, and a larger value is refused loudly.
 */
import fs from 'node:fs';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import pg from 'pg';
import { holdsUnstorableText } from '../domain/text';
import { getProcessLogger, knexLogHooks, type Logger } from '../logger';

const INT8_OID = 20;
pg.types.setTypeParser(INT8_OID, (value: string) => {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new RangeError(`bigint ${value} exceeds the safe integer range`);
  return parsed;
});

/** The database handle every repository takes. */
export type Db = Knex;

/** Folder of the knex migrations (top-level `migrations/`; `dist/migrations/` once compiled). */
export const MIGRATIONS_DIR = path.resolve(__dirname, '../../migrations');

/**
 * The migrations of {@link MIGRATIONS_DIR}, each named by its TypeScript source (`….ts`) in
 * `knex_migrations` whether it runs from source (tsx: `npm start`, `npm run migrate`) or compiled
 * (`dist/migrations/….js`, the Docker image), so one database can be migrated by either. With knex's
 * default source the compiled names (`….js`) do not match the recorded ones and knex refuses to run
 * ("the migration directory is corrupt").
 */
export const migrationSource: Knex.MigrationSource<string> = {
  async getMigrations() {
    const files = await fs.promises.readdir(MIGRATIONS_DIR);
    return files.filter((file) => /\.(ts|js)$/.test(file) && !file.endsWith('.d.ts')).sort();
  },
  getMigrationName: (file) => file.replace(/\.js$/, '.ts'),
  getMigration: async (file) => {
    const loaded = (await import(path.join(MIGRATIONS_DIR, file))) as Knex.Migration & { default?: Knex.Migration };
    return typeof loaded.up === 'function' ? loaded : (loaded.default as Knex.Migration);
  },
};

/**
 * Time bounds of every statement on a pool (docs/operations.md#deadlines), in milliseconds: how long opening a
 * connection may take, PostgreSQL's own `statement_timeout`, and how long the client waits for
 * any answer (a stalled or unreachable server cancels nothing itself). A pool slot is waited for
 * at most `connectMs + queryMs`: a busy connection is free again within one query time-out, a new
 * one is open within the connect time-out. Past any of them the call fails with an error
 * `lib/outage.ts` takes for an outage (503 in the API; the activity's attempt fails and Temporal
 * retries it).
 */
export interface DbTimeouts {
  connectMs: number;
  statementMs: number;
  queryMs: number;
}

/** The {@link DbTimeouts} of a configuration's `DATABASE_*_TIMEOUT_MS` settings. */
export function dbTimeoutsOf(config: {
  DATABASE_CONNECT_TIMEOUT_MS: number;
  DATABASE_STATEMENT_TIMEOUT_MS: number;
  DATABASE_QUERY_TIMEOUT_MS: number;
}): DbTimeouts {
  return {
    connectMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    statementMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
    queryMs: config.DATABASE_QUERY_TIMEOUT_MS,
  };
}

/**
 * Opens a connection pool. knex's own warnings, errors, deprecations and debug output go to the
 * JSON log (docs/operations.md#logs) through its `log` hooks, with the log context's ids of the request or activity
 * that ran the query. Statements carrying text PostgreSQL cannot store as it is are refused
 * before they are sent ({@link UnstorableTextError}).
 * @param databaseUrl `postgres://…` connection string
 * @param poolMax largest number of pooled connections
 * @param logger where knex's lines go (default: the process logger, src/logger.ts)
 * @param timeouts bounds of every statement (the API and the worker pass their configuration's);
 *   none for migrations and scripts, whose statements may rightly run long
 */
export function createDb(databaseUrl: string, poolMax = 10, logger?: Logger, timeouts?: DbTimeouts): Db {
  const connection: Knex.PgConnectionConfig = timeouts
    ? {
        connectionString: databaseUrl,
        connectionTimeoutMillis: timeouts.connectMs,
        statement_timeout: timeouts.statementMs,
        query_timeout: timeouts.queryMs,
        // A server gone without a word (no FIN, no RST) is noticed on an idle connection too.
        keepAlive: true,
      }
    : { connectionString: databaseUrl };
  return refuseUnstorableText(
    knex({
      client: 'pg',
      connection,
      pool: { min: 0, max: poolMax },
      ...(timeouts ? { acquireConnectionTimeout: timeouts.connectMs + timeouts.queryMs } : {}),
      migrations: { migrationSource },
      log: knexLogHooks(() => logger ?? getProcessLogger()),
    }),
  );
}

/**
 * A statement refused before it reached PostgreSQL because a value holds text PostgreSQL cannot
 * store as it is (a lone surrogate, a NUL; docs/limits.md#request-bodies). Carries SQLSTATE 22021
 * (`character_not_in_repertoire`), so it is a data error like PostgreSQL's own (src/db/errors.ts).
 */
export class UnstorableTextError extends Error {
  /** SQLSTATE 22021, as PostgreSQL reports a NUL in text. */
  readonly code = '22021';

  constructor() {
    super('a value holds text that cannot be stored (a lone surrogate or a NUL); the statement was not sent');
    this.name = 'UnstorableTextError';
  }
}

/**
 * Makes `db` refuse, before sending it, any statement whose bindings hold text PostgreSQL cannot
 * store as it is: a text column would silently keep U+FFFD for a lone surrogate, jsonb refuses it.
 * The API validates all text at its edge; this is the second line, so a write that must not fail
 * after a side effect fails before it instead, and no text is ever stored altered.
 * @throws UnstorableTextError from the statement's promise
 */
function refuseUnstorableText(db: Knex): Knex {
  db.on('query', (query: { bindings?: unknown[] }) => {
    if (query.bindings?.some((value) => holdsUnstorableText(value))) throw new UnstorableTextError();
  });
  return db;
}

/**
 * `value` as JSON text for a jsonb binding, refused first when it holds text PostgreSQL cannot store
 * (JSON.stringify turns a lone surrogate into an escape the guard of {@link createDb} cannot see).
 * @throws UnstorableTextError
 */
export function storableJson(value: unknown): string {
  if (holdsUnstorableText(value)) throw new UnstorableTextError();
  return JSON.stringify(value);
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
