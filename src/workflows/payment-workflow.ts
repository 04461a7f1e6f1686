/**
 * `paymentWorkflow` (D20): one per payment, id `payment:{pay_id}`. Records the payment, initiates it
 * with the provider, then waits for a callback signal or the next poll (2 s doubling to 60 s) until
 * the provider's final answer or `expires_at` (D11), writing every status change and its event
 * through activities (D22) and keeping the search attributes current. Cancel and refund arrive as
 * Updates whose validators refuse what D11 does not allow (D12). A completed payment's workflow
 * stays open for refunds for the refund window.
 *
 * Deterministic: only `@temporalio/workflow`, domain code, messages and activity types are imported.
 */
import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  TemporalFailure,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { DomainError } from '../domain/errors';
import {
  FIRST_POLL_DELAY_MS,
  initiationRequest,
  isOpen,
  MAX_POLL_DELAY_MS,
  nextPollDelayMs,
  pollDelayAfter,
  statusChangeFor,
  withStatusChange,
  type PaymentStatus,
  type ProviderOutcome,
  type StatusChange,
} from '../domain/payment';
import type { PaymentSnapshot } from '../domain/payment-record';
import { checkRefund, type RefundRecord } from '../domain/refund';
import {
  cancelPaymentUpdate,
  getPaymentQuery,
  PaymentStatusAttribute,
  providerCallbackSignal,
  refundPaymentUpdate,
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

/**
 * History length (events) past which a payment still waiting on its provider continues as new: a card
 * payment polled every 60 s for 24 h would otherwise write ~13,000 events, a bank transfer over 72 h
 * ~39,000 (Temporal's limit is 50,000).
 */
export const HISTORY_EVENTS_BEFORE_CONTINUE = 2_000;

/**
 * Patch id: the payment's steps (read-model writes and provider calls, each well under the workflow
 * task timeout) run as local activities, inside the workflow task that asks for them, instead of as
 * activity tasks that each cost the server a schedule, a dispatch, a start, a completion and one
 * more workflow task. A payment that settles at once now takes one workflow task instead of four.
 * Executions begun before the patch replay their activity tasks.
 */
export const LOCAL_STEPS_PATCH = 'payment-steps-as-local-activities';

/**
 * Patch id: the first step (record the payment, ask the provider, record its answer) runs as one
 * local activity, `initiatePayment`, instead of three: one activation of the workflow instead of
 * three for a payment the provider settles at once. Executions begun before replay their three.
 */
export const ONE_STEP_INITIATION_PATCH = 'payment-initiation-in-one-step';

/**
 * Patch id: while the payment waits on its provider, the polls after the first wait are the retries
 * of one activity, `pollProviderPayment` (retry policy 2 s doubling to 60 s, until `expires_at`),
 * instead of a timer and a local activity each: the server schedules them, so a poll costs no
 * workflow task and no history events, and a provider outage is retried until the payment expires
 * rather than failing the workflow. Executions begun before keep their timer polls.
 */
export const POLL_RETRIES_PATCH = 'provider-polls-as-activity-retries';

/**
 * Patch id: an execution begun with the three patches above. Every `patched()` of a new execution
 * records a marker and upserts the `TemporalChangeVersion` search attribute (one more visibility
 * write on the server), so a new payment asks for this one patch only and takes the three above as
 * given: one marker and one upsert instead of three each. Executions begun before ask for those
 * three as they did.
 */
export const PAYMENT_V5_PATCH = 'payment-v5';

/** `pollProviderPayment` attempts: one poll each, under the 10 s provider call time-out. */
const POLL_ATTEMPT_TIMEOUT = '15 seconds';

/**
 * `initiatePayment`: the provider calls' retry schedule without their 2-minute limit, so a
 * read-model fault is retried until PostgreSQL answers; the activity itself stops retrying the
 * provider's transient faults after 2 minutes (PROVIDER_GIVE_UP_MS).
 */
const INITIATION_OPTIONS: ActivityOptions = { startToCloseTimeout: PROVIDER_OPTIONS.startToCloseTimeout, retry: PROVIDER_OPTIONS.retry };

const remoteRecords = proxyActivities<Activities>(RECORD_OPTIONS);
const remoteProvider = proxyActivities<Activities>(PROVIDER_OPTIONS);
const localRecords = proxyLocalActivities<Activities>(RECORD_OPTIONS);
const localProvider = proxyLocalActivities<Activities>(PROVIDER_OPTIONS);
const localInitiation = proxyLocalActivities<Activities>(INITIATION_OPTIONS);

/** Turns a domain refusal into the Update failure the API maps back to its D51 code. */
function refusal(error: unknown): never {
  if (error instanceof DomainError) throw ApplicationFailure.create({ type: error.code, message: error.message, nonRetryable: true });
  throw error;
}

function notCancellable(status: PaymentStatus): never {
  throw ApplicationFailure.create({
    type: 'payment_not_cancellable',
    message: `a ${status} payment cannot be cancelled; only pending and processing payments can`,
    nonRetryable: true,
  });
}

/**
 * True for the failure of a provider call: an activity task fails with an ActivityFailure around
 * the cause, a local activity with the cause itself (an ApplicationFailure, a TimeoutFailure, …).
 */
function isProviderFailure(error: unknown): error is TemporalFailure {
  return error instanceof TemporalFailure;
}

function failureMessage(error: TemporalFailure): string {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure ? cause.message : 'the provider did not answer';
}

/** Runs one payment to its final state (see module comment). */
export async function paymentWorkflow(input: PaymentWorkflowInput): Promise<PaymentSnapshot> {
  const v5 = patched(PAYMENT_V5_PATCH);
  const localSteps = v5 || patched(LOCAL_STEPS_PATCH);
  const pollRetries = v5 || (localSteps && patched(POLL_RETRIES_PATCH));
  const records = localSteps ? localRecords : remoteRecords;
  const provider = localSteps ? localProvider : remoteProvider;
  let payment: PaymentSnapshot = input.payment;
  let callback: ProviderCallback | undefined;
  let initiationSettled = false;
  let cancelling = false;
  let reservedMinor = 0;

  /** Applies `change`, writes it and keeps the PaymentStatus search attribute current. */
  async function transition(change: StatusChange): Promise<void> {
    payment = withStatusChange(payment, change, new Date().toISOString());
    upsertSearchAttributes([{ key: PaymentStatusAttribute, value: change.status }]);
    await records.recordPaymentStatus(payment);
  }

  /** Applies a provider answer: `processing` once, final answers end the open phase (D11). */
  async function apply(outcome: ProviderOutcome): Promise<void> {
    const change = statusChangeFor(payment.status, outcome);
    if (change) await transition(change);
  }

  setHandler(getPaymentQuery, () => payment);
  setHandler(providerCallbackSignal, (received) => {
    if (payment.providerReference === null || received.providerReference === payment.providerReference) {
      callback = received;
    }
  });

  setHandler(
    cancelPaymentUpdate,
    async (request) => {
      cancelling = true;
      await condition(() => initiationSettled);
      if (!isOpen(payment.status)) notCancellable(payment.status);
      const reference = payment.providerReference;
      let outcome: ProviderOutcome = { status: 'cancelled' };
      if (reference !== null) {
        try {
          const answer = await provider.cancelProviderPayment({ environment: payment.environment, provider: payment.provider, providerReference: reference });
          outcome = answer.outcome;
        } catch (error) {
          if (!isProviderFailure(error)) throw error;
          cancelling = false;
          throw ApplicationFailure.create({ type: 'provider_unavailable', message: failureMessage(error), nonRetryable: true });
        }
      }
      // The provider's word decides a race with a success (D11): then the cancel loses.
      if (outcome.status === 'cancelled') payment = { ...payment, cancellationReason: request.reason ?? null };
      await apply(outcome);
      if (payment.status !== 'cancelled') notCancellable(payment.status);
      return payment;
    },
    {
      validator: (_request) => {
        if (!isOpen(payment.status) || cancelling) notCancellable(payment.status);
      },
    },
  );

  setHandler(
    refundPaymentUpdate,
    async (request) => {
      let amount = 0;
      try {
        amount = checkRefund(payment, reservedMinor, request.amount);
      } catch (error) {
        refusal(error);
      }
      reservedMinor += amount;
      let refund: RefundRecord = {
        id: request.refundId,
        paymentId: payment.id,
        merchantId: payment.merchantId,
        environment: payment.environment,
        amount,
        currency: payment.currency,
        status: 'pending',
        reason: request.reason ?? null,
        providerReference: null,
        failureMessage: null,
        createdAt: new Date().toISOString(),
        completedAt: null,
      };
      await records.recordRefundCreated(refund);
      let answer: Awaited<ReturnType<Activities['refundProviderPayment']>>;
      try {
        answer = await provider.refundProviderPayment({
          environment: payment.environment,
          provider: payment.provider,
          providerReference: payment.providerReference as string,
          refundId: refund.id,
          amount,
        });
      } catch (error) {
        if (!isProviderFailure(error)) throw error;
        answer = { status: 'failed', failureMessage: failureMessage(error) };
      }
      reservedMinor -= amount;
      const now = new Date().toISOString();
      if (answer.status === 'succeeded') {
        const amountRefunded = payment.amountRefunded + amount;
        const status: PaymentStatus = amountRefunded >= payment.amount ? 'refunded' : payment.status;
        if (status !== payment.status) upsertSearchAttributes([{ key: PaymentStatusAttribute, value: status }]);
        payment = { ...payment, amountRefunded, status, updatedAt: now, version: (payment.version ?? 0) + 1 };
        refund = { ...refund, status: 'completed', providerReference: answer.refundReference, completedAt: now };
      } else {
        refund = { ...refund, status: 'failed', failureMessage: answer.failureMessage, completedAt: now };
      }
      await records.recordRefundOutcome({ refund, payment });
      return refund;
    },
    {
      validator: (request) => {
        try {
          checkRefund(payment, reservedMinor, request.amount);
        } catch (error) {
          refusal(error);
        }
      },
    },
  );

  /** Records the payment and asks the provider to collect it (D16, D22). */
  async function initiate(): Promise<void> {
    if (v5 || (localSteps && patched(ONE_STEP_INITIATION_PATCH))) {
      try {
        const initiated = await localInitiation.initiatePayment({ payment, changedAt: new Date().toISOString() });
        if (initiated.status !== payment.status) upsertSearchAttributes([{ key: PaymentStatusAttribute, value: initiated.status }]);
        payment = initiated;
        initiationSettled = true;
      } catch (error) {
        if (!isProviderFailure(error)) throw error;
        initiationSettled = true;
        await transition({ status: 'failed', failure: { code: 'provider_error', message: failureMessage(error) } });
      }
      return;
    }
    await records.recordPaymentCreated(payment);
    try {
      const initiated = await provider.initiateProviderPayment({ environment: payment.environment, provider: payment.provider, ...initiationRequest(payment) });
      payment = { ...payment, providerReference: initiated.providerReference };
      initiationSettled = true;
      await apply(initiated.outcome);
    } catch (error) {
      if (!isProviderFailure(error)) throw error;
      initiationSettled = true;
      await transition({ status: 'failed', failure: { code: 'provider_error', message: failureMessage(error) } });
    }
  }

  /** True once the workflow has something to do other than poll: a callback, or a cancel that closed the payment. */
  const woken = () => callback !== undefined || !isOpen(payment.status);

  /**
   * Polls through `pollProviderPayment`, whose retries are the later polls, starting now and going
   * on after `delayMs` doubled (D20) until the provider's answer changes the payment or expires_at.
   * Resolves with that answer and the poll delay then reached; with undefined when woken first (the
   * polls are then cancelled) or when the polls ended without an answer (expires_at is near, or
   * no adapter serves the payment), which the loop's own timer and last poll then handle.
   */
  async function pollUntilAnswered(delayMs: number): Promise<{ outcome: ProviderOutcome; delayMs: number } | undefined> {
    const { pollProviderPayment } = proxyActivities<Activities>({
      startToCloseTimeout: POLL_ATTEMPT_TIMEOUT,
      scheduleToCloseTimeout: expiresAtMs - Date.now(),
      retry: { initialInterval: nextPollDelayMs(delayMs), backoffCoefficient: 2, maximumInterval: MAX_POLL_DELAY_MS },
    });
    const scope = new CancellationScope();
    try {
      return await scope.run(async () => {
        const answered = pollProviderPayment({
          environment: payment.environment,
          provider: payment.provider,
          providerReference: payment.providerReference as string,
          status: payment.status,
        }).then((polled) => ({ outcome: polled.answer.outcome, delayMs: pollDelayAfter(delayMs, polled.attempt - 1) }));
        return await Promise.race([answered, condition(woken).then(() => undefined)]);
      });
    } catch (error) {
      if (error instanceof ActivityFailure) return undefined;
      throw error;
    } finally {
      scope.cancel();
    }
  }

  const expiresAtMs = Date.parse(payment.expiresAt);
  if (input.resumed) initiationSettled = true;
  else await initiate();

  let delayMs: number | undefined = input.resumed?.pollDelayMs;
  while (isOpen(payment.status)) {
    const longHistory = workflowInfo().historyLength > HISTORY_EVENTS_BEFORE_CONTINUE || workflowInfo().continueAsNewSuggested;
    if (longHistory && callback === undefined && !cancelling) {
      // Keep the history short while waiting on the provider; the next run resumes the polling.
      await condition(allHandlersFinished);
      await continueAsNew<typeof paymentWorkflow>({ ...input, payment, resumed: { pollDelayMs: delayMs ?? FIRST_POLL_DELAY_MS } });
    }
    delayMs = nextPollDelayMs(delayMs);
    const untilExpiryMs = expiresAtMs - Date.now();
    if (untilExpiryMs > 0) await condition(woken, Math.min(delayMs, untilExpiryMs));
    if (!isOpen(payment.status)) break;
    if (callback !== undefined) {
      const received = callback;
      callback = undefined;
      await apply(received.outcome);
      continue;
    }
    if (pollRetries && Date.now() < expiresAtMs) {
      // Polls: the fallback for a lost callback (D16).
      const answered = await pollUntilAnswered(delayMs);
      if (answered) {
        delayMs = answered.delayMs;
        await apply(answered.outcome);
      } else if (!woken()) {
        delayMs = MAX_POLL_DELAY_MS; // the polls ended: at most one more wait, cut at expires_at
      }
      continue;
    }
    // Poll: the fallback for a lost callback (D16), and a last word from the provider at expiry.
    let polled: ProviderOutcome | undefined;
    try {
      const answer = await provider.fetchProviderPaymentStatus({
        environment: payment.environment,
        provider: payment.provider,
        providerReference: payment.providerReference as string,
      });
      polled = answer.outcome;
    } catch (error) {
      // Since the poll patch, a provider that does not answer at expiry leaves the payment to expire.
      if (!pollRetries || !isProviderFailure(error)) throw error;
    }
    if (polled) await apply(polled);
    if (isOpen(payment.status) && Date.now() >= expiresAtMs && !cancelling) {
      await transition({ status: 'failed', failure: { code: 'expired', message: 'The customer did not complete the payment before it expired' } });
    }
  }

  if (payment.status === 'completed') {
    // Refunds arrive as Updates while the window is open (D12).
    await condition(() => payment.amountRefunded >= payment.amount && reservedMinor === 0, `${input.refundWindowSeconds} seconds`);
  }
  await condition(allHandlersFinished);
  return payment;
}
