/**
 * The create decides once (docs/payments.md#workflow): initiation applies the payment's table to the provider's word
 * and the workflow carries that decision, kept in its history, instead of applying the table a second time. A worker
 * whose table differs from the one that recorded a create (a deploy between the two) replays that create without a
 * determinism error, and so never fails the run's workflow task forever.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';

const HISTORIES_DIR = path.resolve(__dirname, 'histories');

describe('the create decides once (docs/payments.md#workflow)', () => {
  it('replays a recorded create under a workflow whose table gives the provider’s acceptance another status', async function () {
    this.timeout(120_000);
    const workflowBundle = await bundleWorkflowCode({
      workflowsPath: require.resolve('./fixtures/other-table-workflows'),
      logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} } as never,
    });
    // A create whose provider answered at once (accepted, then completed): the table's rows for both ran at the create.
    const name = 'payment-completed.json';
    const history = historyFromJSON(JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, name), 'utf8')));
    const replayed = await Worker.runReplayHistories({ workflowBundle }, [{ workflowId: name, history }]);
    const results: { error?: unknown }[] = [];
    for await (const result of replayed) results.push(result);
    expect(results).to.have.length(1);
    expect(results[0]?.error, String(results[0]?.error)).to.equal(undefined);
  });
});
