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
import { payoutDecidedOutcome, RAIL_DOWN_RECHECK_MS, type PayoutOutcome } from './payout-health';
import type { PayoutFailureCode, PayoutSendOutcome, PayoutStatusOutcome } from './payout-rail';
import type { OutcomeSide, ProviderStatus } from './provider-health';
import {
  ANOTHER_ROW,
  chooseRow,
  tableMarkdown,
  type TableRefusal,
  type TableRow,
  describeCommonEffect,
} from './table-engine';

/**
 * When the send a rail's answer answers was made (ISO 8601 UTC): the start of the payout's seconds to final
 * (docs/availability.md#payouts); absent for an answer to a status call.
 */
interface Requested {
  requestedAt?: string;
}

/** Everything that can happen to a stored payout: the columns of the table. */
export type PayoutEvent =
  /**
   * The status its rail shows before a send (docs/payouts.md#rail-down), an operator's override winning; `reason`: the
   * payout's `pending_reason` while the rail is `down`.
   */
  | { type: 'rail_status'; status: ProviderStatus; reason: string }
  /** The rail certainly did not get the payout (it is down, or none exists): it stays pending with this reason. */
  | { type: 'rail_down'; reason: string }
  /** The rail took the payout and is paying it (`providerReference`: its transfer). */
  | ({ type: 'provider_accepted'; providerReference: string } & Requested)
  /** The rail's answer is unknown (a time-out): it may have the payout; asked about, never sent again. */
  | ({ type: 'provider_unknown'; providerReference: string } & Requested)
  /** The rail paid the payout. */
  | ({ type: 'provider_paid'; providerReference: string } & Requested)
  /**
   * The rail definitely refused the payout; `reasonSide`: whose the provider's own reason is, when the rail named one
   * (src/providers/failure-sides.ts).
   */
  | ({
      type: 'provider_failed';
      providerReference: string;
      failureCode: PayoutFailureCode;
      message: string;
      reasonSide?: OutcomeSide;
    } & Requested)
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
  'rail_status',
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
  /** Send the payout to its rail (again, under the same reference). */
  | { do: 'ask_provider'; call: 'send' }
  /** Send nothing: ask the rail's status again later (docs/payouts.md#rail-down). */
  | { do: 'wait_for_rail' }
  /** Record the payout's decided outcome for its rail's health with the step's write (docs/availability.md#payouts). */
  | { do: 'record_outcome' };

/** Why a payout event was refused. */
export type PayoutRefusal = TableRefusal<'payout_not_cancellable' | 'not_applicable'>;

type Of<T extends PayoutEventType> = Extract<PayoutEvent, { type: T }>;

/** One row of the payout table; `next` gives the payout after it (status and `updatedAt` set by `applyPayout`). */
export type PayoutRow<T extends PayoutEventType = PayoutEventType> = TableRow<
  PayoutStatus,
  PayoutEvent,
  PayoutSnapshot,
  PayoutRefusal,
  PayoutEffect,
  T
>;

const write: PayoutEffect = { do: 'write' };

function row<T extends PayoutEventType>(r: PayoutRow<T>): PayoutRow {
  return r as unknown as PayoutRow;
}

/** The effects of a payout that ends giving amount and fee back (or, for `paid`, taking them for good). */
function ended(step: PayoutPostedStep, event?: PayoutEmittedEvent): PayoutEffect[] {
  return [write, ...(event ? [{ do: 'emit' as const, event }] : []), { do: 'post', cause: `payout:{id}:${step}` }];
}

const withReference = (p: PayoutSnapshot, e: { providerReference: string } & Requested): PayoutSnapshot => ({
  ...p,
  providerReference: e.providerReference || p.providerReference,
  firstRequestAt: p.firstRequestAt ?? e.requestedAt ?? null,
});

const inTransit = (p: PayoutSnapshot, e: { providerReference: string } & Requested, at: string): PayoutSnapshot => ({
  ...withReference(p, e),
  pendingReason: null,
  inTransitAt: p.inTransitAt ?? at,
});

function paidRow(from: PayoutStatus): PayoutRow {
  return row({
    from,
    event: 'provider_paid',
    to: 'paid',
    effects: [...ended('paid', 'payout.paid'), { do: 'verify_destination' }, { do: 'record_outcome' }],
    next: (p, e, at) => ({ ...inTransit(p, e, at), paidAt: at }),
  });
}

function failedRow(from: PayoutStatus): PayoutRow {
  return row({
    from,
    event: 'provider_failed',
    to: 'failed',
    effects: [...ended('failed', 'payout.failed'), { do: 'record_outcome' }],
    next: (p, e, at) => ({
      ...withReference(p, e),
      pendingReason: null,
      failureCode: e.failureCode,
      failureMessage: e.message,
      failedAt: at,
    }),
  });
}

const railShowsDown = (e: Of<'rail_status'>) => e.status === 'down';

