/**
 * The payment workflow's one-step initiation (`initiatePayment`) run as an activity against the real
 * PostgreSQL and the sandbox simulator: what it writes, that a retry writes nothing twice, and how
 * long it keeps retrying a provider's transient faults (PROVIDER_GIVE_UP_MS) before the provider
 * counts as not answering, while the read-model writes before it stay done.
 */
import { expect } from 'chai';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createPaymentActivities, PROVIDER_GIVE_UP_MS, type PollResult } from '../../src/activities/payment-activities';
import { findPayment, listEventsForObject } from '../../src/db/payments';
import type { PaymentSnapshot } from '../../src/domain/payment-record';
import type { PaymentProvider } from '../../src/providers/provider';
import { providerRegistryFromConfig, type ProviderRegistry } from '../../src/providers/registry';
import { insertMerchant, mobileMoneyPayment } from '../helpers/fixtures';
import { getStack } from '../helpers/stack';

describe('initiatePayment (one-step initiation, D11, D16, D22)', function () {
  this.timeout(30_000);

  /**
   * The payment activities over the sandbox simulator, whose `initiate` first fails `faults` times
   * (`hang`: never answers instead), with provider calls given 200 ms.
   */
  async function activitiesWithFaults(faults: number, hang = false) {
    const { db, client, config } = await getStack();
    const sandbox = providerRegistryFromConfig(db, config);
    let left = faults;
    const registry: ProviderRegistry = {
      get(environment, code) {
        const provider = sandbox.get(environment, code) as PaymentProvider;
        return {
          ...provider,
          code: provider.code,
          fetchStatus: (reference) => provider.fetchStatus(reference),
          cancel: (reference) => provider.cancel(reference),
          refund: (request) => provider.refund(request),
          initiate: async (request) => {
            if (left > 0) {
              left -= 1;
              if (hang) return new Promise<never>(() => undefined);
              throw new Error('connect ETIMEDOUT (simulated provider fault)');
            }
            return provider.initiate(request);
          },
        };
      },
    };
    return { db, activities: createPaymentActivities({ db, providers: registry, temporal: client, config, providerCallTimeoutMs: 200 }) };
  }

  async function eventTypes(paymentId: string): Promise<string[]> {
    const { db } = await getStack();
    return (await listEventsForObject(db, paymentId)).map((event) => event.event);
  }

  it('records the payment, asks the provider and records its answer; a retry writes nothing twice', async () => {
    const { db, activities } = await activitiesWithFaults(0);
    const payment = mobileMoneyPayment(await insertMerchant(db), '+250788000001');
    const first: PaymentSnapshot = await new MockActivityEnvironment().run(activities.initiatePayment, { payment, changedAt: new Date().toISOString() });
    expect(first).to.include({ status: 'completed', version: 1 });
    expect(first.providerReference).to.match(/^momo_/);
    const again: PaymentSnapshot = await new MockActivityEnvironment().run(activities.initiatePayment, { payment, changedAt: new Date().toISOString() });
    expect(again).to.include({ status: 'completed', providerReference: first.providerReference, version: 1 });
    expect(await findPayment(db, payment, payment.id)).to.include({ status: 'completed', providerReference: first.providerReference, version: 1 });
    expect(await eventTypes(payment.id)).to.have.members(['payment.created', 'payment.completed']).and.have.length(2);
  });

  it('leaves a transient provider fault retryable inside 2 minutes, with the payment already recorded', async () => {
    const { db, activities } = await activitiesWithFaults(1);
    const payment = mobileMoneyPayment(await insertMerchant(db), '+250788000001');
    const attempt = new MockActivityEnvironment({ scheduledTimestampMs: Date.now() - 5_000 }).run(activities.initiatePayment, { payment, changedAt: new Date().toISOString() });
    const error = await attempt.then(() => undefined, (e: unknown) => e);
    expect(error).to.be.instanceOf(Error).and.not.instanceOf(ApplicationFailure);
    expect((await findPayment(db, payment, payment.id))?.status).to.equal('pending');
    // The next attempt (the fault is gone) completes it.
    const retried: PaymentSnapshot = await new MockActivityEnvironment().run(activities.initiatePayment, { payment, changedAt: new Date().toISOString() });
    expect(retried.status).to.equal('completed');
  });

  it('gives the provider up after 2 minutes of transient faults: ProviderUnavailable, not retryable', async () => {
    const { db, activities } = await activitiesWithFaults(1);
    const payment = mobileMoneyPayment(await insertMerchant(db), '+250788000001');
    const late = new MockActivityEnvironment({ scheduledTimestampMs: Date.now() - PROVIDER_GIVE_UP_MS - 1_000 });
    const error = await late.run(activities.initiatePayment, { payment, changedAt: new Date().toISOString() }).then(() => undefined, (e: unknown) => e);
    expect(error).to.be.instanceOf(ApplicationFailure);
    expect(error).to.include({ type: 'ProviderUnavailable', nonRetryable: true });
    expect((await findPayment(db, payment, payment.id))?.status).to.equal('pending');
  });

  it('counts a provider that does not answer within the call time-out as a transient fault, given up after 2 minutes', async () => {
    const { db, activities } = await activitiesWithFaults(2, true);
    const payment = mobileMoneyPayment(await insertMerchant(db), '+250788000001');
    const input = { payment, changedAt: new Date().toISOString() };
    const early = await new MockActivityEnvironment({ scheduledTimestampMs: Date.now() }).run(activities.initiatePayment, input).then(() => undefined, (e: unknown) => e);
    expect(early).to.be.instanceOf(Error).and.not.instanceOf(ApplicationFailure);
    expect((early as Error).message).to.include('did not answer within 0.2 s');
    const late = new MockActivityEnvironment({ scheduledTimestampMs: Date.now() - PROVIDER_GIVE_UP_MS - 1_000 });
    const given = await late.run(activities.initiatePayment, input).then(() => undefined, (e: unknown) => e);
    expect(given).to.include({ type: 'ProviderUnavailable', nonRetryable: true });
  });
});

