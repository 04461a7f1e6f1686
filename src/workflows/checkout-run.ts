/**
 * One run of a checkout session's workflow (docs/checkout.md#states), shaped like `PayoutRun`: the session, a method
 * per message and the steps of the main loop. It carries out the table of `domain/checkout-table.ts` and decides
 * nothing itself: every change is an event given to {@link CheckoutRun.commit}, the one place a session's status
 * changes, synchronously when a message arrives (so of two attempts at once the table admits one and refuses the
 * other before anything is awaited); the row's effects (the write with its event, the attempt's payment, a duplicate's
 * settlement) run as activities, in the order their rows were taken.
 *
 * Deterministic: only `@temporalio/workflow`, a promise-only mutex, domain code and messages.
 */
import { ApplicationFailure, condition, proxyActivities } from '@temporalio/workflow';
import { Mutex } from 'async-mutex';
import {
  applyCheckout,
  attemptInFlight,
  emittedEvent,
  type CheckoutApplied,
  type CheckoutEvent,
  type CheckoutSessionSnapshot,
} from '../domain/checkout-table';
import type { PaymentSnapshot } from '../domain/payment';
import { RECORD_OPTIONS } from './activity-options';
import type {
  CheckoutActivities,
  CheckoutAttemptOutcome,
  CheckoutAttemptRequest,
  CheckoutWorkflowInput,
} from './checkout-messages';

const records = proxyActivities<CheckoutActivities>(RECORD_OPTIONS);

/** The workflow clock, ISO 8601 UTC. */
const nowIso = () => new Date(Date.now()).toISOString();

/** The Update failure of a refusal: the API maps its type back to the error code (docs/api.md#errors). */
function failure(refusal: { code: string; message: string }): ApplicationFailure {
  return ApplicationFailure.create({ type: refusal.code, message: refusal.message, nonRetryable: true });
}

type Taken = Extract<CheckoutApplied, { ok: true }>;

/** A session's run: the session and what each message and the expiry do to it (see the module comment). */
export class CheckoutRun {
  private session: CheckoutSessionSnapshot | undefined;
  /** Attempts' outcomes told by their payments' workflows, not yet committed. */
  private readonly outcomes: CheckoutAttemptOutcome[] = [];
  /** The row effects run one at a time, in the order their rows were taken. */
  private readonly mutex = new Mutex();

  constructor(private readonly input: CheckoutWorkflowInput) {}

  // ---- messages ----

  /** `getCheckoutSession`: the session as the run holds it (undefined before it is loaded). */
  snapshot(): CheckoutSessionSnapshot | undefined {
    return this.session;
  }

  /** `createCheckoutSession` (the create's wait): the session once stored. */
  async created(): Promise<CheckoutSessionSnapshot> {
    await condition(() => this.session !== undefined);
    return this.current();
  }

  /** `checkoutAttemptOutcome`: queued for the main loop. */
  told(outcome: CheckoutAttemptOutcome): void {
    this.outcomes.push(outcome);
  }

  /**
   * `startCheckoutAttempt`: the table admits the attempt (or refuses it, and nothing happens), the session is written
   * with it, then its payment is created. When the payment cannot be started (the activity fails for good), the
   * attempt is failed by the table, so the session is not held by an attempt that never prompted anyone.
   * @returns the payment as its create answered
   * @throws ApplicationFailure of the table's refusal (`checkout_session_not_open`,
   *   `checkout_session_attempt_in_progress`, `checkout_session_attempts_exhausted`); the activity's failure when
   *   the payment could not be started
   */
  async attempt(request: CheckoutAttemptRequest): Promise<PaymentSnapshot> {
    await condition(() => this.session !== undefined);
    const taken = this.commit({
      type: 'attempt_started',
      payment: request.paymentId,
      ...(request.amount === undefined ? {} : { amount: request.amount }),
    });
    if (!taken.ok) throw failure(taken.refusal);
    return this.mutex.runExclusive(async () => {
      await this.write(taken);
      try {
        return await records.startCheckoutPayment({ session: taken.session, attempt: request });
      } catch (error) {
        // Its payment could not be started for good (the activity gave up): the attempt failed and the session takes
        // a new one. Should the payment exist after all and collect, its outcome still completes the session.
        const failed = this.commit({ type: 'attempt_failed', payment: request.paymentId });
        if (failed.ok) await this.perform(failed);
        throw error;
      }
    });
  }

