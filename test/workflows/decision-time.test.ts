/**
 * Why an open payment waits and until when (docs/payments.md#decision-time), on the time-skipping test server with the
 * real activities, the sandbox simulators (or a provider whose answers a scenario changes) and a real PostgreSQL: the
 * payment is driven through every open state of its table, every snapshot of it that is written or decided while open
 * says why it waits and until when, the payment is indeed final by that time, and both are null once it is.
 */
import { expect } from 'chai';
import type { WorkflowHandle } from '@temporalio/client';
import type { Db } from '../../src/db/knex';
import { findPaymentById, listEventsForObject } from '../../src/db/payments';
import { PENDING_REASONS, type PaymentSnapshot, type PendingReason } from '../../src/domain/payment';
import { PROVIDER_WORD_WITHIN_MS } from '../../src/domain/payment-table';
import { newId } from '../../src/lib/ids';
import type { PaymentProvider } from '../../src/providers/provider';
import type { ProviderRegistry } from '../../src/providers/registry';
import type { PaymentActivities } from '../../src/workflows/activity-contracts';
import { cancelPaymentUpdate, getPaymentQuery, providerCallbackSignal } from '../../src/workflows/messages';
import { cardPayment, insertMerchant, mobileMoneyPayment } from '../helpers/fixtures';
import { createTimeSkippingWorker, startCreateOn, useTimeSkippingWorker } from '../helpers/stack';

const WINDOW_SECONDS = 7 * 86_400;

/** A payment as it was written or decided, and where. */
interface Seen {
  where: string;
  payment: PaymentSnapshot;
}

/** How one scenario's provider answers, in place of the simulator's (undefined: the simulator's own). */
type ProviderChange = (provider: PaymentProvider) => Partial<PaymentProvider>;

