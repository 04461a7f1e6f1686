/**
 * A checkout session's life as one declared table (docs/checkout.md#states), run by the engine of
 * ./table-engine.ts: each row is (status, event, condition) → (status, effects). {@link applyCheckout} is the only
 * code that computes a session's next state; a (status, event) pair that is not a row, or whose condition fails, is
 * refused with its reason and changes nothing. The rows decide: one attempt at a time (a new one only once the
 * previous is final), at most {@link MAX_CHECKOUT_ATTEMPTS} attempts, at most one attempt completes the session, a
 * late success of another attempt after one completed is a duplicate (refunded at once with reason `duplicate`,
 * or the reconciliation exception `duplicate_checkout_payment` where its provider does not refund), and an attempt
 * open at the session's expiry keeps its own expiry: the session expires once it fails, or completes if it succeeds.
 * The session's workflow carries the effects out. Pure: safe inside the workflow sandbox.
 */
import type { Environment } from './environment';
import type { Currency } from './money';
import type { AmountRange, CollectField } from './payment-link';
import {
  ANOTHER_ROW,
  chooseRow,
  tableMarkdown,
  describeCommonEffect,
  type TableRefusal,
  type TableRow,
} from './table-engine';

/** A session's status (docs/checkout.md#states). */
export type CheckoutStatus = 'open' | 'complete' | 'expired';

/** Every session status, in the docs' order. */
export const CHECKOUT_STATUSES: readonly CheckoutStatus[] = ['open', 'complete', 'expired'];

/** At most this many attempts (payments) a session. */
export const MAX_CHECKOUT_ATTEMPTS = 10;

/** One attempt of a session: a payment whose `checkout_session` names it, and its outcome as the session knows it. */
export interface CheckoutAttempt {
  payment: string;
  /** `pending` until the payment's workflow tells its final outcome. */
  status: 'pending' | 'succeeded' | 'failed';
  /** The amount the payer chose, in minor units (a link's customer-chosen amount); absent when the session fixes it. */
  amount?: number;
}

/** A session as its workflow holds it and its one writer stores it; amounts in minor units, times ISO 8601 UTC. */
export interface CheckoutSessionSnapshot {
  id: string;
  merchantId: string;
  environment: Environment;
  /** Minor units; null while a link's customer-chosen amount has not been chosen by an attempt. */
  amount: number | null;
  currency: Currency;
  description: string;
  customerPhone: string | null;
  /** Null for a link's session that shows `completionMessage` after a payment instead (docs/payment-links.md). */
  successUrl: string | null;
  cancelUrl: string | null;
  /** The payment link the session was opened from; null for a session the merchant created. */
  paymentLink: string | null;
  /** The range an attempt's amount must fall in, when the link lets the customer choose; null otherwise. */
  amountRange: AmountRange | null;
  /** The fields each attempt collects from the payer (docs/payment-links.md#collect). */
  collect: CollectField[];
  /** What the page says after a payment when there is no `successUrl`; null for the page's own thanks. */
  completionMessage: string | null;
  locale: 'en' | 'fr' | 'sw' | 'rw';
  metadata: Record<string, string>;
  status: CheckoutStatus;
  /** The payment that completed the session; null before. */
  payment: string | null;
  attempts: CheckoutAttempt[];
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  expiredAt: string | null;
}

/** Everything that can happen to a session: the columns of the table. */
export type CheckoutEvent =
  /**
   * A payer starts an attempt: the payment `payment` is about to be created for the session, of `amount` minor units
   * when the payer chose it (the session's `amount` becomes it).
   */
  | { type: 'attempt_started'; payment: string; amount?: number }
  /**
   * The payment's workflow says the attempt's payment completed (at once, or as a late success:
   * docs/payments.md#late-successes).
   */
  | { type: 'attempt_completed'; payment: string }
  /** The payment's workflow says the attempt's payment ended without money (failed, expired, cancelled). */
  | { type: 'attempt_failed'; payment: string }
  /** The merchant's expire, or the session's clock at `expires_at`. */
  | { type: 'expire'; by: 'merchant' | 'clock' };

/** The name of a session event. */
export type CheckoutEventType = CheckoutEvent['type'];

/** Every session event, in the table's order. */
export const CHECKOUT_EVENT_TYPES: readonly CheckoutEventType[] = [
  'attempt_started',
  'attempt_completed',
  'attempt_failed',
  'expire',
];

/** The events a session's rows write (docs/checkout.md#api). */
export type CheckoutEmittedEvent = 'checkout.session.completed' | 'checkout.session.expired';

