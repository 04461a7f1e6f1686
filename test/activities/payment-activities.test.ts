/**
 * The payment activities against the real PostgreSQL and the sandbox simulator: what initiation
 * writes (the provider's reference and next action on the pending payment), that a retry writes
 * nothing twice, how long it keeps retrying a provider's unknown answers (PROVIDER_GIVE_UP_MS)
 * before the provider counts as not answering, and refunds sent once per refund id.
 */
import { sandboxReceiptNumber } from '../../src/providers/sandbox/statuses';
import { expect } from 'chai';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createPaymentActivities, PROVIDER_GIVE_UP_MS } from '../../src/activities/payment-activities';
import type { InitiationResult, PollResult } from '../../src/workflows/activity-contracts';
import { findPayment, listEventsForObject } from '../../src/db/payments';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import type { PaymentProvider } from '../../src/providers/provider';
import { providerRegistryFromConfig, type ProviderRegistry } from '../../src/providers/registry';
import type { RefundAnswerOutcome } from '../../src/domain/payment-table';
import { newId } from '../../src/lib/ids';
import { insertMerchant, mobileMoneyPayment } from '../helpers/fixtures';
import { getStack } from '../helpers/stack';
import { createMomoProvider } from '../../src/providers/momo/adapter';
import { momoSettingsSchema } from '../../src/providers/momo/settings';
import { startMomoFake, type MomoFake } from '../fakes/momo-fake';

/** The provider's answer an initiation brought, if it was not refused. */
function answerOf(result: InitiationResult) {
  return 'answer' in result ? result.answer : undefined;
}

