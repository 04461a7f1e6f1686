/**
 * `npm run build:workflows [-- <file>]`: builds the worker's workflow bundle ahead of its start and writes it to
 * `<file>` (default `dist/workflow-bundle.js`), for `WORKER_WORKFLOW_BUNDLE` (docs/operations.md#workers): a worker
 * given it starts without building its own. Build it again from the same source as the worker it goes with.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { createLogger, type Logger } from '../src/logger';
import { quietWorkflowBundle } from '../src/worker';

/**
 * Builds the workflow bundle as the worker would (src/worker.ts `WORKFLOW_BUNDLE`) and writes it to `file`, creating
 * its folder. @returns the bundle's size in bytes
 * @throws Error when the bundle does not build or the file cannot be written
 */
export async function writeWorkflowBundle(file: string, logger: Logger): Promise<number> {
  const { code } = await quietWorkflowBundle(logger);
  await fs.mkdir(path.dirname(path.resolve(file)), { recursive: true });
  await fs.writeFile(file, code);
  return Buffer.byteLength(code);
}

if (require.main === module) {
  const file = process.argv[2] ?? path.join('dist', 'workflow-bundle.js');
  writeWorkflowBundle(file, createLogger('build-workflows', 'warn')).then(
    (bytes) => process.stdout.write(`workflow bundle written to ${file} (${bytes} bytes)\n`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
