/**
 * Data PostgreSQL refuses (docs/api.md#errors, docs/limits.md#retries) (SQLSTATE class 22) fails an activity
 * non-retryably as
 * `DataError`, naming the SQLSTATE and never the data; a payment whose data is refused is not
 * recorded and its provider is not asked; and the worker's activity interceptor counts retries and
 * give-ups (docs/limits.md#retries). Real activities on the real PostgreSQL, run in the SDK's
 * MockActivityEnvironment with the interceptor and a meter that keeps what it is given.
 */
import { expect } from 'chai';
import {
  ApplicationFailure,
  ApplicationFailureCategory,
  type MetricCounter,
  type MetricMeter,
  type MetricTags,
} from '@temporalio/common';
import type { Info } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createActivities, type Activities } from '../../src/activities';
import {
  activityRetryMetrics,
  giveUpReason,
  ACTIVITY_GIVE_UPS_METRIC,
  ACTIVITY_RETRIES_METRIC,
} from '../../src/activities/retry-metrics';
import { createSandboxLedger } from '../../src/db/sandbox-ledger';
import { createMailer } from '../../src/lib/mailer';
import { providerRegistryFromConfig } from '../../src/providers/registry';
import { insertMerchant, mobileMoneyPayment } from '../helpers/fixtures';
import { getStack } from '../helpers/stack';

/**
 * A metric meter that keeps every counter increment with its tags (the worker's is the SDK runtime's Prometheus
 * exporter).
 */
class KeepingMeter implements MetricMeter {
  readonly added: { name: string; value: number; tags: MetricTags }[] = [];

  createCounter(name: string): MetricCounter {
    const counter = (tags: MetricTags): MetricCounter => ({
      name,
      kind: 'counter',
      valueType: 'int',
      add: (value, extra) => void this.added.push({ name, value, tags: { ...tags, ...extra } }),
      withTags: (more) => counter({ ...tags, ...more }),
    });
    return counter({});
  }

  createHistogram(): never {
    throw new Error('no histogram is expected');
  }

  createGauge(): never {
    throw new Error('no gauge is expected');
  }

  withTags(): MetricMeter {
    return this;
  }

  /**
   * The increments of counter `name`, as their `activityType` and `reason` tags (the meter adds namespace and task
   * queue too).
   */
  of(name: string): MetricTags[] {
    return this.added
      .filter((entry) => entry.name === name)
      .map(({ tags }) =>
        Object.fromEntries(Object.entries(tags).filter(([key]) => key === 'activityType' || key === 'reason')),
      );
  }
}

