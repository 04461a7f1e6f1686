/**
 * The messages of `checkoutWorkflow` (docs/checkout.md#states) and the activities it calls, shared by the API's
 * service, the worker's activities, the payment's workflow (which tells a session its attempt's outcome) and the
 * session's workflow.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { CheckoutEmittedEvent, CheckoutSessionSnapshot } from '../domain/checkout-table';
import type { PaymentSnapshot } from '../domain/payment';
import type { ProviderCode } from '../domain/catalogue';

/** The id of a session's workflow: one per session. */
export function checkoutWorkflowId(sessionId: string): string {
  return `checkout:${sessionId}`;
}

/** The workflow's input: the session to store first (a create), or the id of one stored already. */
export interface CheckoutWorkflowInput {
  sessionId: string;
  /** A create's session (`open`, no attempts), stored by the first step once per id. */
  create?: CheckoutSessionSnapshot;
}

/** The create's wait: answers the session once its first step stored it. */
export const createCheckoutSessionUpdate = defineUpdate<CheckoutSessionSnapshot, []>('createCheckoutSession');

/** Update id of the create's wait. */
export const CREATE_CHECKOUT_UPDATE_ID = 'create';

/**
 * A payer's attempt, already checked by the API (docs/checkout.md): the payment id the API drew, the method (absent in
 * attempts started before cards: mobile money), the provider and, for mobile money, the number in E.164.
 */
export interface CheckoutAttemptRequest {
  paymentId: string;
  paymentMethod?: 'mobile_money' | 'card';
  provider: ProviderCode;
  customerPhone?: string;
  /** The amount the payer chose, in minor units, on a link's session with a customer-chosen amount. */
  amount?: number;
  /** The fields the session's link collects, as the payer gave them (docs/payment-links.md#collect). */
  collected?: { name?: string; email?: string };
}

/**
 * Starts an attempt (its payment). Fails `checkout_session_not_open`, `checkout_session_attempt_in_progress` or
 * `checkout_session_attempts_exhausted` when the session's table refuses it: then no payment exists and nobody is
 * prompted.
 */
export const startCheckoutAttemptUpdate = defineUpdate<PaymentSnapshot, [CheckoutAttemptRequest]>(
  'startCheckoutAttempt',
);

/**
 * The merchant's expire. Fails `checkout_session_not_open` (complete or expired) or
 * `checkout_session_attempt_in_progress` (an attempt in flight).
 */
export const expireCheckoutSessionUpdate = defineUpdate<CheckoutSessionSnapshot, []>('expireCheckoutSession');

/** An attempt's payment ended (or a failed one collected after all): the session's run decides what it means. */
export interface CheckoutAttemptOutcome {
  payment: string;
  outcome: 'completed' | 'failed';
}

/** Sent by the payment's workflow, through an activity's Signal-with-Start, when its payment's outcome is final. */
export const checkoutAttemptOutcomeSignal = defineSignal<[CheckoutAttemptOutcome]>('checkoutAttemptOutcome');

/** The workflow's current view of the session. */
export const getCheckoutSessionQuery = defineQuery<CheckoutSessionSnapshot | undefined>('getCheckoutSession');

/** A row of the session table to record: the session as the row left it, the status it left and its event. */
export interface CheckoutRecordInput {
  session: CheckoutSessionSnapshot;
  emit: CheckoutEmittedEvent | null;
}

/** The activities the session's workflow (and, for `tellCheckoutSession`, the payment's) calls. */
export interface CheckoutActivities {
  /** Stores a create's session once per id (a stored one is answered as stored). */
  storeCheckoutSession(session: CheckoutSessionSnapshot): Promise<CheckoutSessionSnapshot>;
  /** The stored session. @throws Error when it is not stored */
  loadCheckoutSession(sessionId: string): Promise<CheckoutSessionSnapshot>;
  /** Writes the session as a row left it, with the row's event (written once, its deliveries started). */
  recordCheckoutSession(input: CheckoutRecordInput): Promise<void>;
  /**
   * Creates the attempt's payment through the payment create path (its own workflow, `checkout_session` naming the
   * session), under the id the API drew: a retry meets the same payment.
   * @returns the payment as its create answered (`pending` with its `next_action`, or `failed`)
   */
  startCheckoutPayment(input: {
    session: CheckoutSessionSnapshot;
    attempt: CheckoutAttemptRequest;
  }): Promise<PaymentSnapshot>;
  /**
   * Settles the late success of `payment` after another attempt completed `session`: its refund in full (reason
   * `duplicate`), or where the provider takes none or refuses it at once the reconciliation exception
   * `duplicate_checkout_payment`, once per payment. A refund the provider took and decides later is left to the
   * payment's workflow, whose record of a refusal writes the same exception (docs/checkout.md#states).
   * @throws Error when the payment is not stored or the refund could not be asked for (retried)
   */
  settleDuplicateCheckoutPayment(input: { session: CheckoutSessionSnapshot; payment: string }): Promise<void>;
  /** Tells the session's workflow (started again when it ended) an attempt's final outcome. */
  tellCheckoutSession(input: { sessionId: string } & CheckoutAttemptOutcome): Promise<void>;
}
