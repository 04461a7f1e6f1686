/**
 * Replays the recorded histories (D21): a change to workflow code that would break running
 * workflows fails here. Refresh them with `RECORD_HISTORIES=1 npm test -- workflows` together with
 * any workflow change (behind `patched()` when it is incompatible).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { workflowBundle } from '../helpers/stack';

const HISTORIES_DIR = path.resolve(__dirname, 'histories');

describe('replay of recorded workflow histories (D21)', () => {
  const files = fs.readdirSync(HISTORIES_DIR).filter((name) => name.endsWith('.json')).sort();

  it('has histories of every payment outcome, of this and earlier workflow versions', () => {
    expect(files).to.include.members(['payment-completed.json', 'payment-failed.json', 'payment-expired.json', 'payment-cancelled.json', 'payment-refunded.json']);
    // Histories of earlier workflow versions stay, so running executions of those versions keep replaying.
    expect(files).to.include.members(['v1-payment-completed.json', 'v1-payment-failed.json', 'v1-payment-expired.json']);
    // v2: the payment's steps as activity tasks, before they ran as local activities.
    expect(files).to.include.members(['v2-payment-completed.json', 'v2-payment-failed.json', 'v2-payment-expired.json', 'v2-payment-cancelled.json', 'v2-payment-refunded.json']);
    // v3: the payment's first step as three local activities, before initiatePayment did it in one.
    expect(files).to.include.members(['v3-payment-completed.json', 'v3-payment-failed.json', 'v3-payment-expired.json', 'v3-payment-cancelled.json', 'v3-payment-refunded.json']);
    // v4: polls as a timer and a local activity each, before they were one activity's retries.
    expect(files).to.include.members(['v4-payment-completed.json', 'v4-payment-failed.json', 'v4-payment-expired.json', 'v4-payment-cancelled.json', 'v4-payment-refunded.json']);
    // v5: a patch marker for each of the three changes above, before one (payment-v5) stood for them all.
    expect(files).to.include.members(['v5-payment-completed.json', 'v5-payment-failed.json', 'v5-payment-expired.json', 'v5-payment-cancelled.json', 'v5-payment-refunded.json']);
  });

  it('has an approved, a rejected, a more-information and a reminded live access review history (D30)', () => {
    expect(files).to.include.members(['live-access-approved.json', 'live-access-rejected.json', 'live-access-more-info.json', 'live-access-reminded.json']);
  });

  it('has histories of every webhook delivery outcome (D27)', () => {
    expect(files).to.include.members(['webhook-delivery-failed.json', 'webhook-delivery-succeeded.json', 'webhook-delivery-gone.json', 'webhook-delivery-cancelled.json']);
    // v1: the delivery log writes as activity tasks, before they ran as local activities.
    expect(files).to.include.members(['v1-webhook-delivery-failed.json', 'v1-webhook-delivery-succeeded.json', 'v1-webhook-delivery-gone.json', 'v1-webhook-delivery-cancelled.json']);
    // v2: every attempt recorded by a local activity, before the attempt activity recorded itself.
    expect(files).to.include.members(['v2-webhook-delivery-failed.json', 'v2-webhook-delivery-succeeded.json', 'v2-webhook-delivery-gone.json', 'v2-webhook-delivery-cancelled.json']);
    // v3: a patch marker for each of the two changes above, before one (delivery-v3) stood for both.
    expect(files).to.include.members(['v3-webhook-delivery-failed.json', 'v3-webhook-delivery-succeeded.json', 'v3-webhook-delivery-gone.json', 'v3-webhook-delivery-cancelled.json']);
  });

  it('replays every history without a determinism error', async function () {
    this.timeout(60_000);
    const histories = files.map((name) => ({
      workflowId: name.replace(/\.json$/, ''),
      history: historyFromJSON(JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, name), 'utf8'))),
    }));
    const results: { workflowId: string; error?: unknown }[] = [];
    for await (const result of Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories)) {
      results.push(result);
    }
    expect(results.map((r) => r.workflowId)).to.deep.equal(histories.map((h) => h.workflowId));
    for (const result of results) expect(result.error, `${result.workflowId}: ${String(result.error)}`).to.equal(undefined);
  });
});
