/**
 * Replays the recorded histories (docs/workflow-changes.md#determinism): a change to workflow code that would break
 * running
 * workflows fails here. Refresh them with `RECORD_HISTORIES=1 npm test -- workflows` together with
 * any workflow change; after the first tagged release, incompatible changes go behind `patched()`
 * (docs/workflow-changes.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { workflowBundle } from '../helpers/stack';

const HISTORIES_DIR = path.resolve(__dirname, 'histories');

describe('replay of recorded workflow histories (docs/workflow-changes.md#determinism)', () => {
  const files = fs
    .readdirSync(HISTORIES_DIR)
    .filter((name) => name.endsWith('.json'))
    .sort();

  it('has histories of every payment path (docs/payments.md)', () => {
    expect(files).to.include.members([
      'payment-completed.json',
      'payment-declined.json',
      'payment-expired.json',
      'payment-late-success.json',
      'payment-cancelled.json',
      'payment-refunded-in-parts.json',
      'payment-refund-unknown-then-settled.json',
      'payment-refund-refused.json',
    ]);
    // One code path until the first tagged release (docs/payments.md#workflow): no histories of earlier payment
    // workflow versions.
    expect(files.filter((name) => /^v\d+-payment-/.test(name))).to.deep.equal([]);
  });

  it('holds no machine path: stack traces name files from the checkout, not where it was recorded', () => {
    const withPaths = files.filter((name) =>
      /(?:\/work\/|\/root\/|\/home\/|\/Users\/|[A-Z]:\\\\)/.test(
        fs.readFileSync(path.join(HISTORIES_DIR, name), 'utf8'),
      ),
    );
    expect(withPaths).to.deep.equal([]);
  });

  it('has an approved, a rejected, a more-information and a reminded live access review history (docs/live-access.md#review)', () => {
    expect(files).to.include.members([
      'live-access-approved.json',
      'live-access-rejected.json',
      'live-access-more-info.json',
      'live-access-reminded.json',
    ]);
  });

  it('has histories of every webhook delivery outcome (docs/webhooks.md#retries), and of an attempt tried again while PostgreSQL was unreachable', () => {
    expect(files).to.include.members([
      'webhook-delivery-failed.json',
      'webhook-delivery-succeeded.json',
      'webhook-delivery-gone.json',
      'webhook-delivery-cancelled.json',
      'webhook-delivery-not-made.json',
    ]);
    expect(files.filter((name) => /^v\d+-/.test(name))).to.deep.equal([]);
  });

  it('has histories of a payout through a rail that was down, an unknown answer and a return, of a cancel, of an automatic payout and of payouts held for a rail that shows down (docs/payouts.md#workflow)', () => {
    expect(files).to.include.members([
      'payout-down-unknown-paid-returned.json',
      'payout-rail-down-cancelled.json',
      'payout-automatic.json',
      'payout-rail-down-waited-then-paid.json',
      'payout-rail-down-waited-cancelled.json',
    ]);
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
    for (const result of results)
      expect(result.error, `${result.workflowId}: ${String(result.error)}`).to.equal(undefined);
  });
});
