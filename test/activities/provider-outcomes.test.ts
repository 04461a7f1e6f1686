/**
 * The decided attempts the payment activities record for operator health (docs/availability.md#classification),
 * against the real PostgreSQL, the sandbox simulator and the MTN MoMo fake: an initiation refused with the provider's
 * own error is one provider failure, written with the payment's row; a provider that refuses our credentials is the
 * platform's failure, recorded under the merchant whose payment it was and never against the operator's status; a
 * provider that cannot be reached at all is told apart from one that did not answer; a refund's outcome is recorded
 * once however often its write is retried.
 */
import net from 'node:net';
import { expect } from 'chai';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createPaymentActivities, PROVIDER_GIVE_UP_MS } from '../../src/activities/payment-activities';
import { measureProviderHealth } from '../../src/activities/provider-health-activities';
import { measuredCountryOf } from '../../src/activities/provider-outcomes';
import type { InitiationResult } from '../../src/workflows/activity-contracts';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import { providerRegistryFromConfig } from '../../src/providers/registry';
import { apply, initialPaymentState, writeOrdersOf } from '../../src/domain/payment-table';
import type { AttemptFacts } from '../../src/domain/provider-health';
import type { PaymentSnapshot } from '../../src/domain/payment';
import { newId } from '../../src/lib/ids';
import { insertMerchant, mobileMoneyPayment } from '../helpers/fixtures';
import { getStack } from '../helpers/stack';
import { createMomoProvider } from '../../src/providers/momo/adapter';
import { momoSettingsSchema } from '../../src/providers/momo/settings';
import { startMomoFake, type MomoFake } from '../fakes/momo-fake';
import type { Db } from '../../src/db/knex';
import type { PaymentProvider } from '../../src/providers/provider';

/** A local port nothing listens on (a server opened on it and closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function outcomesOf(db: Db, objectId: string) {
  return db('provider_outcomes').where({ object_id: objectId }).orderBy('id');
}

/** A Ugandan MoMo payment (so its bucket, momo UG, is this file's own). */
function ugandanPayment(merchantId: string, phone: string): PaymentSnapshot {
  return { ...mobileMoneyPayment(merchantId, phone), currency: 'UGX' };
}

/** The failure of running `initiatePayment` for `payment` once its 2 minutes of retries are over. */
async function givenUp(activities: ReturnType<typeof createPaymentActivities>, payment: PaymentSnapshot) {
  const late = new MockActivityEnvironment({ scheduledTimestampMs: Date.now() - PROVIDER_GIVE_UP_MS - 1_000 });
  return late.run(activities.initiatePayment, { payment, changedAt: payment.createdAt }).then(
    () => expect.fail('the initiation was not given up'),
    (e: unknown) => e as ApplicationFailure,
  );
}

/**
 * What the payment's run does with an initiation given up on (src/workflows/payment-run.ts): the table's
 * `initiation_unanswered` row, written with the facts the failure carried.
 */
async function writeUnanswered(
  activities: ReturnType<typeof createPaymentActivities>,
  payment: PaymentSnapshot,
  failure: ApplicationFailure,
) {
  const applied = apply(
    initialPaymentState(payment),
    { type: 'initiation_unanswered', message: failure.message },
    payment.createdAt,
  );
  if (!applied.ok) throw new Error('the table refused initiation_unanswered');
  const orders = writeOrdersOf(applied.effects);
  const told = failure.details?.[0] as Pick<AttemptFacts, 'neverReached' | 'side'>;
  const facts: AttemptFacts = { firstRequestAt: payment.createdAt, lastWordUnknown: false, ...told };
  await new MockActivityEnvironment().run(activities.recordPaymentStatus, applied.state.payment, {
    ...orders,
    outcome: { ...orders.outcome!, facts },
  });
}

