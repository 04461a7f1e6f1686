/**
 * The engine every money object's table runs on: a table is rows of (status, event, condition) →
 * (status, effects). {@link chooseRow} finds the row an event takes in a state, or the refusal with its reason; a
 * (status, event) pair that is not a row is refused, and a refusal changes nothing. {@link tableMarkdown} renders a
 * table as its object's docs show it (docs/payments.md#states, docs/payouts.md#states). Each object declares its own
 * table, events, effects and next state beside its domain types (payment-table.ts, payout-table.ts). Pure: safe
 * inside the workflow sandbox.
 */

/** Why an event was refused; `code` is an API error code where a merchant's request is refused (docs/api.md#errors). */
export interface TableRefusal<C extends string = string> {
  code: C;
  message: string;
}

/** The refusal a row's condition gives to say "not this row, another one decides": never shown to anybody. */
export const ANOTHER_ROW: TableRefusal<'not_applicable'> = { code: 'not_applicable', message: 'another row applies' };

/**
 * One row of a table, for its event type `T`: (status `from`, event `T`, condition `when`) → (status `to`, `effects`);
 * `next` gives the object's `State` after it (its status and `updatedAt` are set by the table's apply).
 */
export interface TableRow<
  Status extends string,
  Event extends { type: string },
  State,
  Refusal,
  Effect,
  T extends Event['type'] = Event['type'],
> {
  from: Status;
  event: T;
  /** The condition in words (docs), and its test: a refusal, or undefined to take the row. */
  when?: { text: string; test: (state: State, event: Extract<Event, { type: T }>, at: string) => Refusal | undefined };
  to: Status;
  effects: readonly Effect[];
  next: (state: State, event: Extract<Event, { type: T }>, at: string) => State;
}

/** What {@link chooseRow} found: the row to take, or the refusal. */
export type Choice<R, C extends string> = { ok: true; row: R } | { ok: false; refusal: TableRefusal<C> };

/**
 * The first row of `table` for (`status`, `event.type`) whose condition holds for `state` at `at` (ISO 8601).
 * @returns the row; or the refusal: the first condition's own (not {@link ANOTHER_ROW}), else `noRow(status, event)`
 */
export function chooseRow<
  Status extends string,
  E extends { type: string },
  S,
  C extends string,
  R extends { from: Status; event: string; when?: { test: (state: S, event: never, at: string) => unknown } },
>(
  table: readonly R[],
  status: Status,
  state: S,
  event: E,
  at: string,
  noRow: (status: Status, event: E) => TableRefusal<C>,
): Choice<R, C> {
  const rows = table.filter((r) => r.from === status && r.event === event.type);
  let refusal: TableRefusal<C> | undefined;
  for (const r of rows) {
    const test = r.when?.test as ((state: S, event: E, at: string) => TableRefusal<C> | undefined) | undefined;
    const refused = test?.(state, event, at);
    if (!refused) return { ok: true, row: r };
    if (!refusal || refusal === ANOTHER_ROW) refusal = refused;
  }
  return { ok: false, refusal: !refusal || refusal === ANOTHER_ROW ? noRow(status, event) : refusal };
}

/**
 * A table as Markdown: one line per row, `| status | event | when | next status | effects |`, the effects described
 * by `describe` and joined by commas (`none` when a row has none). A test keeps each object's docs equal to it.
 */
export function tableMarkdown<Eff>(
  table: readonly { from: string; event: string; when?: { text: string }; to: string; effects: readonly Eff[] }[],
  describe: (effect: Eff) => string,
  none: string,
): string {
  const lines = ['| status | event | when | next status | effects |', '|---|---|---|---|---|'];
  for (const r of table)
    lines.push(
      `| \`${r.from}\` | \`${r.event}\` | ${r.when?.text ?? ''} | \`${r.to}\` | ${r.effects.map(describe).join(', ') || none} |`,
    );
  return lines.join('\n');
}

/**
 * The effects every table declares alike, in words as the documentation's tables show them: the write of the object's
 * row, the webhook event to emit, the ledger journal to post (docs/ledger.md#postings).
 */
export function describeCommonEffect(
  effect: { do: 'write' } | { do: 'emit'; event: string } | { do: 'post'; cause: string },
): string {
  if (effect.do === 'write') return 'write';
  return effect.do === 'emit' ? `emit \`${effect.event}\`` : `post \`${effect.cause}\``;
}
