/**
 * Reconciliation against the providers' books (docs/reconciliation.md) on the real stack: payments
 * made through the API and settled by their workflows, then differences seeded in the sandbox
 * simulator's own books (a refund the provider made that we lack, an amount it moved differently, a
 * success our books never heard of), a run through Temporal finds each once and passes the clean
 * payments, a second run adds nothing, and an operator resolves one with an adjustment journal that
 * keeps the ledger balanced. Faults: a provider statement that fails leaves the run failed and nothing
 * reconciled; two attempts of one day at once: one runs.
 */
import { expect } from 'chai';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createReconciliationActivities, type StatementSource } from '../../src/activities/reconciliation-activities';
import { runAdmin } from '../../src/cli/admin';
import { writeJournal } from '../../src/db/ledger';
import { expectedClearingBalance, RUN_LEASE_SECONDS, startRun } from '../../src/db/reconciliation';
import {
  clearingAdjustmentJournal,
  compareBalance,
  dayWindow,
  matchStatements,
  previousUtcDay,
} from '../../src/domain/reconciliation';
import { newId } from '../../src/lib/ids';
import {
  daysBetween,
  ensureReconciliationSchedules,
  reconciledAccounts,
  reconciliationScheduleId,
  runReconciliation,
} from '../../src/services/reconciliation-service';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { ledgerProblems } from '../helpers/ledger';
import { getStack } from '../helpers/stack';

/** Runs the admin command in-process and captures what it printed. */
async function admin(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runAdmin(args, { out: (text) => void (out += text), err: (text) => void (err += text) });
  return { code, out, err };
}

const today = () => new Date().toISOString().slice(0, 10);

/** A sandbox MoMo payment for `phone`, waited on until `status`; with its provider reference from the read model. */
async function payment(developer: TestDeveloper, phone: string, status: string): Promise<{ id: string; ref: string }> {
  const created = await call('/v1/payments', {
    key: developer.key,
    body: { amount: 5000, currency: 'RWF', payment_method: 'mobile_money', phone_number: phone },
  });
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  const settled = await waitForPayment(developer.key, created.body.data.id, (p) => p.status === status);
  expect(settled.status).to.equal(status);
  const { db } = await getStack();
  const row = await db('payments').where({ id: settled.id }).first('provider_reference');
  return { id: settled.id, ref: row.provider_reference };
}

