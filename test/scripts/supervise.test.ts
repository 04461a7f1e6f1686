/**
 * `npm start`'s supervision (docs/operations.md#supervision, scripts/lib/supervise.ts): when one of the
 * processes it started dies (PostgreSQL, the Temporal dev server, the worker, the API), it learns
 * which, once, so that it stops the rest instead of leaving them serving nothing. Real child
 * processes, killed as a crash would end them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'chai';
import { superviseChildren, type ProcessEnd } from '../../scripts/lib/supervise';

/** A child process that runs until killed. */
function sleeper(): ChildProcess {
  return spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

describe("npm start's supervision of what it started (docs/operations.md#supervision)", () => {
  const started: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of started.splice(0)) {
      child.kill('SIGKILL');
      await exited(child);
    }
  });

  it('reports the first process to die, by name and signal, once, while the others still run', async () => {
    const [database, temporal, api] = [sleeper(), sleeper(), sleeper()];
    started.push(database, temporal, api);
    const ends: ProcessEnd[] = [];
    const reported = new Promise<void>((resolve) => {
      superviseChildren(
        [
          { name: 'PostgreSQL', process: database },
          { name: 'Temporal dev server', process: temporal },
          { name: 'api', process: api },
        ],
        (end) => {
          ends.push(end);
          resolve();
        },
      );
    });
    temporal.kill('SIGKILL');
    await reported;
    database.kill('SIGTERM'); // as the stop that follows does: not a second report
    await exited(database);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ends).to.deep.equal([{ name: 'Temporal dev server', code: null, signal: 'SIGKILL' }]);
    expect(api.exitCode === null && api.signalCode === null).to.equal(true);
  });

  it('reports a process that exits with a code, and one already gone when supervision starts', async () => {
    const quitter = spawn(process.execPath, ['-e', 'process.exit(3)'], { stdio: 'ignore' });
    started.push(quitter);
    await exited(quitter);
    const end = await new Promise<ProcessEnd>((resolve) =>
      superviseChildren([{ name: 'worker', process: quitter }], resolve),
    );
    expect(end).to.deep.equal({ name: 'worker', code: 3, signal: null });
  });

  it('reports nothing once told to stop watching', async () => {
    const worker = sleeper();
    started.push(worker);
    const ends: ProcessEnd[] = [];
    const stopWatching = superviseChildren([{ name: 'worker', process: worker }], (end) => ends.push(end));
    stopWatching();
    worker.kill('SIGKILL');
    await exited(worker);
    expect(ends).to.deep.equal([]);
  });
});