describe('pollProviderPayment (polls as activity retries, D16, D20)', function () {
  this.timeout(30_000);

  /** The payment activities over the sandbox, and a payment to `phone` initiated with it. */
  async function initiated(phone: string) {
    const { db, client, config } = await getStack();
    const activities = createPaymentActivities({ db, providers: providerRegistryFromConfig(db, config), temporal: client, config });
    const payment = mobileMoneyPayment(await insertMerchant(db), phone);
    const after: PaymentSnapshot = await new MockActivityEnvironment().run(activities.initiatePayment, { payment, changedAt: new Date().toISOString() });
    const poll = { environment: after.environment, provider: after.provider, providerReference: after.providerReference as string };
    return { activities, payment: after, poll };
  }

  it('fails an answer that changes nothing with the benign, retryable ProviderStillWaiting, so the retry is the next poll', async () => {
    const { activities, payment, poll } = await initiated('+250788000003');
    expect(payment.status).to.equal('processing');
    const error = await new MockActivityEnvironment({ attempt: 4 }).run(activities.pollProviderPayment, { ...poll, status: 'processing' as const }).then(() => undefined, (e: unknown) => e);
    expect(error).to.be.instanceOf(ApplicationFailure);
    expect(error).to.include({ type: 'ProviderStillWaiting', nonRetryable: false, category: 'BENIGN' });
    expect((error as Error).message).to.include('poll 4');
  });

  it('returns an answer that changes the payment, with the attempt that saw it', async () => {
    const { activities, poll } = await initiated('+250788000003');
    const seen = await new MockActivityEnvironment({ attempt: 3 }).run(activities.pollProviderPayment, { ...poll, status: 'pending' as const });
    expect(seen).to.deep.equal({ answer: { providerReference: poll.providerReference, outcome: { status: 'processing' } }, attempt: 3 });
    const settled = await initiated('+250788000001');
    const final: PollResult = await new MockActivityEnvironment().run(settled.activities.pollProviderPayment, { ...settled.poll, status: 'processing' as const });
    expect(final.answer.outcome).to.deep.equal({ status: 'completed' });
  });

  it('leaves a provider fault retryable (polls go on until expires_at), not a permanent refusal', async () => {
    const { activities, poll } = await initiated('+250788000003');
    const error = await new MockActivityEnvironment()
      .run(activities.pollProviderPayment, { ...poll, providerReference: 'momo_unknown', status: 'processing' as const })
      .then(() => undefined, (e: unknown) => e);
    expect(error).to.be.instanceOf(Error).and.not.instanceOf(ApplicationFailure);
    expect((error as Error).message).to.include('unknown');
  });
});