describe('reconciliation against the providers books (docs/reconciliation.md)', function () {
  this.timeout(120_000);

  describe('the matching rules', () => {
    const window = dayWindow('2026-11-24');
    const entry = (kind: 'collection' | 'refund', ref: string, amount: number, at = '2026-11-24T10:00:00.000Z') => ({
      kind,
      providerReference: ref,
      reference: `${kind}-${ref}`,
      amount,
      currency: 'RWF',
      status: 'settled' as const,
      at,
    });

    it('passes equal sides, and a movement recorded across the cut-off within the tolerance', () => {
      const ours = [entry('collection', 'a', 100), entry('refund', 'a', 40)];
      expect(matchStatements(ours, ours, { ours: [], theirs: [] }, window)).to.deep.equal([]);
      const late = entry('collection', 'b', 100, '2026-11-25T00:20:00.000Z');
      expect(matchStatements([entry('collection', 'b', 100)], [], { ours: [], theirs: [late] }, window)).to.deep.equal(
        [],
      );
    });

    it('finds each kind of difference once, keyed so a second run finds the same keys', () => {
      const found = matchStatements(
        [entry('collection', 'ours-only', 100), entry('collection', 'amount', 100), entry('refund', 'r', 40)],
        [entry('collection', 'theirs-only', 70), entry('collection', 'amount', 90), entry('refund', 'r', 40)],
        { ours: [], theirs: [entry('collection', 'far', 1, '2026-10-01T00:00:00.000Z')] },
        window,
      );
      expect(found.map((e) => e.key)).to.deep.equal([
        'amount_mismatch:collection:amount',
        'missing_at_provider:collection:ours-only',
        'missing_in_books:collection:theirs-only',
      ]);
      expect(found[0]).to.include({ expectedAmount: 100, foundAmount: 90, currency: 'RWF' });
    });

    it('allows a balance to differ by what is in flight, and no more', () => {
      const account = { provider: 'momo', currency: 'RWF', day: '2026-11-24' };
      expect(compareBalance(account, 1000, 1200, 200)).to.equal(undefined);
      expect(compareBalance(account, 1000, 1201, 200)).to.include({ kind: 'balance_drift', expectedAmount: 1000 });
      expect(previousUtcDay(new Date('2026-11-25T02:00:00Z'))).to.equal('2026-11-24');
      expect(() => dayWindow('2026-02-30')).to.throw(RangeError);
      expect(() => daysBetween('2026-11-20', '2026-11-19')).to.throw(/before/);
      expect(() => daysBetween('2026-01-01', '2026-03-01')).to.throw(/at most 31 days/);
    });
  });

  describe('a run through Temporal on the sandbox simulators', () => {
    let developer: TestDeveloper;
    let clean: { id: string; ref: string };
    let refunded: { id: string; ref: string };
    let shorted: { id: string; ref: string };
    let declined: { id: string; ref: string };

    before(async () => {
      developer = await registerDeveloper();
      clean = await payment(developer, '+250788000001', 'completed');
      refunded = await payment(developer, '+250788000001', 'completed');
      shorted = await payment(developer, '+250788000001', 'completed');
      declined = await payment(developer, '+250788000002', 'failed');
      const { db } = await getStack();
      // The provider refunded a payment without our asking, moved less for another, and reports a
      // success for one our books have as declined (its answer never reached us).
      await db('sandbox_provider_refunds').insert({
        idempotency_key: `refund:ref_unknown_${refunded.id}`,
        provider_reference: refunded.ref,
        amount: 1500,
        status: 'succeeded',
        created_at: new Date(),
      });
      await db('sandbox_provider_transactions').where({ provider_reference: shorted.ref }).update({ amount: 4950 });
      await db('sandbox_provider_transactions')
        .where({ provider_reference: declined.ref })
        .update({ status: 'succeeded', failure_code: null, updated_at: new Date() });
    });

    const account = { provider: 'momo', environment: 'sandbox' } as const;

    it('finds each seeded difference once, and nothing about the clean payment', async () => {
      const { db, client, config } = await getStack();
      const [{ summary }] = await runReconciliation(client, config.TEMPORAL_TASK_QUEUE, account, [today()]);
      expect(summary.method).to.equal('transactions');
      expect(summary.compared.ours).to.be.at.least(3);
      const rows = await db('reconciliation_exceptions').where({ run_id: summary.runId });
      const byRef = (ref: string) => rows.filter((row) => row.provider_reference === ref).map((row) => row.kind);
      expect(byRef(refunded.ref)).to.deep.equal(['missing_in_books']);
      expect(byRef(shorted.ref)).to.deep.equal(['amount_mismatch']);
      expect(byRef(declined.ref)).to.deep.equal(['missing_in_books']);
      expect(byRef(clean.ref)).to.deep.equal([]);
      const mismatch = rows.find((row) => row.provider_reference === shorted.ref);
      expect(mismatch).to.include({ expected_amount: 5000, found_amount: 4950, object_id: shorted.id });
      expect(mismatch.evidence.theirs).to.include({ amount: 4950, providerReference: shorted.ref });
      const run = await db('reconciliation_runs').where({ id: summary.runId }).first();
      expect(run).to.include({ status: 'succeeded', provider: 'momo', environment: 'sandbox' });

      // A second run of the day changes nothing.
      const [again] = await runReconciliation(client, config.TEMPORAL_TASK_QUEUE, account, [today()]);
      expect(again.summary.runId).to.equal(summary.runId);
      expect(again.summary.exceptionsAdded).to.equal(0);
      expect(await db('reconciliation_exceptions').where({ run_id: summary.runId })).to.have.length(rows.length);
    });

    it('lists, shows and resolves an exception with an adjustment journal that keeps the ledger balanced', async () => {
      const { db } = await getStack();
      const listed = await admin('recon', 'exceptions', '--status', 'open', '--provider', 'momo', '--limit', '1000');
      expect(listed.code, listed.err).to.equal(0);
      const line = listed.out.split('\n').find((l) => l.includes(shorted.id));
      expect(line).to.match(
        /^rex_\w+ {2}open {2}amount_mismatch {2}momo\/sandbox {2}pay_\w+ {2}ours 5000 theirs 4950 RWF$/,
      );
      const id = (line as string).split(' ')[0] as string;
      const shown = await admin('recon', 'show', id);
      expect(shown.out).to.include('the two sides moved different amounts').and.to.include('"amount": 4950');

      // Bad adjustments and an empty reason are refused before anything is written.
      for (const args of [
        ['--reason', 'fee', '--adjustment', '0'],
        ['--reason', 'fee', '--adjustment', '12.5'],
        ['--reason', 'fee', '--adjustment', 'fifty'],
        ['--reason', '   ', '--adjustment', '-50'],
      ]) {
        const refused = await admin('recon', 'resolve', id, ...args);
        expect(refused.code, args.join(' ')).to.equal(1);
      }
      expect(await db('reconciliation_exceptions').where({ id }).first('status')).to.deep.equal({ status: 'open' });

      const resolved = await admin(
        'recon',
        'resolve',
        id,
        '--reason',
        'MTN charged a fee',
        '--adjustment',
        '-50',
        '--operator',
        'ana',
      );
      expect(resolved.code, resolved.err).to.equal(0);
      expect(resolved.out).to.match(new RegExp(`^resolved ${id} as ana; adjustment journal jrn_\\w+\\n$`));
      const row = await db('reconciliation_exceptions').where({ id }).first();
      expect(row).to.include({ status: 'resolved', resolved_by: 'ana', resolution: 'MTN charged a fee' });
      const journal = await db('ledger_journals').where({ id: row.adjustment_journal_id }).first();
      expect(journal.description).to.include('by ana: MTN charged a fee');
      const postings = await db('ledger_postings').where({ journal_id: journal.id }).orderBy('amount');
      expect(postings.map((p) => Number(p.amount))).to.deep.equal([-50, 50]);
      expect(await ledgerProblems(db)).to.deep.equal([]);

      const twice = await admin('recon', 'resolve', id, '--reason', 'again');
      expect(twice.code).to.equal(1);
      expect(twice.err).to.equal(`error: ${id} is already resolved by ana\n`);
      const unknown = await admin('recon', 'show', `rex_${'0'.repeat(24)}`);
      expect(unknown.err).to.equal(`error: no reconciliation exception rex_${'0'.repeat(24)}\n`);
    });

    it('runs a past day on demand from the admin command and refuses a day that is not one', async () => {
      const run = await admin(
        'recon',
        'run',
        '--provider',
        'wallet',
        '--environment',
        'sandbox',
        '--from',
        '2026-01-01',
      );
      expect(run.code, run.err).to.equal(0);
      expect(run.out).to.match(
        /^wallet sandbox 2026-01-01: transactions, 0 ours \/ 0 theirs, 0 exception\(s\) \(0 new\), run rcr_\w+\n$/,
      );
      const bad = await admin('recon', 'run', '--provider', 'momo', '--from', '2026-02-30');
      expect(bad.code).to.equal(1);
      expect(bad.err).to.equal('error: 2026-02-30 is not a day (YYYY-MM-DD)\n');
      const unfinished = await admin('recon', 'run', '--provider', 'momo', '--from', today());
      expect(unfinished.err).to.match(/has not ended yet/);
    });
  });

  it('creates a daily Schedule at 02:00 UTC per provider account once, and leaves existing ones alone', async () => {
    const { client } = await getStack();
    const queue = `recon-${Date.now()}`;
    const accounts = reconciledAccounts(['momo']).map((account) => ({
      ...account,
      provider: `${account.provider}-${queue}`,
    }));
    try {
      const created = await ensureReconciliationSchedules(client, queue, accounts);
      expect(created).to.have.length(accounts.length);
      expect(accounts.filter((a) => a.environment === 'live').map((a) => a.provider)).to.deep.equal([`momo-${queue}`]);
      expect(await ensureReconciliationSchedules(client, queue, accounts)).to.deep.equal([]);
      const described = await client.schedule.getHandle(reconciliationScheduleId(accounts[0]!)).describe();
      expect(described.spec.calendars?.[0]).to.deep.include({ hour: [{ start: 2, end: 2, step: 1 }] });
      expect(described.action).to.deep.include({
        type: 'startWorkflow',
        workflowType: 'reconciliationWorkflow',
        taskQueue: queue,
      });
    } finally {
      for (const account of accounts)
        await client.schedule
          .getHandle(reconciliationScheduleId(account))
          .delete()
          .catch(() => undefined);
    }
  });

  describe('faults', () => {
    it('leaves a run failed and stores nothing when the provider statement fails, then succeeds on a retry', async () => {
      const { db } = await getStack();
      let fail = true;
      const source: StatementSource = {
        method: 'transactions',
        entries: async () => {
          if (fail) throw new Error('provider answered 500');
          return [];
        },
      };
      const activities = createReconciliationActivities({ db, statementSource: () => source });
      const input = { provider: 'bank_transfer', environment: 'live', day: '2026-02-01' } as const;
      let thrown: unknown;
      await activities.reconcileProviderDay(input).catch((error: unknown) => (thrown = error));
      expect(String(thrown)).to.include('provider answered 500');
      const failed = await db('reconciliation_runs').where({ provider: 'bank_transfer', environment: 'live' }).first();
      expect(failed).to.include({ status: 'failed', error: 'provider answered 500', attempts: 1 });
      expect(await db('reconciliation_exceptions').where({ run_id: failed.id })).to.have.length(0);
      fail = false;
      const summary = await activities.reconcileProviderDay(input);
      expect(summary.runId).to.equal(failed.id);
      const after = await db('reconciliation_runs').where({ id: failed.id }).first();
      expect(after).to.include({ status: 'succeeded', error: null, attempts: 2 });
    });

    it('lets one of two attempts of the same day run at once', async () => {
      const { db } = await getStack();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const source: StatementSource = {
        method: 'transactions',
        entries: async () => {
          await gate;
          return [];
        },
      };
      const activities = createReconciliationActivities({ db, statementSource: () => source });
      const input = { provider: 'bank_transfer', environment: 'live', day: '2026-02-02' } as const;
      const first = activities.reconcileProviderDay(input);
      await new Promise((resolve) => setTimeout(resolve, 200));
      let second: unknown;
      await activities.reconcileProviderDay(input).catch((error: unknown) => (second = error));
      expect(String(second)).to.include('is in progress');
      release();
      expect((await first).exceptionsFound).to.equal(0);
    });

    it("times a run's lease on Temporal's clock: a retry scheduled past it takes over an attempt that never released it", async () => {
      const { db } = await getStack();
      const source: StatementSource = { method: 'transactions', entries: async () => [] };
      const activities = createReconciliationActivities({ db, statementSource: () => source });
      const input = { provider: 'bank_transfer', environment: 'live', day: '2026-02-04' } as const;
      // An attempt scheduled at T that lost its own write of its failure: the run stays running, held since T.
      const scheduledAt = Date.parse('2031-03-01T02:00:00.000Z');
      await startRun(
        db,
        { provider: 'bank_transfer', environment: 'live' },
        input.day,
        'transactions',
        new Date(scheduledAt),
      );
      const attemptAt = (ms: number) =>
        new MockActivityEnvironment({ currentAttemptScheduledTimestampMs: ms }).run(
          activities.reconcileProviderDay,
          input,
        );
      // A retry within the lease, on the server's clock, is refused while the run is held...
      let refused: unknown;
      await attemptAt(scheduledAt + 60_000).catch((error: unknown) => (refused = error));
      expect(String(refused)).to.include('is in progress');
      // ...and one scheduled past it takes the run over, whatever this host's clock says (years before T here).
      const summary = (await attemptAt(scheduledAt + (RUN_LEASE_SECONDS + 60) * 1000)) as { runId: string };
      const run = await db('reconciliation_runs').where({ id: summary.runId }).first();
      expect(run).to.include({ status: 'succeeded', attempts: 2 });
    });

    it('finds balance drift beyond what is in flight for a provider that reports only a balance', async () => {
      const { db } = await getStack();
      const source: StatementSource = { method: 'balance', balances: async () => [{ currency: 'GHS', amount: 700 }] };
      const activities = createReconciliationActivities({ db, statementSource: () => source });
      const summary = await activities.reconcileProviderDay({
        provider: 'wallet',
        environment: 'live',
        day: '2026-02-03',
      });
      expect(summary).to.include({ method: 'balance', exceptionsFound: 1 });
      const drift = await db('reconciliation_exceptions').where({ run_id: summary.runId }).first();
      expect(drift).to.include({ kind: 'balance_drift', expected_amount: 0, found_amount: 700, currency: 'GHS' });
    });

    it("counts a posting dated after the comparing worker's clock in the balance our books expect", async () => {
      const { db } = await getStack();
      // A journal dated by a workflow clock an hour ahead of this worker's (another machine, or a test server's).
      const ahead = new Date(Date.now() + 3_600_000);
      const adjustment = { id: newId('adj_'), provider: 'wallet', environment: 'live' as const, currency: 'XOF' };
      const before = await expectedClearingBalance(db, adjustment, 'XOF');
      await writeJournal(
        db,
        clearingAdjustmentJournal({ ...adjustment, amount: 900, operator: 'test', reason: 'dated ahead' }),
        ahead,
      );
      const source: StatementSource = {
        method: 'balance',
        balances: async () => [{ currency: 'XOF', amount: before + 900 }],
      };
      const activities = createReconciliationActivities({ db, statementSource: () => source });
      const summary = await activities.reconcileProviderDay({
        provider: 'wallet',
        environment: 'live',
        day: '2026-02-04',
      });
      expect(summary).to.include({ method: 'balance', exceptionsFound: 0 });
    });
  });
});
