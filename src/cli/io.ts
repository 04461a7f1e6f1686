/** Where the command-line tools (`paycollect`, the admin command) write: standard output and error by default. */

/** Where a command writes. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

/** Standard output and standard error. */
export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};
