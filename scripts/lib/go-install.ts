/**
 * Builds Go programs from the Go module proxy into the user cache: `go install pkg@version`
 * with `GOBIN` pointing into a staging folder that is renamed into place only once every binary was
 * built, so an interrupted build never leaves a half-filled cache folder, and two runs building at
 * once both end with a complete one. Progress is printed every few seconds, as a first build
 * downloads and compiles for minutes.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** True when `go` is on PATH. */
export function goAvailable(): boolean {
  return spawnSync('sh', ['-c', 'command -v go'], { encoding: 'utf8' }).status === 0;
}

/**
 * Runs `go install <packages>` (each `module/path@version`, all of one module at one version when
 * more than one) into `binDir`, unless every binary named in `binaries` is already there.
 * @param binDir the cache folder the binaries end up in (created)
 * @param binaries the file names `go install` produces (the last element of each package path)
 * @param log progress lines for people watching a first, slow build
 * @returns the absolute paths of `binaries` in `binDir`, in order
 * @throws Error when Go is missing or `go install` fails (the last 4 KB of its output attached)
 */
export async function goInstallCached(
  binDir: string,
  packages: string[],
  binaries: string[],
  log: (line: string) => void,
  what: string,
): Promise<string[]> {
  const paths = binaries.map((name) => path.join(binDir, name));
  if (paths.every((file) => fs.existsSync(file))) return paths;
  if (!goAvailable()) throw new Error(`${what} is not in the cache (${binDir}) and Go is not available to build it`);
  const staging = `${binDir}.building-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  log(`building ${what} with go install ${packages.join(' ')} (first run only, a few minutes)…`);
  const started = Date.now();
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn('go', ['install', '-v', ...packages], {
        env: { ...process.env, GOBIN: staging, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let packagesBuilt = 0;
      let downloads = 0;
      let lastReport = Date.now();
      let tail = '';
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => {
        tail = (tail + chunk).slice(-4000);
        for (const line of chunk.split('\n')) {
          if (line.startsWith('go: downloading')) downloads += 1;
          else if (line.trim()) packagesBuilt += 1;
        }
        if (Date.now() - lastReport > 10_000) {
          lastReport = Date.now();
          log(
            `  … ${downloads} modules downloaded, ${packagesBuilt} packages compiled, ${Math.round((Date.now() - started) / 1000)} s`,
          );
        }
      });
      child.on('error', reject);
      child.on('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`go install ${packages.join(' ')} failed (exit ${code}):\n${tail}`)),
      );
    });
    fs.mkdirSync(path.dirname(binDir), { recursive: true });
    // Another run may have finished first: keep its folder, which is complete too.
    if (!paths.every((file) => fs.existsSync(file))) {
      fs.rmSync(binDir, { recursive: true, force: true });
      fs.renameSync(staging, binDir);
    }
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  log(`${what} built in ${Math.round((Date.now() - started) / 1000)} s`);
  return paths;
}
