/**
 * An entry point of `src/` (the API or the worker) run as its own process with tsx, as `npm start`
 * runs it (or a compiled one with node, as the image runs it), with every line it writes to stdout
 * and stderr kept, for the tests of the JSON log (docs/operations.md#logs), the metrics endpoints and the image.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** One line a process wrote, and to which stream. */
export interface CapturedLine {
  stream: 'stdout' | 'stderr';
  text: string;
}

/** A process whose output is kept line by line. */
export class CapturedProcess {
  readonly lines: CapturedLine[] = [];
  private child: ChildProcess | undefined;
  private readonly partial = { stdout: '', stderr: '' };

  /**
   * @param entry the entry point, relative to the repository (`src/worker.ts`, `src/server.ts`), run
   *   with tsx; or, with `options.node`, a compiled file relative to `options.cwd`, run with node
   * @param env variables on top of the test run's environment (or exactly these, with `options.cleanEnv`)
   */
  constructor(
    readonly entry: string,
    private readonly env: Record<string, string>,
    private readonly options: { node?: boolean; cwd?: string; cleanEnv?: boolean } = {},
  ) {}

  /** Starts the process in a process group of its own (so a signal reaches tsx's node child too). */
  start(): void {
    const [command, args] = this.options.node
      ? [process.execPath, [this.entry]]
      : [path.join(ROOT, 'node_modules/.bin/tsx'), [this.entry]];
    const child = spawn(command, args, {
      cwd: this.options.cwd ?? ROOT,
      env: this.options.cleanEnv ? this.env : { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    for (const stream of ['stdout', 'stderr'] as const) {
      child[stream]?.setEncoding('utf8').on('data', (chunk: string) => this.take(stream, chunk));
    }
    this.child = child;
  }

  private take(stream: 'stdout' | 'stderr', chunk: string): void {
    const pieces = (this.partial[stream] + chunk).split('\n');
    this.partial[stream] = pieces.pop() ?? '';
    for (const text of pieces) if (text !== '') this.lines.push({ stream, text });
  }

  /** True while the process has not exited. */
  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The lines so far, parsed as JSON where they parse (undefined where not). */
  parsed(): { line: CapturedLine; json: Record<string, unknown> | undefined }[] {
    return this.lines.map((line) => {
      try {
        const json: unknown = JSON.parse(line.text);
        return {
          line,
          json: typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : undefined,
        };
      } catch {
        return { line, json: undefined };
      }
    });
  }

  /**
   * Resolves with the first JSON line for which `predicate` holds.
   * @throws Error after `timeoutMs`, or when the process exits first (its last lines attached)
   */
  async waitForLine(
    predicate: (json: Record<string, unknown>) => boolean,
    timeoutMs = 60_000,
  ): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.parsed().find((entry) => entry.json !== undefined && predicate(entry.json));
      if (found?.json) return found.json;
      if (!this.running) throw new Error(`${this.entry} exited before the line came:\n${this.tail()}`);
      if (Date.now() > deadline) throw new Error(`${this.entry}: no such line within ${timeoutMs} ms:\n${this.tail()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** The last 30 lines, for error messages. */
  tail(): string {
    return this.lines
      .slice(-30)
      .map((line) => `${line.stream}: ${line.text}`)
      .join('\n');
  }

  /**
   * Sends `signal` to the process group and waits for the exit; SIGKILL after `graceMs`. The
   * unterminated last line of each stream, if any, is kept as a line.
   */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 15_000): Promise<void> {
    const child = this.child;
    if (child && this.running) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      process.kill(-(child.pid as number), signal);
      const timer = setTimeout(() => {
        if (this.running) process.kill(-(child.pid as number), 'SIGKILL');
      }, graceMs);
      await exited;
      clearTimeout(timer);
      // Let the pipes drain what the process wrote last.
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    for (const stream of ['stdout', 'stderr'] as const) {
      if (this.partial[stream] !== '') this.lines.push({ stream, text: this.partial[stream] });
      this.partial[stream] = '';
    }
  }
}