describe('activities: data errors and retry metrics (docs/limits.md#retries)', function () {
  this.timeout(30_000);
  let activities: Activities;

  before(async () => {
    const { db, client, config } = await getStack();
    activities = createActivities({
      db,
      providers: providerRegistryFromConfig(createSandboxLedger(db), config),
      temporal: client,
      mailer: createMailer(config),
      config,
    });
  });

  /**
   * Runs `activity` as attempt `info.attempt` of `info.activityType` with the retry metrics interceptor; resolves with
   * its result or its error.
   */
  async function run(meter: KeepingMeter, info: Partial<Info>, activity: () => Promise<unknown>): Promise<unknown> {
    const environment = new MockActivityEnvironment(info, {
      interceptors: [activityRetryMetrics],
      metricMeter: meter,
      logger: new DefaultLogger('ERROR'),
    });
    return environment.run(activity).then(
      (result) => result,
      (error: unknown) => error,
    );
  }

  it('fails a statement PostgreSQL refuses for its data (NUL in text) non-retryably as DataError, naming the SQLSTATE, not the data', async () => {
    const meter = new KeepingMeter();
    const failure = await run(meter, { activityType: 'loadPayment' }, () =>
      activities.loadPayment('pay_secret\u0000value'),
    );
    expect(failure).to.be.instanceOf(ApplicationFailure);
    const refused = failure as ApplicationFailure;
    expect(refused.type).to.equal('DataError');
    expect(refused.nonRetryable).to.equal(true);
    expect(refused.message).to.equal(
      'loadPayment: PostgreSQL refused a value (SQLSTATE 22021 character_not_in_repertoire)',
    );
    expect(meter.of(ACTIVITY_GIVE_UPS_METRIC)).to.deep.equal([{ activityType: 'loadPayment', reason: 'data_error' }]);
  });

  it('records nothing and asks no provider for a payment whose data PostgreSQL refuses (PaymentNotRecorded)', async () => {
    const { db } = await getStack();
    const payment = {
      ...mobileMoneyPayment(await insertMerchant(db), '+250788000001'),
      metadata: { order: 'x\u0000y' },
    };
    const failure = await run(new KeepingMeter(), { activityType: 'initiatePayment' }, () =>
      activities.initiatePayment({ payment, changedAt: new Date().toISOString() }),
    );
    expect(failure).to.be.instanceOf(ApplicationFailure);
    expect((failure as ApplicationFailure).type).to.equal('PaymentNotRecorded');
    expect((failure as ApplicationFailure).nonRetryable).to.equal(true);
    expect((failure as ApplicationFailure).message).to.not.include('x\u0000y');
    expect(await db('payments').where({ id: payment.id }).first()).to.equal(undefined);
    expect(await db('events').where({ object_id: payment.id }).first()).to.equal(undefined);
    expect(await db('sandbox_provider_transactions').where({ payment_id: payment.id }).first()).to.equal(undefined);
  });

  it('counts an attempt after the first as a retry, and a fault on the last allowed attempt as a give-up', async () => {
    const { db } = await getStack();
    // A payment not in the read model yet: recordPaymentStatus fails retryably (a fault, not a decision).
    const missing = mobileMoneyPayment(await insertMerchant(db), '+250788000001');
    const write = () =>
      activities.recordPaymentStatus({ ...missing, status: 'processing', version: 1 }, { emit: null, post: [] });
    const meter = new KeepingMeter();
    // only maximumAttempts bounds these
    const unbounded = { scheduledTimestampMs: Date.now(), scheduleToCloseTimeoutMs: 0 };

    expect(
      await run(
        meter,
        { ...unbounded, activityType: 'recordPaymentStatus', attempt: 1, retryPolicy: { maximumAttempts: 3 } },
        write,
      ),
    ).to.be.instanceOf(Error);
    expect(meter.of(ACTIVITY_RETRIES_METRIC)).to.have.length(0);
    expect(meter.of(ACTIVITY_GIVE_UPS_METRIC)).to.have.length(0);

    expect(
      await run(
        meter,
        { ...unbounded, activityType: 'recordPaymentStatus', attempt: 2, retryPolicy: { maximumAttempts: 3 } },
        write,
      ),
    ).to.be.instanceOf(Error);
    expect(meter.of(ACTIVITY_RETRIES_METRIC)).to.deep.equal([{ activityType: 'recordPaymentStatus' }]);
    expect(meter.of(ACTIVITY_GIVE_UPS_METRIC)).to.have.length(0);

    expect(
      await run(
        meter,
        { ...unbounded, activityType: 'recordPaymentStatus', attempt: 3, retryPolicy: { maximumAttempts: 3 } },
        write,
      ),
    ).to.be.instanceOf(Error);
    expect(meter.of(ACTIVITY_RETRIES_METRIC)).to.have.length(2);
    expect(meter.of(ACTIVITY_GIVE_UPS_METRIC)).to.deep.equal([
      { activityType: 'recordPaymentStatus', reason: 'max_attempts' },
    ]);

    // A decided failure (not_found) on a retry: counted as a retry, not as a give-up.
    expect(
      await run(meter, { ...unbounded, activityType: 'loadPayment', attempt: 4 }, () =>
        activities.loadPayment(missing.id),
      ),
    ).to.be.instanceOf(ApplicationFailure);
    expect(meter.of(ACTIVITY_RETRIES_METRIC)).to.have.length(3);
    expect(meter.of(ACTIVITY_GIVE_UPS_METRIC)).to.have.length(1);
  });

  it('judges the schedule-to-close bound from the next backoff, and counts no decline, benign or non-retryable type as a give-up', () => {
    const nowMs = Date.now();
    const bounded = {
      attempt: 4,
      scheduledTimestampMs: nowMs - 115_000,
      scheduleToCloseTimeoutMs: 120_000,
      retryPolicy: {
        initialInterval: 1_000,
        backoffCoefficient: 2,
        maximumInterval: 20_000,
        nonRetryableErrorTypes: ['ProviderRejected'],
      },
    };
    // The next attempt would start 8 s later, past the 2 min bound; with 20 s left it would not.
    expect(giveUpReason(new Error('connect ETIMEDOUT'), bounded, nowMs)).to.equal('schedule_to_close');
    expect(
      giveUpReason(new Error('connect ETIMEDOUT'), { ...bounded, scheduledTimestampMs: nowMs - 100_000 }, nowMs),
    ).to.equal(undefined);
    expect(
      giveUpReason(ApplicationFailure.create({ type: 'ProviderRejected', message: 'declined' }), bounded, nowMs),
    ).to.equal(undefined);
    expect(
      giveUpReason(
        ApplicationFailure.create({ type: 'ProviderUnsupported', message: 'no refunds', nonRetryable: true }),
        bounded,
        nowMs,
      ),
    ).to.equal(undefined);
    expect(
      giveUpReason(
        ApplicationFailure.create({
          type: 'ProviderStillWaiting',
          message: 'poll',
          category: ApplicationFailureCategory.BENIGN,
        }),
        bounded,
        nowMs,
      ),
    ).to.equal(undefined);
    expect(
      giveUpReason(
        ApplicationFailure.create({ type: 'DataError', message: 'refused', nonRetryable: true }),
        { ...bounded, attempt: 1 },
        nowMs,
      ),
    ).to.equal('data_error');
    // No bound at all (the policies of src/workflows/activity-options.ts always have one): never a give-up.
    expect(
      giveUpReason(
        new Error('connect ETIMEDOUT'),
        { attempt: 50, scheduledTimestampMs: nowMs - 86_400_000, scheduleToCloseTimeoutMs: 0, retryPolicy: {} },
        nowMs,
      ),
    ).to.equal(undefined);
  });
});
