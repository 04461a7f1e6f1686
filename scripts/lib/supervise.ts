/**
 * Supervision of the processes `npm start` runs (docs/operations.md#supervision): PostgreSQL, the Temporal dev
 * server, the worker and the API depend on one another, so when one of them dies the others are
 * stopped too, instead of an API and a worker answering 503 against nothing until someone looks.
 */
import type { ChildProcess } from 'node:child_process';

/** A process to watch, by the name the log gives it. */
export interface Supervised {
  name: string;
  process: ChildProcess;
}

/** How a watched process ended: its exit code, or the signal that ended it. */
export interface ProcessEnd {
  name: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * Calls `onDeath` once, for the first of `children` to exit (a process already gone counts at once).
 * @returns a function that stops watching (call it before stopping the children on purpose)
 */
export function superviseChildren(children: Supervised[], onDeath: (end: ProcessEnd) => void): () => void {
  let watching = true;
  const listeners: [ChildProcess, (code: number | null, signal: NodeJS.Signals | null) => void][] = [];
  const report = (end: ProcessEnd) => {
    if (!watching) return;
    stop();
    onDeath(end);
  };
  function stop(): void {
    watching = false;
    for (const [child, listener] of listeners) child.off('exit', listener);
  }
  for (const { name, process: child } of children) {
    if (child.exitCode !== null || child.signalCode !== null) {
      queueMicrotask(() => report({ name, code: child.exitCode, signal: child.signalCode }));
      continue;
    }
    const listener = (code: number | null, signal: NodeJS.Signals | null) => report({ name, code, signal });
    child.once('exit', listener);
    listeners.push([child, listener]);
  }
  return stop;
}
