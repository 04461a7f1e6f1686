/**
 * A payout's life as one declared table (docs/payouts.md#states), run by the engine of
 * ./table-engine.ts: each row is (status, event, condition) → (status, effects). {@link applyPayout} is the only code
 * that computes a payout's next state; a (status, event) pair that is not a row is refused with its reason and changes
 * nothing (a provider's answer after `paid`, a cancel once `in_transit`, the same answer twice). The payout's workflow
 * (src/workflows/payout-run.ts) carries the effects out: write the row, emit the event, post the ledger journal by
 * its cause, ask the rail. The transitions of docs/payouts.md#states are generated from {@link PAYOUT_TABLE}
 * ({@link payoutTableMarkdown}). Pure: safe inside the workflow sandbox.
 */
import { notCancellablePayoutMessage, type PayoutSnapshot, type PayoutStatus } from './payout';
import type { PayoutFailureCode, PayoutSendOutcome, PayoutStatusOutcome } from './payout-rail';
import { chooseRow, tableMarkdown, type TableRefusal, describeCommonEffect } from './table-engine';

/** Everything that can happen to a stored payout: the columns of the table. */
export type PayoutEvent =
  /** The rail certainly did not get the payout (it is down, or none exists): it stays pending with this reason. */
  | { type: 'rail_down'; reason: string }
  /** The rail took the payout and is paying it (`providerReference`: its transfer). */
  | { type: 'provider_accepted'; providerReference: string }
  /** The rail's answer is unknown (a time-out): it may have the payout; asked about, never sent again. */
  | { type: 'provider_unknown'; providerReference: string }
  /** The rail paid the payout. */
  | { type: 'provider_paid'; providerReference: string }
  /** The rail definitely refused the payout. */
  | { type: 'provider_failed'; providerReference: string; failureCode: PayoutFailureCode; message: string }
  /** The rail reversed a paid payout. */
  | { type: 'provider_returned'; providerReference: string }
  /** The rail has no such transfer: it never got the payout, which is sent again under the same reference. */
  | { type: 'provider_not_received' }
  /** The merchant's cancel (docs/payouts.md#cancel). */
  | { type: 'cancel' };

/** The name of a payout event. */
export type PayoutEventType = PayoutEvent['type'];

/** Every payout event, in the table's order. */
export const PAYOUT_EVENT_TYPES: readonly PayoutEventType[] = [
  'rail_down',
  'provider_accepted',
  'provider_unknown',
  'provider_paid',
  'provider_failed',
  'provider_returned',
  'provider_not_received',
  'cancel',
];

/** The events a payout's rows write (docs/payouts.md#events); `payout.created` is written with the payout itself. */
export type PayoutEmittedEvent = 'payout.paid' | 'payout.failed' | 'payout.returned';

/** The ledger steps a payout's rows post (docs/ledger.md#postings); the reservation is posted with the payout. */
export type PayoutPostedStep = 'paid' | 'failed' | 'cancelled' | 'returned';

/** What the payout's workflow must do after a row. */
export type PayoutEffect =
  /** Write the payout's new state, asserting it is still in the row's `from` status. */
  | { do: 'write' }
  /** Write this event with the step's write. */
  | { do: 'emit'; event: PayoutEmittedEvent }
  /** Post the journal of this cause with the step's write; `{id}` is the payout's id, filled in by `applyPayout`. */
  | { do: 'post'; cause: `payout:{id}:${PayoutPostedStep}` | `payout:${string}:${PayoutPostedStep}` }
  /** Mark the destination verified with the step's write: a payout reached it (docs/payouts.md#destinations). */
  | { do: 'verify_destination' }
  /** Send the payout to its rail again under the same reference. */
  | { do: 'ask_provider'; call: 'send' };

/** Why a payout event was refused. */
export type PayoutRefusal = TableRefusal<'payout_not_cancellable' | 'not_applicable'>;

type Of<T extends PayoutEventType> = Extract<PayoutEvent, { type: T }>;