/** What the session's workflow must do after a row. */
export type CheckoutEffect =
  /** Write the session's new state, asserting it is still in the row's `from` status. */
  | { do: 'write' }
  /** Write this event with the step's write. */
  | { do: 'emit'; event: CheckoutEmittedEvent }
  /** Start the attempt's payment (its workflow), once the write admitted it. */
  | { do: 'start_attempt' }
  /**
   * The event's payment collected after another completed the session: refund it at once in full with reason
   * {@link DUPLICATE_REFUND_REASON} where its provider refunds; where it does not (the payment table refuses the
   * refund, or the provider refuses it), record the reconciliation exception `duplicate_checkout_payment`. Either way
   * both payments stay booked `completed`.
   */
  | { do: 'settle_duplicate' };

/** The reason of a duplicate's automatic refund, as Stripe names it. */
export const DUPLICATE_REFUND_REASON = 'duplicate';

/** Why a session event was refused; the codes are API errors (409) where a merchant's or payer's request is refused. */
export type CheckoutRefusal = TableRefusal<
  | 'checkout_session_not_open'
  | 'checkout_session_attempt_in_progress'
  | 'checkout_session_attempts_exhausted'
  | 'not_applicable'
>;

/** One row of the session table; `next` gives the session after it (status and `updatedAt` set by `applyCheckout`). */
export type CheckoutRow<T extends CheckoutEventType = CheckoutEventType> = TableRow<
  CheckoutStatus,
  CheckoutEvent,
  CheckoutSessionSnapshot,
  CheckoutRefusal,
  CheckoutEffect,
  T
>;

const write: CheckoutEffect = { do: 'write' };

function row<T extends CheckoutEventType>(r: CheckoutRow<T>): CheckoutRow {
  return r as unknown as CheckoutRow;
}

/** The attempt still waiting for its payment's final outcome, if any. */
export function attemptInFlight(session: CheckoutSessionSnapshot): CheckoutAttempt | undefined {
  return session.attempts.find((a) => a.status === 'pending');
}

const inProgress: CheckoutRefusal = {
  code: 'checkout_session_attempt_in_progress',
  message: 'an attempt of this checkout session is still in progress; wait for its outcome',
};

/** The session with the attempt of `payment` marked `status`. */
function marked(
  s: CheckoutSessionSnapshot,
  payment: string,
  status: CheckoutAttempt['status'],
): CheckoutSessionSnapshot {
  return { ...s, attempts: s.attempts.map((a) => (a.payment === payment ? { ...a, status } : a)) };
}

/** The condition of an outcome: it names an attempt of the session that is not already marked so. */
function outcomeOf(status: CheckoutAttempt['status'], text: string) {
  return {
    text,
    test: (s: CheckoutSessionSnapshot, e: { payment: string }): CheckoutRefusal | undefined => {
      const attempt = s.attempts.find((a) => a.payment === e.payment);
      if (!attempt) return { code: 'not_applicable', message: `${e.payment} is not an attempt of ${s.id}` };
      if (attempt.status === status) return { code: 'not_applicable', message: 'the session already knows this' };
      return undefined;
    },
  };
}

/** The session completed by the attempt of `e.payment`: its amount is the one that attempt paid. */
const completes = (s: CheckoutSessionSnapshot, e: { payment: string }, at: string): CheckoutSessionSnapshot => ({
  ...marked(s, e.payment, 'succeeded'),
  amount: s.attempts.find((a) => a.payment === e.payment)?.amount ?? s.amount,
  payment: e.payment,
  completedAt: at,
});

const completedRow = (from: CheckoutStatus, text: string) =>
  row({
    from,
    event: 'attempt_completed',
    when: outcomeOf('succeeded', text),
    to: 'complete',
    effects: [write, { do: 'emit', event: 'checkout.session.completed' }],
    next: completes,
  });

