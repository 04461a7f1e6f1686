/**
 * Installs a program from Debian's packages when a test needs it and the machine lacks it: Chromium
 * for the dashboard's browser tests (README.md#dashboard), promtool for the alert rules' tests
 * (docs/operations.md#alerts). As root with apt-get, otherwise through sudo when there is one; the
 * package lists are refreshed once when the first try fails (a fresh machine may not have them).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

/**
 * Makes sure `binary` exists, installing Debian's package `pkg` when it does not.
 * @param why what needs it, for the line said before installing
 * @throws Error when it is still missing afterwards
 */
export function ensureDebianPackage(say: (line: string) => void, pkg: string, binary: string, why: string): void {
  if (fs.existsSync(binary)) return;
  say(`${binary} is missing: installing Debian's package ${pkg} with apt-get (${why})`);
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = (args: string[]) =>
    spawnSync(asRoot ? 'apt-get' : 'sudo', asRoot ? args : ['-n', 'apt-get', ...args], { stdio: 'inherit', env });
  let result = apt(['install', '-y', pkg]);
  if (result.status !== 0) {
    apt(['update']);
    result = apt(['install', '-y', pkg]);
  }
  if (!fs.existsSync(binary))
    throw new Error(
      `${pkg} could not be installed (apt-get install -y ${pkg} exited ${result.status}); install it and run the tests again`,
    );
  say(`${pkg} installed`);
}