/** The payout table (docs/payouts.md#states): the first row of (status, event) whose condition holds is taken. */
export const PAYOUT_TABLE: readonly PayoutRow[] = [
  row({
    from: 'pending',
    event: 'rail_status',
    when: {
      text: 'the rail shows `down`, a reason the payout does not record yet',
      test: (p, e) => (railShowsDown(e) && p.pendingReason !== e.reason ? undefined : ANOTHER_ROW),
    },
    to: 'pending',
    effects: [write, { do: 'wait_for_rail' }],
    next: (p, e) => ({ ...p, pendingReason: e.reason }),
  }),
  row({
    from: 'pending',
    event: 'rail_status',
    when: { text: 'the rail shows `down`', test: (_p, e) => (railShowsDown(e) ? undefined : ANOTHER_ROW) },
    to: 'pending',
    effects: [{ do: 'wait_for_rail' }],
    next: (p) => p,
  }),
  row({
    from: 'pending',
    event: 'rail_status',
    when: {
      text: 'the rail is `operational` or `degraded`',
      test: (_p, e) => (railShowsDown(e) ? ANOTHER_ROW : undefined),
    },
    to: 'pending',
    effects: [{ do: 'ask_provider', call: 'send' }],
    next: (p) => p,
  }),
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
  | {
      ok: true;
      payout: PayoutSnapshot;
      from: PayoutStatus;
      effects: PayoutEffect[];
      row: PayoutRow;
      event: PayoutEvent;
    }
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
  return { ok: true, payout: next, from: payout.status, effects, row: r, event };
}

/** What a send or a status call answered, as the rail put it. */
export interface RailAnswer {
  outcome: PayoutSendOutcome | PayoutStatusOutcome;
  providerReference: string;
  failureCode?: PayoutFailureCode;
  failureMessage?: string;
  /** Whose the provider's own reason for a refusal is, when the rail named one (src/providers/failure-sides.ts). */
  reasonSide?: OutcomeSide;
}

/**
 * The events of a rail's answer about a payout in `status`, in order: a return of a payout not yet recorded paid is
 * its payment, then its return (docs/payouts.md#states).
 */
export function railAnswerEvents(status: PayoutStatus, answer: RailAnswer, requestedAt?: string): PayoutEvent[] {
  const { providerReference } = answer;
  const requested = requestedAt ? { requestedAt } : {};
  switch (answer.outcome) {
    case 'paid':
      return [{ type: 'provider_paid', providerReference, ...requested }];
    case 'refused':
      return [
        {
          type: 'provider_failed',
          providerReference,
          failureCode: answer.failureCode ?? 'declined',
          message: answer.failureMessage ?? 'the provider refused the payout',
          ...(answer.reasonSide ? { reasonSide: answer.reasonSide } : {}),
          ...requested,
        },
      ];
    case 'returned': {
      const returned: PayoutEvent = { type: 'provider_returned', providerReference };
      return status === 'paid' ? [returned] : [{ type: 'provider_paid', providerReference, ...requested }, returned];
    }
    case 'in_transit':
      return [{ type: 'provider_accepted', providerReference, ...requested }];
    case 'unknown':
      return [{ type: 'provider_unknown', providerReference, ...requested }];
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
  /** The decided outcome for the rail's health (docs/availability.md#payouts); null when the row records none. */
  outcome: PayoutOutcome | null;
}

/** The write orders of an applied row. */
export function payoutWriteOrders(applied: Extract<PayoutApplied, { ok: true }>): PayoutWriteOrders {
  const emitted = applied.effects.find((e) => e.do === 'emit');
  return {
    from: applied.from,
    emit: emitted?.do === 'emit' ? emitted.event : null,
    post: applied.effects.flatMap((e) => (e.do === 'post' ? [e.cause] : [])),
    verifyDestination: applied.effects.some((e) => e.do === 'verify_destination'),
    outcome: applied.effects.some((e) => e.do === 'record_outcome')
      ? (payoutDecidedOutcome(
          applied.payout,
          applied.payout.updatedAt,
          applied.event.type === 'provider_failed' ? applied.event.reasonSide : undefined,
        ) ?? null)
      : null,
  };
}

function describePayoutEffect(effect: PayoutEffect): string {
  switch (effect.do) {
    case 'write':
    case 'emit':
    case 'post':
      return describeCommonEffect(effect);
    case 'verify_destination':
      return 'verify the destination';
    case 'ask_provider':
      return 'ask provider: send';
    case 'wait_for_rail':
      return `wait for the rail (its status asked again in ${RAIL_DOWN_RECHECK_MS / 1000} s)`;
    case 'record_outcome':
      return "record the rail's outcome";
  }
}

/** The payout table as Markdown, as docs/payouts.md#states shows it (a test keeps the two equal). */
export function payoutTableMarkdown(): string {
  return tableMarkdown(PAYOUT_TABLE, describePayoutEffect, 'nothing');
}
