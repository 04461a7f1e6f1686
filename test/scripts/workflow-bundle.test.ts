/**
 * The workflow bundle built ahead (`npm run build:workflows`, scripts/build-workflows.ts) and the worker's
 * `WORKER_WORKFLOW_BUNDLE` (docs/operations.md#workers): the worker runs the file it is given, as built, instead of
 * building its own, and refuses to start on a file it cannot use, naming the setting.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { writeWorkflowBundle } from '../../scripts/build-workflows';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { workerWorkflowBundle } from '../../src/worker';

describe('scripts: the workflow bundle built ahead (WORKER_WORKFLOW_BUNDLE)', function () {
  this.timeout(60_000);
  const logger = createLogger('test-bundle', 'silent');
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paycollect-bundle-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes the bundle the worker would build, and the worker takes that file as it is', async () => {
    const file = path.join(dir, 'nested', 'workflow-bundle.js');
    const bytes = await writeWorkflowBundle(file, logger);
    const written = fs.readFileSync(file, 'utf8');
    expect(bytes).to.equal(Buffer.byteLength(written));
    // The workflows' entry and the log interceptor the worker registers are in it.
    expect(written).to.include('paymentWorkflow').and.include('log-attributes');
    // A marker appended shows the worker used the file, not a bundle of its own.
    fs.appendFileSync(file, '\n// built ahead\n');
    const bundle = await workerWorkflowBundle({ WORKER_WORKFLOW_BUNDLE: file }, logger);
    expect(bundle.code).to.equal(`${written}\n// built ahead\n`);
  });

  it('is unset by default, and a worker without it builds its own bundle', async () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db',
      JWT_SECRET: 'x'.repeat(32),
      PROVIDER_CALLBACK_SECRET: 'y'.repeat(32),
    });
    expect(config.WORKER_WORKFLOW_BUNDLE).to.equal(undefined);
    const bundle = await workerWorkflowBundle(config, logger);
    expect(bundle.code).to.include('paymentWorkflow');
  });

  it('refuses a file it cannot read or that is empty, naming the setting', async () => {
    const missing = path.join(dir, 'missing.js');
    const empty = path.join(dir, 'empty.js');
    fs.writeFileSync(empty, '  \n');
    for (const file of [missing, empty]) {
      let refused: unknown;
      try {
        await workerWorkflowBundle({ WORKER_WORKFLOW_BUNDLE: file }, logger);
      } catch (error) {
        refused = error;
      }
      expect(String(refused))
        .to.match(/WORKER_WORKFLOW_BUNDLE/)
        .and.include(file);
    }
  });
});