/** The session table (docs/checkout.md#states): the first row of (status, event) whose condition holds is taken. */
export const CHECKOUT_TABLE: readonly CheckoutRow[] = [
  row({
    from: 'open',
    event: 'attempt_started',
    when: {
      text: `no attempt in flight, fewer than ${MAX_CHECKOUT_ATTEMPTS} attempts, before \`expires_at\``,
      test: (s, e, at) => {
        if (attemptInFlight(s)) return inProgress;
        if (s.attempts.some((a) => a.payment === e.payment))
          return { code: 'not_applicable', message: 'this attempt was started already' };
        if (s.attempts.length >= MAX_CHECKOUT_ATTEMPTS)
          return {
            code: 'checkout_session_attempts_exhausted',
            message: `this checkout session had its ${MAX_CHECKOUT_ATTEMPTS} attempts`,
          };
        if (Date.parse(at) >= Date.parse(s.expiresAt))
          return { code: 'checkout_session_not_open', message: 'this checkout session has expired' };
        return undefined;
      },
    },
    to: 'open',
    effects: [write, { do: 'start_attempt' }],
    next: (s, e) =>
      e.amount === undefined
        ? { ...s, attempts: [...s.attempts, { payment: e.payment, status: 'pending' }] }
        : {
            ...s,
            amount: e.amount,
            attempts: [...s.attempts, { payment: e.payment, status: 'pending', amount: e.amount }],
          },
  }),
  completedRow('open', 'an attempt of the session'),
  row({
    from: 'open',
    event: 'attempt_failed',
    when: {
      text: 'an attempt of the session, past `expires_at`',
      test: (s, e, at) =>
        outcomeOf('failed', '').test(s, e) ?? (Date.parse(at) >= Date.parse(s.expiresAt) ? undefined : ANOTHER_ROW),
    },
    to: 'expired',
    effects: [write, { do: 'emit', event: 'checkout.session.expired' }],
    next: (s, e, at) => ({ ...marked(s, e.payment, 'failed'), expiredAt: at }),
  }),
  row({
    from: 'open',
    event: 'attempt_failed',
    when: outcomeOf('failed', 'an attempt of the session'),
    to: 'open',
    effects: [write],
    next: (s, e) => marked(s, e.payment, 'failed'),
  }),
  row({
    from: 'open',
    event: 'expire',
    when: { text: 'no attempt in flight', test: (s) => (attemptInFlight(s) ? inProgress : undefined) },
    to: 'expired',
    effects: [write, { do: 'emit', event: 'checkout.session.expired' }],
    next: (s, _e, at) => ({ ...s, expiredAt: at }),
  }),
  row({
    from: 'complete',
    event: 'attempt_completed',
    when: outcomeOf('succeeded', 'another attempt (a late success, a duplicate)'),
    to: 'complete',
    effects: [write, { do: 'settle_duplicate' }],
    next: (s, e) => marked(s, e.payment, 'succeeded'),
  }),
  row({
    from: 'complete',
    event: 'attempt_failed',
    when: outcomeOf('failed', 'an attempt of the session'),
    to: 'complete',
    effects: [write],
    next: (s, e) => marked(s, e.payment, 'failed'),
  }),
  completedRow('expired', 'an attempt of the session (a late success)'),
];

/** The result of {@link applyCheckout}: the session after the row and its effects, or the refusal. */
export type CheckoutApplied =
  | { ok: true; session: CheckoutSessionSnapshot; from: CheckoutStatus; effects: readonly CheckoutEffect[] }
  | { ok: false; refusal: CheckoutRefusal };

function noCheckoutRow(status: CheckoutStatus, event: CheckoutEvent): CheckoutRefusal {
  if (event.type === 'attempt_started' || event.type === 'expire')
    return { code: 'checkout_session_not_open', message: `this checkout session is ${status}` };
  return { code: 'not_applicable', message: `a ${status} checkout session takes no ${event.type}` };
}

/**
 * Applies `event` at `at` (ISO 8601 UTC) to `session` by {@link CHECKOUT_TABLE}: a row gives the session its new
 * status and `updatedAt: at`.
 * @returns the session after the row, the status it left and the row's effects; or the refusal (409 codes
 *   `checkout_session_not_open`, `checkout_session_attempt_in_progress`, `checkout_session_attempts_exhausted` for a
 *   request; `not_applicable` for an outcome the session knows already), which changes nothing
 */
export function applyCheckout(session: CheckoutSessionSnapshot, event: CheckoutEvent, at: string): CheckoutApplied {
  const chosen = chooseRow(CHECKOUT_TABLE, session.status, session, event, at, noCheckoutRow);
  if (!chosen.ok) return chosen;
  const r = chosen.row;
  const next = { ...r.next(session, event as never, at), status: r.to, updatedAt: at };
  return { ok: true, session: next, from: session.status, effects: r.effects };
}

/** The event a row emits, if any. */
export function emittedEvent(effects: readonly CheckoutEffect[]): CheckoutEmittedEvent | null {
  const emitted = effects.find((e) => e.do === 'emit');
  return emitted?.do === 'emit' ? emitted.event : null;
}

function describeCheckoutEffect(effect: CheckoutEffect): string {
  switch (effect.do) {
    case 'write':
    case 'emit':
      return describeCommonEffect(effect);
    case 'start_attempt':
      return "start the attempt's payment";
    case 'settle_duplicate':
      return 'refund it (`reason: duplicate`), or where its provider does not refund, reconciliation exception `duplicate_checkout_payment`';
  }
}

/** The session table as Markdown, as docs/checkout.md#states shows it (a test keeps the two equal). */
export function checkoutTableMarkdown(): string {
  return tableMarkdown(CHECKOUT_TABLE, describeCheckoutEffect, 'nothing');
}