describe('decision time of open payments (time-skipping, docs/payments.md#decision-time)', function () {
  this.timeout(240_000);
  const fixture = useTimeSkippingWorker('decision-time-unused');
  let db: Db;
  let merchantId: string;
  /** Every snapshot of each payment written or decided, in order, by payment id. */
  const seen = new Map<string, Seen[]>();
  const reasonsMet = new Set<PendingReason>();

  before(async () => {
    db = fixture.db;
    merchantId = await insertMerchant(db);
  });

  function note(where: string, payment: PaymentSnapshot | undefined): void {
    if (!payment) return;
    seen.set(payment.id, [...(seen.get(payment.id) ?? []), { where, payment }]);
  }

  /** The activities with every payment they write, and every step initiation decided, noted. */
  function watching<T extends object>(activities: T): T {
    const real = activities as unknown as PaymentActivities;
    const watched: Partial<PaymentActivities> = {
      async initiatePayment(input) {
        note('initiatePayment: the row inserted', input.payment);
        const result = await real.initiatePayment(input);
        for (const step of result.steps) note('initiatePayment: a step of the provider word', step.state.payment);
        return result;
      },
      async recordPaymentStatus(payment, orders) {
        note('recordPaymentStatus', payment);
        return real.recordPaymentStatus(payment, orders);
      },
    };
    return { ...activities, ...watched } as T;
  }

  /** The sandbox registry with `change` applied to the provider of code `changing`. */
  function changed(change?: ProviderChange, changing = 'momo') {
    return (registry: ProviderRegistry): ProviderRegistry => ({
      get(environment, code) {
        const provider = registry.get(environment, code);
        if (!provider || !change || code !== changing) return provider;
        return Object.assign(Object.create(provider) as PaymentProvider, change(provider));
      },
    });
  }

  /**
   * Runs `created`'s workflow on a worker of its own whose provider answers as `change` says, doing `meanwhile` once
   * the create was answered, and answers the payment as it ended.
   */
  async function drive(
    created: PaymentSnapshot,
    change?: ProviderChange,
    meanwhile?: (handle: WorkflowHandle, initiated: PaymentSnapshot) => Promise<void>,
  ): Promise<PaymentSnapshot> {
    const { env } = fixture;
    const queue = `decision-time-${newId('q_')}`;
    const worker = await createTimeSkippingWorker(env, db, queue, changed(change, created.provider), watching);
    const running = worker.run();
    try {
      const { handle, initiated } = await startCreateOn(env, queue, created, WINDOW_SECONDS);
      note('the create answer', initiated);
      if (meanwhile) await meanwhile(handle, initiated);
      return (await handle.result()) as PaymentSnapshot;
    } finally {
      worker.shutdown();
      await running;
    }
  }

  /**
   * Checks every snapshot of `final`'s payment: each open one says why it waits (in `expected` order, repeats folded)
   * and until when, as documented, and the payment was final by then; the final one and the stored row say neither.
   */
  async function expectDecidedInTime(final: PaymentSnapshot, expected: PendingReason[]): Promise<void> {
    const snapshots = seen.get(final.id) ?? [];
    const open = snapshots.filter((s) => ['pending', 'processing'].includes(s.payment.status));
    // In the order first met (an initiation tried again notes its steps again).
    const reasons = [...new Set(open.map((s) => s.payment.pendingReason))];
    expect(
      reasons,
      JSON.stringify(snapshots.map((s) => [s.where, s.payment.status, s.payment.pendingReason])),
    ).to.deep.equal(expected);
    const finalAt = Date.parse(final.updatedAt);
    for (const { where, payment } of open) {
      const reason = payment.pendingReason as PendingReason;
      reasonsMet.add(reason);
      const by = payment.decisionExpectedBy as string;
      expect(by, `${where}: decision_expected_by`).to.be.a('string');
      const changedAt = Math.max(Date.parse(payment.expiresAt), Date.parse(payment.updatedAt));
      const givenUp = reason === 'provider_unreachable' ? Date.parse(payment.createdAt) + PROVIDER_WORD_WITHIN_MS : 0;
      const documented =
        Math.max(changedAt, givenUp) +
        PROVIDER_WORD_WITHIN_MS +
        (reason === 'checking_with_provider' ? WINDOW_SECONDS * 1000 : 0);
      expect(Date.parse(by), `${where}: ${reason} until the documented time`).to.equal(documented);
      expect(finalAt, `${where}: final (${final.updatedAt}) by ${by}`).to.be.at.most(Date.parse(by));
    }
    expect(final).to.include({ pendingReason: null, decisionExpectedBy: null });
    // Webhook payloads: the payment as the API shows it, both fields set while open (`payment.created` is written
    // before the provider is asked), null in the final event.
    const events = await listEventsForObject(db, final.id);
    const shown = events.map((e) => [e.event, (e.data as { pending_reason: unknown }).pending_reason]);
    expect(shown[0]).to.deep.equal(['payment.created', 'provider_unreachable']);
    expect(shown.at(-1)?.[1], JSON.stringify(shown)).to.equal(null);
    for (const event of events)
      expect(Object.keys(event.data as object)).to.include.members(['pending_reason', 'decision_expected_by']);
    expect(await findPaymentById(db, final.id)).to.include({
      status: final.status,
      pendingReason: null,
      decisionExpectedBy: null,
    });
  }

  /** The payment once it says it is checked with the provider: its question goes unanswered for 2 skipped minutes. */
  async function checkingSoon(handle: WorkflowHandle): Promise<PaymentSnapshot> {
    let current = await handle.query(getPaymentQuery);
    for (let tries = 0; current.pendingReason !== 'checking_with_provider' && tries < 600; tries += 1) {
      await fixture.env.sleep(1_000);
      current = await handle.query(getPaymentQuery);
    }
    return current;
  }

  async function created(phone: string, environment: 'sandbox' | 'live' = 'sandbox'): Promise<PaymentSnapshot> {
    return mobileMoneyPayment(merchantId, phone, { environment, nowMs: await fixture.env.currentTimeMs() });
  }

  it('awaits the customer of a request the provider took until its expiry, and expires by then (0003)', async () => {
    const final = await drive(await created('+250788000003'));
    expect(final).to.include({ status: 'failed', failureCode: 'expired' });
    await expectDecidedInTime(final, ['provider_unreachable', 'awaiting_customer']);
  });

  it('says the provider is unreachable while the first call goes unanswered and awaits the customer once a retry finds it (0008)', async () => {
    const final = await drive(await created('+250788000008'));
    // Its simulated customer approves 5 s of wall-clock time later: the skipped time may expire it first.
    expect(['completed', 'failed']).to.include(final.status);
    await expectDecidedInTime(final, ['provider_unreachable', 'awaiting_customer']);
  });

  it('says the provider is unreachable until initiation gives up, and fails provider_error by then (no live adapter)', async () => {
    const final = await drive(await created('+250788000001', 'live'));
    expect(final).to.include({ status: 'failed', failureCode: 'provider_error' });
    await expectDecidedInTime(final, ['provider_unreachable']);
  });

  it("awaits the bank's notice of a bank transfer (awaiting_callback), and settles by then", async () => {
    const base = await created('+250788000003');
    const transfer: PaymentSnapshot = {
      ...base,
      paymentMethod: 'bank_transfer',
      provider: 'bank_transfer',
      kind: 'bank_transfer',
      customerPhone: null,
      customerEmail: 'payer@example.com',
      expiresAt: new Date(Date.parse(base.createdAt) + 72 * 3_600_000).toISOString(),
    };
    const final = await drive(transfer);
    expect(['completed', 'failed']).to.include(final.status);
    await expectDecidedInTime(final, ['provider_unreachable', 'awaiting_callback']);
  });

  it('awaits the provider once it settles (processing), and the payment is final by its expiry and last word', async () => {
    const final = await drive(await created('+250788000003'), (provider) => ({
      fetchStatus: async (reference) => ({
        ...(await provider.fetchStatus(reference)),
        outcome: { status: 'processing' },
      }),
    }));
    expect(final).to.include({ status: 'failed', failureCode: 'expired' });
    await expectDecidedInTime(final, ['provider_unreachable', 'awaiting_customer', 'awaiting_provider']);
  });

  it("checks with the provider after a callback it could not confirm, and is final by the reconciliation window's end", async () => {
    const final = await drive(
      await created('+250788000003'),
      () => ({
        fetchStatus: async () => {
          throw new Error('the provider did not answer within 10 s');
        },
      }),
      async (handle, initiated) => {
        await handle.signal(providerCallbackSignal, {
          providerReference: initiated.providerReference as string,
          claimed: 'completed',
        });
        expect(await checkingSoon(handle)).to.include({ status: 'pending', pendingReason: 'checking_with_provider' });
        expect((await findPaymentById(db, initiated.id))?.pendingReason).to.equal('checking_with_provider');
      },
    );
    expect(final).to.include({ status: 'failed', failureCode: 'expired' });
    await expectDecidedInTime(final, ['provider_unreachable', 'awaiting_customer', 'checking_with_provider']);
  });

  it('checks with the provider after a cancel whose answer was lost, and the payment is final by its deadline', async () => {
    const card = cardPayment(merchantId, { nowMs: await fixture.env.currentTimeMs() });
    const final = await drive(
      { ...card, nextAction: null },
      () => ({
        cancel: async () => {
          throw new Error('the gateway did not answer within 10 s');
        },
      }),
      async (handle, initiated) => {
        // The gateway's answer does not come in time: the cancel answers the payment as it stands and goes on.
        const answered = await handle.executeUpdate(cancelPaymentUpdate, { args: [{}] });
        expect(answered).to.include({ status: 'pending', pendingReason: 'awaiting_customer' });
        expect(await checkingSoon(handle)).to.include({ status: 'pending', pendingReason: 'checking_with_provider' });
        expect((await findPaymentById(db, initiated.id))?.pendingReason).to.equal('checking_with_provider');
      },
    );
    expect(final).to.include({ status: 'failed', failureCode: 'expired' });
    await expectDecidedInTime(final, ['provider_unreachable', 'awaiting_customer', 'checking_with_provider']);
  });

  it('has met every reason', () => {
    expect([...reasonsMet].sort()).to.deep.equal([...PENDING_REASONS].sort());
  });
});