describe('initiatePayment (one-step initiation, docs/payments.md#creating-a-payment)', function () {
  this.timeout(30_000);

  /**
   * The payment activities over the sandbox simulator, whose `initiate` first fails `faults` times
   * (`hang`: never answers instead), then runs `afterAnswer` before answering, with provider calls given 200 ms.
   */
  async function activitiesWithFaults(
    faults: number,
    hang = false,
    afterAnswer?: (paymentId: string) => Promise<void>,
  ) {
    const { db, client, config } = await getStack();
    const sandbox = providerRegistryFromConfig(createSandboxLedger(db), config);
    let left = faults;
    const registry: ProviderRegistry = {
      get(environment, code) {
        const provider = sandbox.get(environment, code) as PaymentProvider;
        return {
          ...provider,
          initiate: async (request) => {
            if (left > 0) {
              left -= 1;
              if (hang) return new Promise<never>(() => undefined);
              throw new Error('connect ETIMEDOUT (simulated provider fault)');
            }
            const answer = await provider.initiate(request);
            await afterAnswer?.(request.paymentId);
            return answer;
          },
        };
      },
    };
    return {
      db,
      activities: createPaymentActivities({
        db,
        providers: registry,
        temporal: client,
        config,
        providerCallTimeoutMs: 200,
      }),
    };
  }

  async function eventTypes(paymentId: string): Promise<string[]> {
    const { db } = await getStack();
    return (await listEventsForObject(db, paymentId)).map((event) => event.event);
  }

  it('records the payment, asks the provider and writes what the table makes of an answer given at once, in one activity; a retry gets the same reference and writes nothing twice', async () => {
    const { db, activities } = await activitiesWithFaults(0);
    const payment = mobileMoneyPayment(await insertMerchant(db), '+250788000001');
    const changedAt = new Date().toISOString();
    const first: InitiationResult = await new MockActivityEnvironment().run(activities.initiatePayment, {
      payment,
      changedAt,
    });
    expect(first.payment).to.include({ status: 'pending', providerReference: null });
    const answer = answerOf(first);
    expect(answer?.providerReference).to.match(/^momo_/);
    expect(answer?.nextAction?.type).to.equal('mobile_money_approval');
    expect(answer?.outcome).to.deep.equal({
      status: 'completed',
      receiptNumber: sandboxReceiptNumber(answer?.providerReference as string),
    });
    // The table's rows for the acceptance and the success, in one write past both versions, at the workflow's time.
    const written = { status: 'completed', providerReference: answer?.providerReference, version: 2 };
    expect(first.recorded).to.include({ ...written, updatedAt: changedAt, nextAction: null });
    expect(await findPayment(db, payment, payment.id)).to.include(written);
    expect(await eventTypes(payment.id)).to.have.members(['payment.created', 'payment.completed']);
    const again: InitiationResult = await new MockActivityEnvironment().run(activities.initiatePayment, {
      payment,
      changedAt: new Date().toISOString(),
    });
    expect(answerOf(again)?.providerReference).to.equal(answer?.providerReference);
    expect(await findPayment(db, payment, payment.id)).to.include({ ...written, updatedAt: changedAt });
    expect(await eventTypes(payment.id)).to.have.members(['payment.created', 'payment.completed']);
  });

  it("writes a decline given at once as the table's failed payment with payment.failed", async () => {
    const { db, activities } = await activitiesWithFaults(0);
    const payment = mobileMoneyPayment(await insertMerchant(db), '+250788000002');
    const result: InitiationResult = await new MockActivityEnvironment().run(activities.initiatePayment, {
      payment,
      changedAt: new Date().toISOString(),
    });
    expect(answerOf(result)?.outcome).to.include({ status: 'failed', failureCode: 'declined' });
    expect(result.recorded).to.include({ status: 'failed', failureCode: 'declined', version: 2 });
    expect(await findPayment(db, payment, payment.id)).to.include({ status: 'failed', failureCode: 'declined' });
    expect(await eventTypes(payment.id)).to.have.members(['payment.created', 'payment.failed']);
  });

  it("leaves the answer to the workflow's own write when its write fails, instead of failing the provider's call", async () => {
    // The row is gone by the time the answer is written (a stand-in for PostgreSQL failing that write).
    const { db } = await getStack();
    const { activities } = await activitiesWithFaults(0, false, async (paymentId) => {
      await db('payments').where({ id: paymentId }).delete();
    });
    const payment = mobileMoneyPayment(await insertMerchant(db), '+250788000001');
    const result: InitiationResult = await new MockActivityEnvironment().run(activities.initiatePayment, {
      payment,
      changedAt: new Date().toISOString(),
    });
    const given = answerOf(result);
    expect(given?.outcome).to.deep.equal({
      status: 'completed',
      receiptNumber: sandboxReceiptNumber(given?.providerReference as string),
    });
    expect(result).to.not.have.property('recorded');
    expect(await eventTypes(payment.id)).to.deep.equal(['payment.created']);
  });

  it('leaves a transient provider fault retryable inside 2 minutes, with the payment already recorded', async () => {
    const { db, activities } = await activitiesWithFaults(1);
    const payment = mobileMoneyPayment(await insertMerchant(db), '+250788000001');
    const attempt = new MockActivityEnvironment({ scheduledTimestampMs: Date.now() - 5_000 }).run(
      activities.initiatePayment,
      { payment, changedAt: new Date().toISOString() },
    );
    const error = await attempt.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(Error).and.not.instanceOf(ApplicationFailure);
    expect((await findPayment(db, payment, payment.id))?.status).to.equal('pending');
    // The next attempt (the fault is gone) finds the request at the provider.
    const retried: InitiationResult = await new MockActivityEnvironment().run(activities.initiatePayment, {
      payment,
      changedAt: new Date().toISOString(),
    });
    expect(answerOf(retried)?.outcome.status).to.equal('completed');
    expect(answerOf(retried)?.providerReference).to.match(/^momo_/);
  });

  it('gives the provider up after 2 minutes of transient faults: ProviderUnavailable, not retryable', async () => {
    const { db, activities } = await activitiesWithFaults(1);
    const payment = mobileMoneyPayment(await insertMerchant(db), '+250788000001');
    const late = new MockActivityEnvironment({ scheduledTimestampMs: Date.now() - PROVIDER_GIVE_UP_MS - 1_000 });
    const error = await late.run(activities.initiatePayment, { payment, changedAt: new Date().toISOString() }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(ApplicationFailure);
    expect(error).to.include({ type: 'ProviderUnavailable', nonRetryable: true });
    expect((await findPayment(db, payment, payment.id))?.status).to.equal('pending');
  });

  it('counts a provider that does not answer within the call time-out as a transient fault, given up after 2 minutes', async () => {
    const { db, activities } = await activitiesWithFaults(2, true);
    const payment = mobileMoneyPayment(await insertMerchant(db), '+250788000001');
    const input = { payment, changedAt: new Date().toISOString() };
    const early = await new MockActivityEnvironment({ scheduledTimestampMs: Date.now() })
      .run(activities.initiatePayment, input)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(early).to.be.instanceOf(Error).and.not.instanceOf(ApplicationFailure);
    expect((early as Error).message).to.include('did not answer within 0.2 s');
    const late = new MockActivityEnvironment({ scheduledTimestampMs: Date.now() - PROVIDER_GIVE_UP_MS - 1_000 });
    const given = await late.run(activities.initiatePayment, input).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(given).to.include({ type: 'ProviderUnavailable', nonRetryable: true });
  });
});

describe('initiatePayment giving up on a provider that answers what it does not document', function () {
  this.timeout(30_000);
  const credentials = {
    apiUser: '5f0b7a3c-1d2e-4f60-8a9b-0c1d2e3f4a5b',
    apiKey: 'momo-api-key-that-must-not-leak',
    subscriptionKey: 'momo-subscription-key-that-must-not-leak',
  };
  let fake: MomoFake;
  before(async () => {
    fake = await startMomoFake({ ...credentials, approvalDelayMs: 40 });
  });
  after(async () => {
    await fake.close();
  });

  it('keeps the real cause (a 404 to the request to pay) in the failure, without credentials, not "the provider did not answer"', async () => {
    const { db, client, config } = await getStack();
    const momo = createMomoProvider(
      momoSettingsSchema.parse({ baseUrl: fake.url, ...credentials, targetEnvironment: 'mtnrwanda', timeoutMs: 1_000 }),
      { callbackSecret: 'momo-callback-secret-for-tests-0123456789' },
    );
    const activities = createPaymentActivities({
      db,
      providers: { get: () => momo },
      temporal: client,
      config,
      providerCallTimeoutMs: 2_000,
    });
    const payment = mobileMoneyPayment(await insertMerchant(db), '+250788200001');
    fake.injectFaults('not_found', 1, ['/collection/v1_0/requesttopay']);
    const late = new MockActivityEnvironment({ scheduledTimestampMs: Date.now() - PROVIDER_GIVE_UP_MS - 1_000 });
    const given = await late.run(activities.initiatePayment, { payment, changedAt: new Date().toISOString() }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(given).to.be.instanceOf(ApplicationFailure).and.include({ type: 'ProviderUnavailable', nonRetryable: true });
    const { message } = given as ApplicationFailure;
    // The workflow fails the payment with this message as its failure_message (docs/payments.md#states).
    expect(message).to.equal(
      'no usable answer from the provider within 2 minutes; last: POST /collection/v1_0/requesttopay: undocumented answer (HTTP 404)',
    );
    for (const secret of Object.values(credentials)) expect(message).to.not.include(secret);
  });
});

describe('pollProviderPayment (polls as activity retries, docs/payments.md#states)', function () {
  this.timeout(30_000);

  /** The payment activities over the sandbox, and a payment to `phone` initiated with it. */
  async function initiated(phone: string) {
    const { db, client, config } = await getStack();
    const activities = createPaymentActivities({
      db,
      providers: providerRegistryFromConfig(createSandboxLedger(db), config),
      temporal: client,
      config,
    });
    const payment = mobileMoneyPayment(await insertMerchant(db), phone);
    const result: InitiationResult = await new MockActivityEnvironment().run(activities.initiatePayment, {
      payment,
      changedAt: new Date().toISOString(),
    });
    const outcome = answerOf(result)?.outcome;
    const after = { ...payment, providerReference: answerOf(result)?.providerReference ?? null };
    const poll = {
      environment: after.environment,
      provider: after.provider,
      providerReference: after.providerReference as string,
    };
    return { activities, payment: after, outcome, poll };
  }

  it('fails an answer that changes nothing with the benign, retryable ProviderStillWaiting, so the retry is the next poll', async () => {
    const { activities, outcome, poll } = await initiated('+250788000003');
    expect(outcome?.status).to.equal('pending');
    const error = await new MockActivityEnvironment({ attempt: 4 })
      .run(activities.pollProviderPayment, { ...poll, status: 'pending' as const })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).to.be.instanceOf(ApplicationFailure);
    expect(error).to.include({ type: 'ProviderStillWaiting', nonRetryable: false, category: 'BENIGN' });
    expect((error as Error).message).to.include('poll 4');
  });

  it('returns an answer that changes the payment, with the attempt that saw it', async () => {
    const settled = await initiated('+250788000001');
    const seen = await new MockActivityEnvironment({ attempt: 3 }).run(settled.activities.pollProviderPayment, {
      ...settled.poll,
      status: 'pending' as const,
    });
    expect(seen).to.deep.equal({
      answer: {
        providerReference: settled.poll.providerReference,
        outcome: { status: 'completed', receiptNumber: sandboxReceiptNumber(settled.poll.providerReference) },
      },
      attempt: 3,
    });
    const final: PollResult = await new MockActivityEnvironment().run(settled.activities.pollProviderPayment, {
      ...settled.poll,
      status: 'processing' as const,
    });
    expect(final.answer.outcome).to.deep.equal({
      status: 'completed',
      receiptNumber: sandboxReceiptNumber(settled.poll.providerReference),
    });
  });

  it('leaves a provider fault retryable (polls go on until expires_at), not a permanent refusal', async () => {
    const { activities, poll } = await initiated('+250788000003');
    const error = await new MockActivityEnvironment()
      .run(activities.pollProviderPayment, {
        ...poll,
        providerReference: 'momo_unknown',
        status: 'processing' as const,
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).to.be.instanceOf(Error).and.not.instanceOf(ApplicationFailure);
    expect((error as Error).message).to.include('unknown');
  });
});

describe('refundAtProvider (refunds sent once per refund id, docs/payments.md#refunds-happen-once)', function () {
  this.timeout(30_000);

  it('writes the refund pending, refunds once per idempotency key, and answers a settled refund id without sending it again', async () => {
    const { db, client, config } = await getStack();
    const activities = createPaymentActivities({
      db,
      providers: providerRegistryFromConfig(createSandboxLedger(db), config),
      temporal: client,
      config,
    });
    const created = mobileMoneyPayment(await insertMerchant(db), '+250788000001');
    const initiated: InitiationResult = await new MockActivityEnvironment().run(activities.initiatePayment, {
      payment: created,
      changedAt: new Date().toISOString(),
    });
    const payment = { ...created, providerReference: answerOf(initiated)?.providerReference ?? null };
    const completed = { ...payment, status: 'completed' as const, version: 2 };
    await new MockActivityEnvironment().run(activities.recordPaymentStatus, completed, {
      emit: 'payment.completed' as const,
      post: [`payment:${payment.id}:completed`],
    });
    const refund = {
      id: newId('ref_'),
      paymentId: payment.id,
      merchantId: payment.merchantId,
      environment: payment.environment,
      amount: 1500,
      currency: 'RWF',
      status: 'pending' as const,
      reason: null,
      providerReference: null,
      failureMessage: null,
      createdAt: new Date().toISOString(),
      completedAt: null,
    };
    const reserved = [`refund:${refund.id}:reserved`];
    const first: RefundAnswerOutcome = await new MockActivityEnvironment().run(activities.refundAtProvider, {
      payment: completed,
      refund,
      post: reserved,
    });
    expect(first.status).to.equal('succeeded');
    // The same refund again (an activity retry): the provider recognises the key and refunds nothing more.
    const repeated: RefundAnswerOutcome = await new MockActivityEnvironment().run(activities.refundAtProvider, {
      payment: completed,
      refund,
      post: reserved,
    });
    expect(repeated.status).to.equal('succeeded');
    expect(
      Number(
        (
          await db('sandbox_provider_refunds')
            .where({ provider_reference: payment.providerReference })
            .sum('amount as total')
            .first()
        )?.total,
      ),
    ).to.equal(1500);
    const settled = {
      ...refund,
      status: 'completed' as const,
      providerReference: 'rf',
      completedAt: new Date().toISOString(),
    };
    await new MockActivityEnvironment().run(activities.recordRefundOutcome, {
      refund: settled,
      payment: { ...completed, amountRefunded: 1500, status: 'refunded' as const, version: 3 },
      emit: 'refund.completed' as const,
      post: [`refund:${refund.id}:completed`],
    });
    const again: RefundAnswerOutcome = await new MockActivityEnvironment().run(activities.refundAtProvider, {
      payment: completed,
      refund,
      post: reserved,
    });
    expect(again).to.include({ status: 'already_decided' });
  });
});
