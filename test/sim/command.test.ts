/**
 * `npm run sim`'s bad flags (docs/simulation.md): each is refused with a message naming the flag and exit code 1,
 * before a database or the test server is started.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';

const root = path.resolve(__dirname, '../..');

/** Runs sim/main.ts with `args`; its exit code and what it printed. */
function sim(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'sim/main.ts'), ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('npm run sim: bad flags', function () {
  this.timeout(120_000);

  for (const [args, named] of [
    [['--plant', 'bogus'], /--plant <name>' argument 'bogus' is invalid\. Allowed choices are refund-sent-on-retry/],
    [['--days', '0'], /--days <d>' argument '0' is invalid\. must be a positive number/],
    [['--seed', '-1'], /--seed <n>' argument '-1' is invalid\. must be a whole number/],
    [['--seeds', 'two'], /--seeds <n>' argument 'two' is invalid\. must be a whole number/],
  ] as const) {
    it(`refuses ${args.join(' ')} naming the flag, and starts nothing`, () => {
      const { status, stdout, stderr } = sim([...args]);
      expect(status).to.equal(1);
      expect(stderr).to.match(named);
      expect(stdout).to.equal('');
    });
  }
});
