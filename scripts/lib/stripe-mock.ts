/**
 * Finds or builds stripe-mock, Stripe's own mock of its API (it validates every request against
 * Stripe's OpenAPI spec and answers fixtures), and starts it on a free port for the tests of the
 * `card_gateway` adapter (docs/providers.md#tests). Obtained as the Temporal CLI is (./temporal-cli.ts):
 * STRIPE_MOCK_PATH, else the user cache, else `go install github.com/stripe/stripe-mock@v0.203.0`
 * into the cache with visible progress. A `stripe-mock` on PATH is not used: its version, and so
 * the API spec it checks requests against, would not be the pinned one.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { waitForPort } from './ports';
import { cacheDir } from './temporal-cli';
import { stopChild } from './temporal-dev-server';

/** Pinned on purpose (docs/providers.md#tests): the spec and fixtures are compiled into the binary. */
export const STRIPE_MOCK_VERSION = 'v0.203.0';

/** The environment variable naming a stripe-mock binary to use instead of the cached build. */
export const STRIPE_MOCK_PATH_ENV = 'STRIPE_MOCK_PATH';

/** Where the cached build lives: `<cache>/paycollect/stripe-mock-<version>/stripe-mock`. */
export function cachedStripeMockPath(): string {
  return path.join(cacheDir(), `stripe-mock-${STRIPE_MOCK_VERSION}`, 'stripe-mock');
}

function goAvailable(): boolean {
  return spawnSync('sh', ['-c', 'command -v go'], { encoding: 'utf8' }).status === 0;
}

async function goInstall(binDir: string, say: (line: string) => void): Promise<void> {
  if (!goAvailable())
    throw new Error(`stripe-mock is not installed and Go is not available to build it; set ${STRIPE_MOCK_PATH_ENV}`);
  fs.mkdirSync(binDir, { recursive: true });
  say(`building stripe-mock ${STRIPE_MOCK_VERSION} with go install (first run only, a minute or two)…`);
  const started = Date.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn('go', ['install', '-v', `github.com/stripe/stripe-mock@${STRIPE_MOCK_VERSION}`], {
      env: { ...process.env, GOBIN: binDir, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let lines = 0;
    let lastReport = 0;
    let tail = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      tail = (tail + chunk).slice(-4000);
      lines += chunk.split('\n').filter((line) => line.trim()).length;
      if (Date.now() - lastReport > 5000) {
        lastReport = Date.now();
        say(`  … ${lines} modules and packages, ${Math.round((Date.now() - started) / 1000)} s`);
      }
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`go install of stripe-mock failed (exit ${code}):\n${tail}`)),
    );
  });
  say(`stripe-mock built in ${Math.round((Date.now() - started) / 1000)} s`);
}

/**
 * The path of a stripe-mock binary: `$STRIPE_MOCK_PATH`, else the cached build, else one built now
 * with `go install` into the cache (reused by later runs).
 * @param say progress lines for people watching a first, slow build
 * @throws Error when nothing is found and Go is missing, or the build fails
 */
export async function resolveStripeMock(say: (line: string) => void): Promise<string> {
  const configured = process.env[STRIPE_MOCK_PATH_ENV];
  if (configured) return configured;
  const cached = cachedStripeMockPath();
  if (!fs.existsSync(cached)) await goInstall(path.dirname(cached), say);
  return cached;
}

/** A running stripe-mock: its base URL (`http://127.0.0.1:<port>`) and how to stop it. */
export interface StripeMock {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts `binary` serving plain HTTP on a port the OS picks (`-http-port 0`; stripe-mock prints the
 * port it got: `Listening for HTTP at address: [::]:<port>`) and resolves once it accepts connections, within 30 s.
 * @throws Error when it exits or does not listen in time (its output is in the message)
 */
export async function startStripeMock(binary: string): Promise<StripeMock> {
  const child = spawn(binary, ['-http-port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`stripe-mock did not say its port within 30 s:\n${output}`)),
      30_000,
    );
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-4000);
      const match = /Listening for HTTP (?:on port: |at address: \S*:)(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`stripe-mock exited with ${code}:\n${output}`));
    });
  }).catch(async (error: unknown) => {
    await stopChild(child, 2_000);
    throw error;
  });
  // Keep draining its output so a full pipe never blocks it.
  child.stdout.resume();
  child.stderr.resume();
  await waitForPort(port, 30_000);
  return { url: `http://127.0.0.1:${port}`, stop: () => stopChild(child, 5_000) };
}
