/**
 * `npm test`: type check, lint, then every mocha test against real parts, all started here on free
 * ports and stopped at the end: an embedded PostgreSQL (or DATABASE_URL), a Temporal dev server in
 * memory, and the Java time-skipping test server for workflow timers.
 * Prints a closing line `tests: N passed, M failed` and exits non-zero on any failure.
 * Arguments are test file globs (default: everything under test/).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import exitHook from 'async-exit-hook';
import Mocha from 'mocha';
import { mochaHooks } from '../test/helpers/root-hooks';
import { migratedRunDatabase, type Database } from './lib/postgres';
import { throwawaySecrets } from './lib/secrets';
import { ensureChromium, ensureDashboardBuilt } from './lib/dashboard';
import { ensureDebianPackage } from './lib/debian-package';
import { PROMTOOL_PATH } from './lib/promtool';
import { resolveStripeMock } from './lib/stripe-mock';
import { resolveTemporalCli } from './lib/temporal-cli';
import { startDevServer, type DevServer } from './lib/temporal-dev-server';

const root = path.resolve(__dirname, '..');
const say = (line: string) => process.stdout.write(`[test] ${line}\n`);

function step(name: string, command: string, args: string[]): void {
  say(name);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    say(`${name} failed`);
    process.stdout.write('tests: 0 passed, 1 failed\n');
    process.exit(1);
  }
}

function testFiles(patterns: string[]): string[] {
  const all: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.test.ts')) all.push(full);
    }
  };
  walk(path.join(root, 'test'));
  const filtered = patterns.length ? all.filter((file) => patterns.some((p) => file.includes(p))) : all;
  return filtered.sort();
}

/** The sources the formatter keeps (`npm run format`; settings in .prettierrc.json, exceptions in .prettierignore). */
const FORMATTED = [
  'src',
  'test',
  'scripts',
  'sim',
  'migrations',
  'bench',
  'clients',
  'web/src',
  'web/vite.config.ts',
  'eslint.config.mjs',
];

async function main(): Promise<void> {
  const filters = process.argv.slice(2);
  if (!process.env.SKIP_STATIC_CHECKS) {
    step('type check (tsc --noEmit)', path.join(root, 'node_modules/.bin/tsc'), ['--noEmit', '-p', '.']);
    step('lint (eslint)', path.join(root, 'node_modules/.bin/eslint'), [
      'src',
      'test',
      'scripts',
      'sim',
      'migrations',
      'bench',
      'clients',
      'web/src',
      'web/vite.config.ts',
    ]);
    step('format (prettier --check)', path.join(root, 'node_modules/.bin/prettier'), [
      '--check',
      '--log-level',
      'warn',
      ...FORMATTED,
    ]);
  }

  // The browser tests, when they are selected: Debian's Chromium (the dashboard's, README.md#dashboard, and the hosted
  // payment page's, docs/hosted-page.md), and for the dashboard's a current build.
  const selected = testFiles(filters);
  const dashboardTests = selected.some((file) => file.includes(`${path.sep}test${path.sep}dashboard${path.sep}`));
  if (dashboardTests || selected.some((file) => file.endsWith(`${path.sep}page${path.sep}browser.test.ts`))) {
    try {
      ensureChromium(say);
    } catch (error) {
      say(error instanceof Error ? error.message : String(error));
      process.stdout.write('tests: 0 passed, 1 failed\n');
      process.exit(1);
    }
    if (dashboardTests && !ensureDashboardBuilt(say)) {
      process.stdout.write('tests: 0 passed, 1 failed\n');
      process.exit(1);
    }
  }

  // The alert rules' tests (docs/operations.md#alerts), when they are selected: Debian's promtool.
  if (testFiles(filters).some((file) => file.includes(`${path.sep}test${path.sep}ops${path.sep}`))) {
    try {
      ensureDebianPackage(say, 'prometheus', PROMTOOL_PATH, "the alert rules' tests run promtool");
    } catch (error) {
      say(error instanceof Error ? error.message : String(error));
      process.stdout.write('tests: 0 passed, 1 failed\n');
      process.exit(1);
    }
  }

  const runDir = path.join(root, 'var', `test-${process.pid}-${randomBytes(3).toString('hex')}`);
  fs.mkdirSync(runDir, { recursive: true });
  const started: { temporal?: DevServer; database?: Database } = {};
  let stopped = false;
  const stopAll = async () => {
    if (stopped) return;
    stopped = true;
    await started.temporal?.stop();
    await started.database?.stop();
    fs.rmSync(runDir, { recursive: true, force: true });
  };
  exitHook((done) => void stopAll().finally(done));

  const cli = await resolveTemporalCli(say);
  const stripeMock = await resolveStripeMock(say);
  const testServer = path.join(root, 'scripts', 'temporal-test-server.sh');
  step('resolving the Java time-skipping test server', testServer, ['--resolve-only']);

  started.database = await migratedRunDatabase(path.join(runDir, 'pgdata'), say);
  const databaseUrl = started.database.url;

  say('starting a Temporal dev server (in memory)');
  const temporal = await startDevServer({ cliPath: cli, ui: false, logFile: path.join(runDir, 'temporal.log') });
  started.temporal = temporal;

  Object.assign(process.env, {
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TEST_SERVER_PATH: testServer,
    STRIPE_MOCK_PATH: stripeMock,
    ...throwawaySecrets(),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    WORKER_METRICS_PORT: '0',
    TEST_RUN_DIR: runDir,
    DOCUMENT_STORE_DIR: path.join(runDir, 'documents'),
    MAIL_OUTBOX_DIR: path.join(runDir, 'mail'),
  });

  const mocha = new Mocha({ timeout: 60_000, reporter: 'spec', rootHooks: mochaHooks });
  for (const file of testFiles(filters)) mocha.addFile(file);
  await mocha.loadFilesAsync();
  const { passes, failures } = await new Promise<{ passes: number; failures: number }>((resolve) => {
    const runner = mocha.run(() =>
      resolve({ passes: runner.stats?.passes ?? 0, failures: runner.stats?.failures ?? 0 }),
    );
  });
  await stopAll();
  process.stdout.write(`tests: ${passes} passed, ${failures} failed\n`);
  process.exit(failures > 0 || passes === 0 ? 1 : 0);
}

main().catch((error: unknown) => {
  process.stderr.write(`[test] ${error instanceof Error ? error.stack : String(error)}\n`);
  process.stdout.write('tests: 0 passed, 1 failed\n');
  process.exit(1);
});
