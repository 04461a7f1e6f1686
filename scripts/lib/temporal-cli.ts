/**
 * Finds or builds the Temporal CLI: TEMPORAL_CLI_PATH, then `temporal` on PATH, then the
 * user cache, then `go install …@v1.5.1` into the cache with visible progress.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Pinned on purpose: the newest tag buildable with `go install pkg@version` (later tags cannot be built that way). */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';

/** The cache folder shared by runs and CI on one machine. */
export function cacheDir(): string {
  return path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'paycollect');
}

function onPath(name: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  const resolved = found.stdout.trim();
  return found.status === 0 && resolved ? resolved : undefined;
}

async function goInstall(binDir: string, log: (line: string) => void): Promise<void> {
  if (!onPath('go'))
    throw new Error('the Temporal CLI is not installed and Go is not available to build it; set TEMPORAL_CLI_PATH');
  fs.mkdirSync(binDir, { recursive: true });
  log(`building the Temporal CLI ${TEMPORAL_CLI_VERSION} with go install (first run only, several minutes)…`);
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn('go', ['install', '-v', `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`], {
      env: { ...process.env, GOBIN: binDir, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let packages = 0;
    let downloads = 0;
    let lastReport = 0;
    let tail = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      tail = (tail + chunk).slice(-4000);
      for (const line of chunk.split('\n')) {
        if (line.startsWith('go: downloading')) downloads += 1;
        else if (line.trim()) packages += 1;
      }
      if (Date.now() - lastReport > 5000) {
        lastReport = Date.now();
        log(
          `  … ${downloads} modules downloaded, ${packages} packages compiled, ${Math.round((Date.now() - started) / 1000)} s`,
        );
      }
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`go install failed (exit ${code}):\n${tail}`)),
    );
  });
  log(`Temporal CLI built in ${Math.round((Date.now() - started) / 1000)} s`);
}

/**
 * The path of a working `temporal` binary, building it once when nothing else is found.
 * @param log progress lines for people watching a first, slow build
 */
export async function resolveTemporalCli(log: (line: string) => void): Promise<string> {
  if (process.env.TEMPORAL_CLI_PATH) return process.env.TEMPORAL_CLI_PATH;
  const fromPath = onPath('temporal');
  if (fromPath) return fromPath;
  const binDir = path.join(cacheDir(), `temporal-cli-${TEMPORAL_CLI_VERSION}`);
  const cached = path.join(binDir, 'temporal');
  if (!fs.existsSync(cached)) await goInstall(binDir, log);
  return cached;
}