describe('decided attempts recorded by the payment activities (docs/availability.md#classification)', function () {
  this.timeout(60_000);

  it("records an initiation refused with the provider's own error (0010) once, with the payment's failed row: a provider failure", async () => {
    const { db, client, config } = await getStack();
    const activities = createPaymentActivities({
      db,
      providers: providerRegistryFromConfig(createSandboxLedger(db), config),
      temporal: client,
      config,
    });
    const payment = mobileMoneyPayment(await insertMerchant(db), '+250788000010');
    const input = { payment, changedAt: payment.createdAt };
    const result: InitiationResult = await new MockActivityEnvironment().run(activities.initiatePayment, input);
    expect(result.recorded).to.include({ status: 'failed', failureCode: 'provider_error' });
    // The activity again (its workflow task thrown away): nothing is recorded twice.
    await new MockActivityEnvironment().run(activities.initiatePayment, input);
    const rows = await outcomesOf(db, payment.id);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({
      environment: 'sandbox',
      provider: 'momo',
      country: 'RW',
      operation: 'collection',
      merchant_id: payment.merchantId,
      outcome: 'failure',
      side: 'provider',
      never_reached: false,
    });
    expect(Number(rows[0].duration_ms)).to.be.at.least(0).and.below(60_000);
  });

  it("records a payer's decline given at once (0002) as the payer's, and a success (0001) without a side", async () => {
    const { db, client, config } = await getStack();
    const activities = createPaymentActivities({
      db,
      providers: providerRegistryFromConfig(createSandboxLedger(db), config),
      temporal: client,
      config,
    });
    const merchant = await insertMerchant(db);
    const declined = mobileMoneyPayment(merchant, '+250788000002');
    const paid = mobileMoneyPayment(merchant, '+250788000001');
    for (const payment of [declined, paid])
      await new MockActivityEnvironment().run(activities.initiatePayment, { payment, changedAt: payment.createdAt });
    expect(await outcomesOf(db, declined.id)).to.have.length(1);
    expect((await outcomesOf(db, declined.id))[0]).to.include({ outcome: 'failure', side: 'payer' });
    expect((await outcomesOf(db, paid.id))[0]).to.include({ outcome: 'success', side: null });
  });

  it("measures a payment in its number's country, and a card or wallet payment (offered everywhere) in none", () => {
    const payment = mobileMoneyPayment('mer_x', '+256772000009');
    expect(measuredCountryOf(payment, 'collection')).to.equal('UG');
    expect(measuredCountryOf({ ...payment, customerPhone: '+250788000001' }, 'refund')).to.equal('RW');
    // A number of a country the provider does not serve: no bucket to count it in.
    expect(measuredCountryOf({ ...payment, customerPhone: '+254712000001' }, 'collection')).to.equal(undefined);
    expect(measuredCountryOf({ ...payment, provider: 'card_gateway', customerPhone: null }, 'collection')).to.equal(
      undefined,
    );
    expect(measuredCountryOf({ ...payment, provider: 'mobile_money_c', customerPhone: null }, 'collection')).to.equal(
      'LR',
    );
  });

  describe('a provider that refuses our credentials, and one that cannot be reached', () => {
    const credentials = {
      apiUser: '5f0b7a3c-1d2e-4f60-8a9b-0c1d2e3f4a5b',
      apiKey: 'momo-api-key-of-the-fake',
      subscriptionKey: 'momo-subscription-key-of-the-fake',
    };
    let fake: MomoFake;
    before(async () => {
      fake = await startMomoFake({ ...credentials, approvalDelayMs: 40 });
    });
    after(async () => {
      await fake.close();
    });

    function momoAt(baseUrl: string, apiKey: string): PaymentProvider {
      return createMomoProvider(
        momoSettingsSchema.parse({ baseUrl, ...credentials, apiKey, targetEnvironment: 'mtnuganda', timeoutMs: 1_000 }),
        { callbackSecret: 'momo-callback-secret-for-tests-0123456789' },
      );
    }

    it("counts one merchant's payments refused as unauthorised as the platform's failures, under that merchant, never against the operator's status", async () => {
      const { db, client, config } = await getStack();
      const refused = momoAt(fake.url, 'a-wrong-api-key');
      const activities = createPaymentActivities({
        db,
        providers: { get: () => refused },
        temporal: client,
        config,
        providerCallTimeoutMs: 2_000,
      });
      const merchant = await insertMerchant(db);
      const ids: string[] = [];
      for (let i = 0; i < 25; i += 1) {
        const payment = ugandanPayment(merchant, `+25677${String(1000000 + i).slice(-7)}`);
        ids.push(payment.id);
        const failure = await givenUp(activities, payment);
        expect(failure).to.be.instanceOf(ApplicationFailure).and.include({ type: 'ProviderUnavailable' });
        expect(failure.details?.[0]).to.deep.equal({ neverReached: false, side: 'platform' });
        await writeUnanswered(activities, payment, failure);
      }
      const rows = await db('provider_outcomes').whereIn('object_id', ids);
      expect(rows).to.have.length(25);
      for (const row of rows)
        expect(row).to.include({ merchant_id: merchant, country: 'UG', outcome: 'failure', side: 'platform' });
      // The operator's measured status: a full bucket of failures, none of them the operator's.
      await measureProviderHealth(db, 'sandbox', Date.now());
      const health = await db('provider_health')
        .where({ environment: 'sandbox', provider: 'momo', country: 'UG', operation: 'collection' })
        .first();
      expect(health).to.include({ status: 'operational', provider_failure_share: 0 });
      expect(health.window_attempts).to.be.at.least(25);
      // The merchant sees each on its payment: failed, provider_error, the refusal named.
      const payment = await db('payments').where({ id: ids[0] }).first('status', 'failure_code', 'failure_message');
      expect(payment).to.include({ status: 'failed', failure_code: 'provider_error' });
      expect(payment.failure_message).to.match(/refused/);
    });

    it('says a provider that refuses the connection was never reached, and one that answers 500 was', async () => {
      const { db, client, config } = await getStack();
      const closed = momoAt(`http://127.0.0.1:${await closedPort()}`, credentials.apiKey);
      const unreachable = createPaymentActivities({
        db,
        providers: { get: () => closed },
        temporal: client,
        config,
        providerCallTimeoutMs: 2_000,
      });
      const merchant = await insertMerchant(db);
      const first = ugandanPayment(merchant, '+256772000001');
      const failure = await givenUp(unreachable, first);
      expect(failure.details?.[0]).to.deep.equal({ neverReached: true });
      await writeUnanswered(unreachable, first, failure);
      expect((await outcomesOf(db, first.id))[0]).to.include({ side: 'provider', never_reached: true });

      const answering = momoAt(fake.url, credentials.apiKey);
      const reached = createPaymentActivities({
        db,
        providers: { get: () => answering },
        temporal: client,
        config,
        providerCallTimeoutMs: 2_000,
      });
      const second = ugandanPayment(merchant, '+256772000002');
      fake.injectFaults('error_500', 1, ['/collection/v1_0/requesttopay']);
      const answered = await givenUp(reached, second);
      expect(answered.details?.[0]).to.deep.equal({ neverReached: false });
    });
  });

  it('records a refund outcome once when its write is retried', async () => {
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
      changedAt: created.createdAt,
    });
    const completed = { ...(initiated.recorded as PaymentSnapshot) };
    const refund = {
      id: newId('ref_'),
      paymentId: completed.id,
      merchantId: completed.merchantId,
      environment: completed.environment,
      amount: 1500,
      currency: 'RWF',
      status: 'completed' as const,
      reason: null,
      providerReference: 'rf',
      failureMessage: null,
      createdAt: new Date(Date.now() - 4_000).toISOString(),
      completedAt: new Date().toISOString(),
    };
    const write = {
      refund,
      payment: {
        ...completed,
        amountRefunded: 1500,
        status: 'refunded' as const,
        version: (completed.version ?? 0) + 1,
      },
      emit: 'refund.completed' as const,
      post: [`refund:${refund.id}:reserved`, `refund:${refund.id}:completed`],
      outcome: { operation: 'refund' as const, outcome: 'success' as const },
    };
    await new MockActivityEnvironment().run(activities.recordRefundOutcome, write);
    await new MockActivityEnvironment({ attempt: 2 }).run(activities.recordRefundOutcome, write);
    const rows = await outcomesOf(db, refund.id);
    expect(rows).to.have.length(1);
    expect(rows[0]).to.include({ operation: 'refund', country: 'RW', outcome: 'success', side: null });
    expect(Number(rows[0].duration_ms)).to.be.within(3_000, 10_000);
  });
});
