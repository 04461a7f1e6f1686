/**
 * Finds or installs Schemathesis, the schema-driven API fuzzer the OpenAPI fuzz test runs
 * (test/fuzz/): SCHEMATHESIS_PATH, then a virtual environment in the user cache (next to the
 * Temporal CLI's), created with `python3 -m venv` and `pip install schemathesis==<pinned>` on first use.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cacheDir } from './temporal-cli';

/** Pinned on purpose: a newer release may generate other cases or change its report format. */
export const SCHEMATHESIS_VERSION = '4.32.5';

/** What a finished command printed and how it ended. */
interface Finished {
  code: number | null;
  output: string;
}

/** Runs `command args` without blocking the event loop (the test's in-process worker keeps running). */
function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output = (output + chunk).slice(-8000)));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output = (output + chunk).slice(-8000)));
    child.on('error', (error) => resolve({ code: -1, output: `${output}${error.message}` }));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

/**
 * The path of a working `st` (Schemathesis CLI) of {@link SCHEMATHESIS_VERSION}, installing it
 * into the cache on first use (about 10 s with PyPI reachable).
 * @param log progress lines for a first, slower run
 * @throws Error when python3 cannot create the environment or pip cannot install the package
 */
export async function resolveSchemathesis(log: (line: string) => void): Promise<string> {
  if (process.env.SCHEMATHESIS_PATH) return process.env.SCHEMATHESIS_PATH;
  const venv = path.join(cacheDir(), `schemathesis-${SCHEMATHESIS_VERSION}`);
  const st = path.join(venv, 'bin', 'st');
  if (fs.existsSync(st) && (await run(st, ['--version'])).output.includes(SCHEMATHESIS_VERSION)) return st;
  log(`installing Schemathesis ${SCHEMATHESIS_VERSION} into ${venv} (first run only)`);
  fs.rmSync(venv, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(venv), { recursive: true });
  const created = await run('python3', ['-m', 'venv', venv]);
  if (created.code !== 0) throw new Error(`python3 -m venv failed (exit ${created.code}):\n${created.output}`);
  const installed = await run(path.join(venv, 'bin', 'pip'), [
    'install',
    '--quiet',
    `schemathesis==${SCHEMATHESIS_VERSION}`,
  ]);
  if (installed.code !== 0) {
    fs.rmSync(venv, { recursive: true, force: true });
    throw new Error(
      `pip install schemathesis==${SCHEMATHESIS_VERSION} failed (exit ${installed.code}):\n${installed.output}`,
    );
  }
  return st;
}
