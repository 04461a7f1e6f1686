/**
 * The checkout activity that creates an attempt's payment (`startCheckoutPayment`, docs/checkout.md#states): the
 * payment's times are on Temporal's clock, the one its workflow times the expiry by, not the worker host's.
 */
import { expect } from 'chai';
import type { Client } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createCheckoutActivities } from '../../src/activities/checkout-activities';
import type { Db } from '../../src/db/knex';
import type { PaymentSnapshot } from '../../src/domain/payment';
import type { CheckoutAttemptRequest } from '../../src/workflows/checkout-messages';
import type { PaymentWorkflowInput } from '../../src/workflows/messages';
import { checkoutSessionSnapshot } from '../helpers/fixtures';
import { testConfig } from '../helpers/stack';

const AT = '2030-01-01T10:00:00.000Z';

const session = checkoutSessionSnapshot(AT, {
  id: 'cs_clock',
  merchantId: 'mer_clock',
  attempts: [{ payment: 'pay_clock', status: 'pending' }],
});

describe('startCheckoutPayment (docs/checkout.md#states)', () => {
  it("stamps the attempt's payment with the time Temporal scheduled the activity, not the host's clock", async () => {
    const config = testConfig();
    const started: PaymentWorkflowInput[] = [];
    // The payment workflow's create answers the payment it was started with.
    const temporal = {
      connection: { withAbortSignal: <T>(_signal: AbortSignal, send: () => Promise<T>) => send() },
      workflow: {
        executeUpdateWithStart: async (
          _update: unknown,
          options: { startWorkflowOperation: { options: { args: [PaymentWorkflowInput] } } },
        ) => {
          const [input] = options.startWorkflowOperation.options.args;
          started.push(input);
          return input.mode === 'create' ? input.payment : undefined;
        },
      },
    } as unknown as Client;
    const activities = createCheckoutActivities({
      db: {} as Db,
      temporal,
      providers: { get: () => undefined },
      config,
    });
    const scheduled = Date.parse(AT) + 7_000;
    const attempt: CheckoutAttemptRequest = {
      paymentId: 'pay_clock',
      paymentMethod: 'mobile_money',
      provider: 'momo',
      customerPhone: '+250788000001',
    };
    const payment: PaymentSnapshot = await new MockActivityEnvironment({
      currentAttemptScheduledTimestampMs: scheduled,
    }).run(activities.startCheckoutPayment, {
      session,
      attempt,
    });
    expect(started).to.have.length(1);
    expect(payment.id).to.equal('pay_clock');
    expect(payment.checkoutSession).to.equal(session.id);
    expect(payment.createdAt).to.equal(new Date(scheduled).toISOString());
    expect(payment.expiresAt).to.equal(new Date(scheduled + config.EXPIRY_MOBILE_MONEY_SECONDS * 1000).toISOString());
  });
});