/** One row of the payout table; `next` gives the payout after it (status and `updatedAt` set by `applyPayout`). */
export interface PayoutRow<T extends PayoutEventType = PayoutEventType> {
  from: PayoutStatus;
  event: T;
  /** The condition in words (docs), and its test: a refusal, or undefined to take the row. */
  when?: { text: string; test: (payout: PayoutSnapshot, event: Of<T>, at: string) => PayoutRefusal | undefined };
  to: PayoutStatus;
  effects: readonly PayoutEffect[];
  next: (payout: PayoutSnapshot, event: Of<T>, at: string) => PayoutSnapshot;
}

const write: PayoutEffect = { do: 'write' };

function row<T extends PayoutEventType>(r: PayoutRow<T>): PayoutRow {
  return r as unknown as PayoutRow;
}

/** The effects of a payout that ends giving amount and fee back (or, for `paid`, taking them for good). */
function ended(step: PayoutPostedStep, event?: PayoutEmittedEvent): PayoutEffect[] {
  return [write, ...(event ? [{ do: 'emit' as const, event }] : []), { do: 'post', cause: `payout:{id}:${step}` }];
}

const withReference = (p: PayoutSnapshot, e: { providerReference: string }): PayoutSnapshot => ({
  ...p,
  providerReference: e.providerReference || p.providerReference,
});

const inTransit = (p: PayoutSnapshot, e: { providerReference: string }, at: string): PayoutSnapshot => ({
  ...withReference(p, e),
  pendingReason: null,
  inTransitAt: p.inTransitAt ?? at,
});

function paidRow(from: PayoutStatus): PayoutRow {
  return row({
    from,
    event: 'provider_paid',
    to: 'paid',
    effects: [...ended('paid', 'payout.paid'), { do: 'verify_destination' }],
    next: (p, e, at) => ({ ...inTransit(p, e, at), paidAt: at }),
  });
}

function failedRow(from: PayoutStatus): PayoutRow {
  return row({
    from,
    event: 'provider_failed',
    to: 'failed',
    effects: ended('failed', 'payout.failed'),
    next: (p, e, at) => ({
      ...withReference(p, e),
      pendingReason: null,
      failureCode: e.failureCode,
      failureMessage: e.message,
      failedAt: at,
    }),
  });
}

/** The payout table (docs/payouts.md#states): the first row of (status, event) whose condition holds is taken. */
export const PAYOUT_TABLE: readonly PayoutRow[] = [
  row({
    from: 'pending',
    event: 'rail_down',
    when: {
      text: 'the reason is new',
      test: (p, e) =>
        p.pendingReason === e.reason
          ? { code: 'not_applicable', message: 'the payout already records this reason' }
          : undefined,
    },
    to: 'pending',
    effects: [write],
    next: (p, e) => ({ ...p, pendingReason: e.reason }),
  }),
  row({ from: 'pending', event: 'provider_accepted', to: 'in_transit', effects: [write], next: inTransit }),
  row({ from: 'pending', event: 'provider_unknown', to: 'in_transit', effects: [write], next: inTransit }),
  paidRow('pending'),
  failedRow('pending'),
  row({
    from: 'pending',
    event: 'cancel',
    to: 'cancelled',
    effects: ended('cancelled'),
    next: (p, _e, at) => ({ ...p, pendingReason: null, cancelledAt: at }),
  }),
  paidRow('in_transit'),
  failedRow('in_transit'),
  row({
    from: 'in_transit',
    event: 'provider_not_received',
    to: 'in_transit',
    effects: [{ do: 'ask_provider', call: 'send' }],
    next: (p) => p,
  }),
  row({
    from: 'paid',
    event: 'provider_returned',
    to: 'returned',
    effects: ended('returned', 'payout.returned'),
    next: (p, e, at) => ({ ...withReference(p, e), returnedAt: at }),
  }),
];

/** The result of {@link applyPayout}: the payout after the row and its effects (causes filled in), or the refusal. */
export type PayoutApplied =
  | { ok: true; payout: PayoutSnapshot; from: PayoutStatus; effects: PayoutEffect[]; row: PayoutRow }
  | { ok: false; refusal: PayoutRefusal };

function noPayoutRow(status: PayoutStatus, event: PayoutEvent): PayoutRefusal {
  if (event.type === 'cancel') return { code: 'payout_not_cancellable', message: notCancellablePayoutMessage(status) };
  return { code: 'not_applicable', message: `a ${status} payout takes no ${event.type}` };
}

