/**
 * `paymentWorkflow` (D20): one per payment, id `payment:{pay_id}`. Records the payment, initiates it
 * with the provider, then waits for a callback signal or the next poll (2 s doubling to 60 s) until
 * the provider's final answer or `expires_at` (D11), writing every status change and its event
 * through activities (D22) and keeping the search attributes current. A completed payment's
 * workflow stays open for the refund window.
 *
 * Deterministic: only `@temporalio/workflow`, domain code and activity types are imported.
 */
import { ApplicationFailure, condition, type ActivityOptions, proxyActivities, setHandler, upsertSearchAttributes, ActivityFailure } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { isOpen, nextPollDelayMs, type FailureCode, type PaymentStatus, type ProviderOutcome } from '../domain/payment';
import type { PaymentSnapshot } from '../domain/payment-record';
import {
  getPaymentQuery,
  PaymentStatusAttribute,
  providerCallbackSignal,
  type PaymentWorkflowInput,
  type ProviderCallback,
} from './messages';

/** Read-model writes: short, retried until PostgreSQL answers. */
const RECORD_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumInterval: '30 seconds' },
};

/** Provider calls: retried for transient faults; permanent refusals are non-retryable failures. */
const PROVIDER_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '15 seconds',
  scheduleToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '20 seconds',
    nonRetryableErrorTypes: ['ProviderUnavailable', 'ProviderRejected'],
  },
};

const records = proxyActivities<Activities>(RECORD_OPTIONS);
const provider = proxyActivities<Activities>(PROVIDER_OPTIONS);

/** Runs one payment to its final state (see module comment). */
export async function paymentWorkflow(input: PaymentWorkflowInput): Promise<PaymentSnapshot> {
  let payment: PaymentSnapshot = input.payment;
  let callback: ProviderCallback | undefined;

  setHandler(getPaymentQuery, () => payment);
  setHandler(providerCallbackSignal, (received) => {
    if (payment.providerReference === null || received.providerReference === payment.providerReference) {
      callback = received;
    }
  });

  /** Moves the payment to `status`, writes it and keeps the PaymentStatus search attribute current. */
  async function transition(status: PaymentStatus, failure?: { code: FailureCode; message: string }): Promise<void> {
    payment = {
      ...payment,
      status,
      failureCode: failure?.code ?? null,
      failureMessage: failure?.message ?? null,
      updatedAt: new Date().toISOString(),
    };
    upsertSearchAttributes([{ key: PaymentStatusAttribute, value: status }]);
    await records.recordPaymentStatus(payment);
  }

  /** Applies a provider answer: `processing` once, final answers end the open phase (D11). */
  async function apply(outcome: ProviderOutcome): Promise<void> {
    if (!isOpen(payment.status)) return;
    if (outcome.status === 'completed') await transition('completed');
    else if (outcome.status === 'failed') await transition('failed', { code: outcome.failureCode, message: outcome.failureMessage });
    else if (outcome.status === 'processing' && payment.status === 'pending') await transition('processing');
  }

  await records.recordPaymentCreated(payment);

  const expiresAtMs = Date.parse(payment.expiresAt);
  try {
    const initiated = await provider.initiateProviderPayment({
      environment: payment.environment,
      provider: payment.provider,
      paymentId: payment.id,
      idempotencyKey: `payment:${payment.id}:initiate`,
      amount: payment.amount,
      currency: payment.currency,
      customer: payment.customerPhone ?? payment.customerEmail ?? payment.id,
    });
    payment = { ...payment, providerReference: initiated.providerReference };
    await apply(initiated.outcome);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    const cause = error.cause instanceof ApplicationFailure ? error.cause.message : 'the provider did not answer';
    await transition('failed', { code: 'provider_error', message: cause });
  }

  let delayMs: number | undefined;
  while (isOpen(payment.status)) {
    delayMs = nextPollDelayMs(delayMs);
    const untilExpiryMs = expiresAtMs - Date.now();
    if (untilExpiryMs > 0) {
      await condition(() => callback !== undefined, Math.min(delayMs, untilExpiryMs));
    }
    if (callback !== undefined) {
      const received = callback;
      callback = undefined;
      await apply(received.outcome);
      continue;
    }
    // Poll: the fallback for a lost callback (D16), and a last word from the provider at expiry.
    const polled = await provider.fetchProviderPaymentStatus({
      environment: payment.environment,
      provider: payment.provider,
      providerReference: payment.providerReference as string,
    });
    await apply(polled.outcome);
    if (isOpen(payment.status) && Date.now() >= expiresAtMs) {
      await transition('failed', { code: 'expired', message: 'The customer did not complete the payment before it expired' });
    }
  }

  if (payment.status === 'completed') {
    // Refunds arrive as Updates while the window is open (D12).
    await condition(() => payment.amountRefunded >= payment.amount, `${input.refundWindowSeconds} seconds`);
  }
  return payment;
}