  /**
   * `expireCheckoutSession` (the merchant's expire).
   * @throws ApplicationFailure `checkout_session_not_open`, `checkout_session_attempt_in_progress`
   */
  async expire(): Promise<CheckoutSessionSnapshot> {
    await condition(() => this.session !== undefined);
    const taken = this.commit({ type: 'expire', by: 'merchant' });
    if (!taken.ok) throw failure(taken.refusal);
    await this.mutex.runExclusive(() => this.perform(taken));
    return taken.session;
  }

  // ---- the main loop's steps ----

  /** The run's first step: a create's session is stored (once per id), any other run reads the stored one. */
  async begin(): Promise<void> {
    this.session = this.input.create
      ? await records.storeCheckoutSession(this.input.create)
      : await records.loadCheckoutSession(this.input.sessionId);
  }

  /**
   * One step of the main loop: commits a told outcome, or at `expires_at` the clock's expire (which the table refuses
   * while an attempt is in flight: its outcome decides then), or waits for either. False when there is nothing left
   * to wait for: the session is complete or expired with no attempt in flight.
   */
  async step(): Promise<boolean> {
    const outcome = this.outcomes.shift();
    if (outcome) {
      const taken = this.commit({
        type: outcome.outcome === 'completed' ? 'attempt_completed' : 'attempt_failed',
        payment: outcome.payment,
      });
      if (taken.ok) await this.mutex.runExclusive(() => this.perform(taken, outcome.payment));
      return true;
    }
    const session = this.current();
    if (session.status !== 'open' && !attemptInFlight(session)) return false;
    const untilExpiry = Date.parse(session.expiresAt) - Date.now();
    if (session.status === 'open' && untilExpiry <= 0 && !attemptInFlight(session)) {
      const taken = this.commit({ type: 'expire', by: 'clock' });
      if (taken.ok) await this.mutex.runExclusive(() => this.perform(taken));
      return true;
    }
    const wake = () => this.outcomes.length > 0 || this.current().status !== session.status;
    if (session.status === 'open' && !attemptInFlight(session) && untilExpiry > 0) await condition(wake, untilExpiry);
    else await condition(() => wake() || !attemptInFlight(this.current()));
    return true;
  }

  /** True once the run may end: no effect under way, no outcome left. */
  done(): boolean {
    return !this.mutex.isLocked() && this.outcomes.length === 0;
  }

  /** The session as the run ends it (the workflow's result). */
  result(): CheckoutSessionSnapshot {
    return this.current();
  }

  // ---- the one place state changes ----

  /** Applies `event` by the session table now and adopts the result; a refusal changes nothing. */
  private commit(event: CheckoutEvent): CheckoutApplied {
    const applied = applyCheckout(this.current(), event, nowIso());
    if (applied.ok) this.session = applied.session;
    return applied;
  }

  /** Runs a taken row's effects (lock held): the write with its event, the settlement of `payment` as a duplicate. */
  private async perform(taken: Taken, payment?: string): Promise<void> {
    await this.write(taken);
    if (payment && taken.effects.some((e) => e.do === 'settle_duplicate'))
      await records.settleDuplicateCheckoutPayment({ session: taken.session, payment });
  }

  /** The row's write with its event (every row writes). */
  private async write(taken: Taken): Promise<void> {
    await records.recordCheckoutSession({ session: taken.session, emit: emittedEvent(taken.effects) });
  }

  private current(): CheckoutSessionSnapshot {
    if (!this.session) throw new Error('the checkout session is not loaded yet');
    return this.session;
  }
}
