/**
 * `docker compose config` without Docker: the Docker client here has no Compose plugin and there is
 * no engine, so the Compose file is loaded by compose-go, the Compose Specification's reference
 * loader that Docker Compose is built on, through the small program in ./compose-config (built
 * with `go build` into the user cache, like the Temporal CLI; its modules come from the Go module
 * proxy, pinned by its go.sum). It validates the file against the Compose schema, interpolates
 * variables (`${VAR:?message}` fails when VAR is unset), resolves anchors and merge keys, and prints
 * the project as JSON, as `docker compose config --format json` does.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cacheDir } from '../../scripts/lib/temporal-cli';

const SOURCE_DIR = path.join(__dirname, 'compose-config');

/**
 * The path of the loader program, built on first use and again when its source changes (seconds
 * once the Go modules are cached).
 * @throws Error when Go is missing or the build fails
 */
export function composeLoader(): string {
  const digest = createHash('sha256');
  for (const name of ['go.mod', 'go.sum', 'main.go']) digest.update(fs.readFileSync(path.join(SOURCE_DIR, name)));
  const binary = path.join(cacheDir(), `compose-config-${digest.digest('hex').slice(0, 12)}`);
  if (fs.existsSync(binary)) return binary;
  const staging = `${binary}.building-${process.pid}`;
  const built = spawnSync('go', ['build', '-o', staging, '.'], {
    cwd: SOURCE_DIR,
    env: { ...process.env, CGO_ENABLED: '0' },
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (built.status !== 0)
    throw new Error(
      `go build of test/deploy/compose-config failed (${built.error?.message ?? built.status}):\n${(built.stderr ?? '').slice(-4096)}`,
    );
  fs.renameSync(staging, binary);
  return binary;
}

/** What loading a Compose file gave: the model, or the loader's error. */
export type ComposeResult = { ok: true; model: ComposeModel } | { ok: false; error: string };

/** The parts of the Compose model the tests read (the loader's JSON, normalised). */
export interface ComposeModel {
  name: string;
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/** One service of the model. */
export interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile?: string };
  command?: string[] | null;
  entrypoint?: string[] | null;
  environment?: Record<string, string | null>;
  depends_on?: Record<string, { condition: string; required?: boolean }>;
  restart?: string;
  healthcheck?: { test: string[]; interval?: string; timeout?: string; retries?: number; start_period?: string };
  ports?: { target: number; published?: string; host_ip?: string }[];
  user?: string;
  volumes?: { type: string; source: string; target: string }[];
}

/**
 * Loads `file` as `docker compose config --format json` would, with exactly `env` as the
 * environment (nothing of the test run's leaks in).
 */
export function loadCompose(file: string, env: Record<string, string>): ComposeResult {
  const result = spawnSync(composeLoader(), [file], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (result.status !== 0) return { ok: false, error: `${result.stderr}${result.stdout}` };
  return { ok: true, model: JSON.parse(result.stdout) as ComposeModel };
}
