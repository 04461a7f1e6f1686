/**
 * `npm run sim` (docs/simulation.md): its bad flags, each refused with a message naming the flag and exit code 1,
 * before a database or the test server is started; and a violation, which ends the command with exit code 1.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { migratedSiblingDatabase } from '../../scripts/lib/postgres';
import { testConfig } from '../helpers/stack';

const root = path.resolve(__dirname, '../..');

/** Runs sim/main.ts with `args`; its exit code and what it printed. */
function sim(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'sim/main.ts'), ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 150_000,
    env,
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

describe('npm run sim: a violation', function () {
  this.timeout(180_000);

  // Its planted bug breaks the books on purpose: on a database of its own, never the suite's.
  it('prints the violation and its replay command, and exits 1', async () => {
    const url = await migratedSiblingDatabase(testConfig().DATABASE_URL, 'paycollect_sim_command');
    const { status, stdout } = sim(['--seed', '1', '--days', '0.05', '--plant', 'skipped-posting'], {
      ...process.env,
      DATABASE_URL: url,
    });
    expect(stdout).to.match(/VIOLATION seed 1, step \d+/);
    expect(stdout).to.contain('replay: npm run sim -- --seed 1 --days 0.05 --plant skipped-posting');
    expect(status).to.equal(1);
  });
});
