/**
 * What the merchant dashboard (README.md#dashboard) needs on this machine: its build (`web/` → `web/dist`, made by
 * `npm start` and the test command when missing or older than its sources) and, for its browser
 * tests, Debian's Chromium (installed with apt-get when missing; Playwright's own browser download
 * is not reachable here).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ensureDebianPackage } from './debian-package';

const root = path.resolve(__dirname, '..', '..');
const webDir = path.join(root, 'web');

/** Where the tests find Chromium (Debian's package `chromium`). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Newest modification time (ms) of the files under `target` (a file or a folder), 0 when none. */
function newestMtimeMs(target: string): number {
  if (!fs.existsSync(target)) return 0;
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(target)) newest = Math.max(newest, newestMtimeMs(path.join(target, entry)));
  return newest;
}

/**
 * `missing` when there is no build, `stale` when a source is newer than it (web/src, index.html,
 * the Vite and TypeScript settings, package.json, and the service's pure modules the app imports),
 * else `fresh`.
 */
export function dashboardBuildState(): 'missing' | 'stale' | 'fresh' {
  const built = path.join(webDir, 'dist', 'index.html');
  if (!fs.existsSync(built)) return 'missing';
  const sources = ['src', 'index.html', 'vite.config.ts', 'tsconfig.json', 'package.json'].map((name) =>
    path.join(webDir, name),
  );
  // The service's own pure modules the app imports: currencies, id prefixes, the providers' descriptors.
  sources.push(path.join(root, 'src', 'domain', 'money.ts'), path.join(root, 'src', 'domain', 'ids.ts'));
  sources.push(path.join(root, 'src', 'providers', 'descriptors.ts'));
  for (const entry of fs.readdirSync(path.join(root, 'src', 'providers'), { withFileTypes: true })) {
    const descriptor = path.join(root, 'src', 'providers', entry.name, 'descriptor.ts');
    if (entry.isDirectory() && fs.existsSync(descriptor)) sources.push(descriptor);
  }
  const newest = Math.max(...sources.map(newestMtimeMs));
  return newest > fs.statSync(built).mtimeMs ? 'stale' : 'fresh';
}

function run(say: (line: string) => void, what: string, command: string, args: string[]): boolean {
  say(what);
  const result = spawnSync(command, args, { cwd: webDir, stdio: 'inherit' });
  if (result.status === 0) return true;
  say(`${what} failed (exit ${result.status ?? result.signal})`);
  return false;
}

/**
 * Type-checks and builds the dashboard when its build is missing or stale, installing web/'s
 * packages first when they are not there (`npm ci`, from web/package-lock.json).
 * @returns true when a current build is there afterwards
 */
export function ensureDashboardBuilt(say: (line: string) => void): boolean {
  const state = dashboardBuildState();
  if (state === 'fresh') return true;
  if (!fs.existsSync(path.join(webDir, 'node_modules', '.bin', 'vite'))) {
    if (!run(say, "installing the dashboard's packages (npm ci in web/)", 'npm', ['ci', '--no-audit', '--no-fund']))
      return false;
  }
  if (
    !run(
      say,
      `type-checking the dashboard (${state} build): tsc in web/`,
      path.join(webDir, 'node_modules', '.bin', 'tsc'),
      ['--noEmit', '-p', '.'],
    )
  )
    return false;
  return run(say, 'building the dashboard: vite build in web/', path.join(webDir, 'node_modules', '.bin', 'vite'), [
    'build',
    '--logLevel',
    'warn',
  ]);
}

/**
 * Makes sure Debian's Chromium is at {@link CHROMIUM_PATH}, installing it when it is missing.
 * @throws Error when it is still missing afterwards
 */
export function ensureChromium(say: (line: string) => void): void {
  ensureDebianPackage(say, 'chromium', CHROMIUM_PATH, 'the browser tests need it');
}