/**
 * Applies `event` at `at` (ISO 8601 UTC) to `payout` by {@link PAYOUT_TABLE}: a row that writes gives the payout its
 * new status and `updatedAt: at`.
 * @returns the payout after the row, the status it left and the row's effects; or the refusal (the condition's, or
 *   `payout_not_cancellable` for a cancel outside `pending`, `not_applicable` otherwise), which changes nothing
 */
export function applyPayout(payout: PayoutSnapshot, event: PayoutEvent, at: string): PayoutApplied {
  const chosen = chooseRow(PAYOUT_TABLE, payout.status, payout, event, at, noPayoutRow);
  if (!chosen.ok) return chosen;
  const r = chosen.row;
  const after = r.next(payout, event as never, at);
  const writes = r.effects.some((e) => e.do === 'write');
  const next = writes ? { ...after, status: r.to, updatedAt: at } : after;
  const effects = r.effects.map((e) =>
    e.do === 'post' ? { do: 'post' as const, cause: e.cause.replace('{id}', payout.id) as typeof e.cause } : e,
  );
  return { ok: true, payout: next, from: payout.status, effects, row: r };
}

/** What a send or a status call answered, as the rail put it. */
export interface RailAnswer {
  outcome: PayoutSendOutcome | PayoutStatusOutcome;
  providerReference: string;
  failureCode?: PayoutFailureCode;
  failureMessage?: string;
}

/**
 * The events of a rail's answer about a payout in `status`, in order: a return of a payout not yet recorded paid is
 * its payment, then its return (docs/payouts.md#states).
 */
export function railAnswerEvents(status: PayoutStatus, answer: RailAnswer): PayoutEvent[] {
  const { providerReference } = answer;
  switch (answer.outcome) {
    case 'paid':
      return [{ type: 'provider_paid', providerReference }];
    case 'refused':
      return [
        {
          type: 'provider_failed',
          providerReference,
          failureCode: answer.failureCode ?? 'declined',
          message: answer.failureMessage ?? 'the provider refused the payout',
        },
      ];
    case 'returned': {
      const returned: PayoutEvent = { type: 'provider_returned', providerReference };
      return status === 'paid' ? [returned] : [{ type: 'provider_paid', providerReference }, returned];
    }
    case 'in_transit':
      return [{ type: 'provider_accepted', providerReference }];
    case 'unknown':
      return [{ type: 'provider_unknown', providerReference }];
    case 'not_received':
      return [{ type: 'provider_not_received' }];
  }
}

/** The ledger step of a payout journal's cause `payout:{id}:{step}` that a row posts. */
export function postedStepOf(cause: string): PayoutPostedStep {
  const step = cause.slice(cause.lastIndexOf(':') + 1);
  if (step === 'paid' || step === 'failed' || step === 'cancelled' || step === 'returned') return step;
  throw new Error(`${cause} is not a cause the payout table posts`);
}

/** What the write activity carries out from a row's effects (docs/payouts.md#money). */
export interface PayoutWriteOrders {
  /** The status the payout must still be in: the write asserts the table's row. */
  from: PayoutStatus;
  emit: PayoutEmittedEvent | null;
  post: string[];
  verifyDestination: boolean;
}

/** The write orders of an applied row. */
export function payoutWriteOrders(applied: Extract<PayoutApplied, { ok: true }>): PayoutWriteOrders {
  const emitted = applied.effects.find((e) => e.do === 'emit');
  return {
    from: applied.from,
    emit: emitted?.do === 'emit' ? emitted.event : null,
    post: applied.effects.flatMap((e) => (e.do === 'post' ? [e.cause] : [])),
    verifyDestination: applied.effects.some((e) => e.do === 'verify_destination'),
  };
}

function describePayoutEffect(effect: PayoutEffect): string {
  switch (effect.do) {
    case 'write':
      return 'write';
    case 'emit':
    case 'post':
      return describeCommonEffect(effect);
    case 'verify_destination':
      return 'verify the destination';
    case 'ask_provider':
      return 'ask provider: send again';
  }
}

/** The payout table as Markdown, as docs/payouts.md#states shows it (a test keeps the two equal). */
export function payoutTableMarkdown(): string {
  return tableMarkdown(PAYOUT_TABLE, describePayoutEffect, 'nothing');
}
