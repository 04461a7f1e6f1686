/**
 * A refund's life as one declared table (docs/payments.md#refund-states): each row is (status, event) → (status,
 * effects). A refund is born `pending` when the payment's table accepts it, and ends `completed` or `failed` by its
 * provider's word, or is released without a trace when it was never sent. The payment's table
 * (src/domain/payment-table.ts) takes the refund events in the payment's status and carries exactly the effects of the
 * row here for the refund, with the payment's own write where the payment changes (its `amount_refunded`); its
 * conditions (the refund window, the refundable rest, a provider that refunds) are the payment's. The refund states
 * section of docs/payments.md is generated from {@link REFUND_TABLE} ({@link refundStateTableMarkdown}). Pure: safe
 * inside the workflow sandbox.
 */
import { refundCause } from './ledger';
import type { RefundRecord } from './refund';
import { describeCommonEffect } from './table-engine';

/** A refund's status. */
export type RefundStatus = RefundRecord['status'];

/** Everything that can happen to a refund: the refund events of the payment's table. */
export type RefundEventType =
  'refund_accepted' | 'refund_completed' | 'refund_refused' | 'refund_unknown' | 'refund_withdrawn';

/**
 * Record a decided attempt of `operation` for operator health with the step's write
 * (docs/availability.md#classification): the payment's collection or its refund, a success or a failure (`reason`: the
 * provider's own, when it named one).
 */
export interface OutcomeEffect {
  do: 'record_outcome';
  operation: 'collection' | 'refund';
  outcome: 'success' | 'failure';
  reason?: string;
}

/** What the workflow must do for the refund after a row (a subset of the payment table's effects). */
export type RefundEffect =
  /** Record the refund's decided attempt with its write. */
  | OutcomeEffect
  /** Write the refund's final outcome, with the payment, in one transaction. */
  | { do: 'write_refund' }
  /** Write this event with the refund's write (docs/payments.md#events). */
  | { do: 'emit'; event: 'refund.completed' | 'refund.failed' }
  /** Post to the ledger under this cause with the refund's write; `{id}`: the refund's id (docs/ledger.md#postings). */
  | { do: 'post'; cause: string }
  /** Send the refund to the provider (idempotency key `refund:{refund id}`), written `pending` first. */
  | { do: 'ask_provider'; call: 'refund' }
  /** Ask the provider about the refund again later (docs/payments.md#cancel-and-refund). */
  | { do: 'ask_provider_later'; call: 'refund_status' };

/**
 * One row of the refund's table: in `from` (null: not made yet), on `event`, go to `to` (null: released without a
 * trace) and do `effects`; `when` says in words what else must hold (decided by the payment's table).
 */
export interface RefundRow {
  from: RefundStatus | null;
  event: RefundEventType;
  when?: string;
  to: RefundStatus | null;
  effects: readonly RefundEffect[];
}

const post = (step: 'reserved' | 'completed' | 'failed'): RefundEffect => ({
  do: 'post',
  cause: refundCause('{id}', step),
});

/** The table (docs/payments.md#refund-states): the only transitions a refund has. */
export const REFUND_TABLE: readonly RefundRow[] = [
  {
    from: null,
    event: 'refund_accepted',
    when: 'the payment is completed, within the refund window, at most the refundable rest, a provider that refunds',
    to: 'pending',
    effects: [{ do: 'ask_provider', call: 'refund' }, post('reserved')],
  },
  {
    from: 'pending',
    event: 'refund_completed',
    to: 'completed',
    effects: [
      { do: 'write_refund' },
      { do: 'emit', event: 'refund.completed' },
      post('completed'),
      { do: 'record_outcome', operation: 'refund', outcome: 'success' },
    ],
  },
  {
    from: 'pending',
    event: 'refund_refused',
    to: 'failed',
    effects: [
      { do: 'write_refund' },
      { do: 'emit', event: 'refund.failed' },
      post('failed'),
      { do: 'record_outcome', operation: 'refund', outcome: 'failure' },
    ],
  },
  {
    from: 'pending',
    event: 'refund_unknown',
    to: 'pending',
    effects: [{ do: 'ask_provider_later', call: 'refund_status' }],
  },
  {
    from: 'pending',
    event: 'refund_withdrawn',
    when: 'never sent (its provider cannot take it, or its data cannot be stored), or decided by an earlier run',
    to: null,
    effects: [],
  },
];

/**
 * The effects of the refund's row for `event` (the payment's table carries exactly these for the refund).
 * @throws Error when the refund's table has no row for `event` (a programming error)
 */
export function refundEffects(event: RefundEventType): readonly RefundEffect[] {
  const row = REFUND_TABLE.find((r) => r.event === event);
  if (!row) throw new Error(`the refund table has no row for ${event}`);
  return row.effects;
}

/** A refund effect in words, as the documentation's tables show it. */
export function describeRefundEffect(effect: RefundEffect): string {
  switch (effect.do) {
    case 'write_refund':
      return 'write refund';
    case 'emit':
    case 'post':
      return describeCommonEffect(effect);
    case 'ask_provider':
      return 'ask provider: refund';
    case 'ask_provider_later':
      return 'ask provider later: refund status';
    case 'record_outcome':
      return `record ${effect.operation} ${effect.outcome}`;
  }
}

/** The table as Markdown, as docs/payments.md#refund-states shows it (a test keeps the two equal). */
export function refundStateTableMarkdown(): string {
  const state = (status: RefundStatus | null, none: string) => (status ? `\`${status}\`` : none);
  const lines = ['| status | event | when | next status | effects |', '|---|---|---|---|---|'];
  for (const r of REFUND_TABLE)
    lines.push(
      `| ${state(r.from, '(none)')} | \`${r.event}\` | ${r.when ?? ''} | ${state(r.to, '(released)')} | ${r.effects.map(describeRefundEffect).join(', ') || 'release the reservation'} |`,
    );
  return lines.join('\n');
}
