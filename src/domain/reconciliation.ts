/**
 * Reconciliation against the providers' books (docs/reconciliation.md): what our books say a provider
 * account did in a window is compared with what the provider says, and every difference becomes an
 * exception with its evidence. Pure: the activities fetch both sides and store what this returns.
 *
 * Amounts are minor units. A window is half-open, [from, to), in UTC.
 */
import type { Environment } from './environment';
import type { JournalDraft } from './ledger';

/** The kinds of difference (docs/reconciliation.md#exceptions). */
export const RECONCILIATION_EXCEPTION_KINDS = [
  'missing_at_provider',
  'missing_in_books',
  'amount_mismatch',
  'status_mismatch',
  'balance_drift',
  'late_answer',
  // Recorded by the payment's workflow when it books a late success unrefunded (docs/payments.md#late-successes).
  'late_success_unrefundable',
  'late_success_after_window',
  'late_success_after_decline',
  // Recorded by a checkout session's workflow for a late success after another attempt completed it (docs/checkout.md).
  'duplicate_checkout_payment',
] as const;
/** A kind of reconciliation exception. */
export type ReconciliationExceptionKind = (typeof RECONCILIATION_EXCEPTION_KINDS)[number];

/** What moves money at a provider account: a collection, a refund, and (once payouts exist) a payout. */
export type StatementEntryKind = 'collection' | 'refund';

/** One side's record of one movement. */
export interface StatementEntry {
  kind: StatementEntryKind;
  /** The provider's reference of the collection (also for its refunds: `reference` tells refunds apart). */
  providerReference: string;
  /** Unique per entry on its side: the payment or refund id in our books, the provider's own id in theirs. */
  reference: string;
  /** Minor units, positive. */
  amount: number;
  currency: string;
  /** `settled`: money moved; `open`: not final yet; `failed`: no money moved. */
  status: 'settled' | 'open' | 'failed';
  /** When it settled (or was last seen), ISO 8601. */
  at: string;
  /** Our payment id, when our side knows it. */
  paymentId?: string;
}

/**
 * Where the provider's side of an account comes from (docs/reconciliation.md#sources): a list of
 * transactions (the sandbox simulators' books, Stripe's balance transactions), or only a balance
 * (MTN MoMo, Airtel Money). Either may throw: the run then fails and is retried.
 */
export type StatementSource =
  | {
      method: 'transactions';
      /** Movements in the window, or of these provider references at any time. */
      entries(
        select: { window: { from: string; to: string } } | { providerReferences: readonly string[] },
      ): Promise<StatementEntry[]>;
    }
  | {
      method: 'balance';
      /**
       * What the account holds now, per currency, in minor units. `currencies`: those our books hold a clearing
       * account in for this provider, for a provider whose balance is asked per currency (Airtel, per country).
       */
      balances(currencies: readonly string[]): Promise<{ currency: string; amount: number }[]>;
    };

/** A difference found, with what each side showed. */
export interface ExceptionDraft {
  kind: ReconciliationExceptionKind;
  /** Stable across runs, so a second run of the same day records nothing twice: `{kind}:{reference}`. */
  key: string;
  /** Our payment or refund id where we have one. */
  objectId: string | null;
  providerReference: string | null;
  /** Minor units, what we expected and what the provider showed (null when one side has nothing). */
  expectedAmount: number | null;
  foundAmount: number | null;
  currency: string | null;
  evidence: { ours: StatementEntry | null; theirs: StatementEntry | null; note: string };
}

/** Why each kind the payment workflow records was recorded (docs/payments.md#late-successes). */
const LATE_SUCCESS_NOTES = {
  late_success_unrefundable:
    'the provider collected after the merchant cancelled and cannot refund the payment: booked as completed',
  late_success_after_window:
    'the provider collected after the payment expired or failed, past the reconciliation window: booked as completed',
  late_success_after_decline: 'the provider collected after it declined or refused the payment: booked as completed',
} as const;

/**
 * The exception the payment workflow records with the write that books a late success without refunding it
 * (docs/payments.md#late-successes): keyed `{kind}:{payment id}`, so a repeated write records it once; amounts in minor
 * units, the payment's on both sides (our books now hold what the provider collected).
 */
export function lateSuccessException(
  payment: { id: string; amount: number; currency: string; providerReference: string | null },
  kind: keyof typeof LATE_SUCCESS_NOTES,
): ExceptionDraft {
  return {
    kind,
    key: `${kind}:${payment.id}`,
    objectId: payment.id,
    providerReference: payment.providerReference,
    expectedAmount: payment.amount,
    foundAmount: payment.amount,
    currency: payment.currency,
    evidence: { ours: null, theirs: null, note: LATE_SUCCESS_NOTES[kind] },
  };
}

/**
 * The exception a checkout session's workflow records for the late success of `payment` after another attempt
 * completed session `sessionId`, where its provider does not refund it (docs/checkout.md#states): keyed
 * `duplicate_checkout_payment:{payment id}`, so it is recorded once; amounts in minor units.
 */
export function duplicateCheckoutException(
  payment: { id: string; amount: number; currency: string; providerReference: string | null },
  sessionId: string,
): ExceptionDraft {
  return {
    kind: 'duplicate_checkout_payment',
    key: `duplicate_checkout_payment:${payment.id}`,
    objectId: payment.id,
    providerReference: payment.providerReference,
    expectedAmount: payment.amount,
    foundAmount: payment.amount,
    currency: payment.currency,
    evidence: {
      ours: null,
      theirs: null,
      note: `the provider collected this attempt after another attempt completed checkout session ${sessionId}, and does not refund it: both payments are booked completed`,
    },
  };
}

/** How far apart the two sides may record one movement around the window's edges, in seconds. */
export const IN_FLIGHT_TOLERANCE_SECONDS = 3600;

/** The key of an entry that both sides share: a collection by its provider reference, a refund by its amount order. */
function entryKey(entry: StatementEntry): string {
  return `${entry.kind}:${entry.providerReference}`;
}

/**
 * Matches our settled entries with the provider's over a window. An entry only one side lists in the
 * window is looked up on the other side by key (`lookup`), so a movement recorded on either side of
 * the cut-off within {@link IN_FLIGHT_TOLERANCE_SECONDS} is in flight, not missing. Refunds of one
 * collection are compared by their total: providers number refunds their own way.
 * @param ours our entries settled in the window
 * @param theirs the provider's entries settled in the window
 * @param outside entries of either side outside the window with the keys one side lacked, by side
 * @returns the differences, one per key and kind
 */
export function matchStatements(
  ours: readonly StatementEntry[],
  theirs: readonly StatementEntry[],
  outside: { ours: readonly StatementEntry[]; theirs: readonly StatementEntry[] },
  window: { from: string; to: string },
): ExceptionDraft[] {
  const total = (entries: readonly StatementEntry[]) => {
    const byKey = new Map<string, { amount: number; entries: StatementEntry[] }>();
    for (const entry of entries) {
      if (entry.status === 'failed') continue;
      const sum = byKey.get(entryKey(entry)) ?? { amount: 0, entries: [] };
      sum.amount += entry.amount;
      sum.entries.push(entry);
      byKey.set(entryKey(entry), sum);
    }
    return byKey;
  };
  const mine = total(ours);
  const yours = total(theirs);
  const mineOutside = total(outside.ours);
  const yoursOutside = total(outside.theirs);
  const near = (entry: StatementEntry) => {
    const at = Date.parse(entry.at);
    const slack = IN_FLIGHT_TOLERANCE_SECONDS * 1000;
    return at >= Date.parse(window.from) - slack && at < Date.parse(window.to) + slack;
  };
  const exceptions: ExceptionDraft[] = [];
  const draft = (
    kind: ReconciliationExceptionKind,
    key: string,
    our: { amount: number; entries: StatementEntry[] } | undefined,
    their: { amount: number; entries: StatementEntry[] } | undefined,
    note: string,
  ): ExceptionDraft => {
    const sample = our?.entries[0] ?? their?.entries[0];
    return {
      kind,
      key: `${kind}:${key}`,
      objectId: our?.entries.at(-1)?.reference ?? null,
      providerReference: sample?.providerReference ?? null,
      expectedAmount: our?.amount ?? null,
      foundAmount: their?.amount ?? null,
      currency: sample?.currency ?? null,
      evidence: { ours: our?.entries.at(-1) ?? null, theirs: their?.entries.at(-1) ?? null, note },
    };
  };

  for (const [key, our] of mine) {
    const their = yours.get(key) ?? yoursOutside.get(key);
    const settledHere = our.entries.some((entry) => entry.status === 'settled');
    if (!their) {
      if (settledHere) exceptions.push(draft('missing_at_provider', key, our, undefined, 'in our books only'));
      continue;
    }
    if (!yours.has(key) && !their.entries.some(near)) {
      exceptions.push(draft('missing_at_provider', key, our, their, 'the provider has it far outside the window'));
      continue;
    }
    const theirSettled = their.entries.some((entry) => entry.status === 'settled');
    if (settledHere !== theirSettled) {
      exceptions.push(draft('status_mismatch', key, our, their, 'settled on one side only'));
      continue;
    }
    if (our.amount !== their.amount)
      exceptions.push(draft('amount_mismatch', key, our, their, 'the two sides moved different amounts'));
  }
  for (const [key, their] of yours) {
    if (mine.has(key)) continue;
    const our = mineOutside.get(key);
    if (!their.entries.some((entry) => entry.status === 'settled')) continue;
    if (!our) {
      exceptions.push(draft('missing_in_books', key, undefined, their, 'at the provider only'));
      continue;
    }
    if (!our.entries.some(near)) {
      exceptions.push(draft('missing_in_books', key, our, their, 'our books have it far outside the window'));
      continue;
    }
    if (!our.entries.some((entry) => entry.status === 'settled'))
      exceptions.push(draft('status_mismatch', key, our, their, 'settled at the provider, not in our books'));
    else if (our.amount !== their.amount)
      exceptions.push(draft('amount_mismatch', key, our, their, 'the two sides moved different amounts'));
  }
  return exceptions.sort((a, b) => a.key.localeCompare(b.key));
}

/**
 * Compares a provider's reported balance with what our books expect it to hold, allowing what is in
 * flight (movements one side may not have counted yet).
 * @param expected minor units our provider clearing account holds
 * @param reported minor units the provider says the account holds
 * @param inFlight minor units of movements open at the cut-off (their sum in absolute value)
 * @returns a `balance_drift` exception, or undefined when the difference is within `inFlight`
 */
export function compareBalance(
  account: { provider: string; currency: string; day: string },
  expected: number,
  reported: number,
  inFlight: number,
): ExceptionDraft | undefined {
  if (Math.abs(reported - expected) <= Math.abs(inFlight)) return undefined;
  return {
    kind: 'balance_drift',
    key: `balance_drift:${account.provider}:${account.currency}:${account.day}`,
    objectId: null,
    providerReference: null,
    expectedAmount: expected,
    foundAmount: reported,
    currency: account.currency,
    evidence: {
      ours: null,
      theirs: null,
      note: `the provider reports ${reported}, our books ${expected} (${inFlight} in flight) minor units`,
    },
  };
}

/**
 * The UTC day before `at` as `YYYY-MM-DD`: what the daily run at 02:00 reconciles.
 */
export function previousUtcDay(at: Date): string {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() - 1)).toISOString().slice(0, 10);
}

/**
 * The window of UTC day `day` (`YYYY-MM-DD`).
 * @throws RangeError for anything but a real calendar day
 */
export function dayWindow(day: string): { from: string; to: string } {
  const from = new Date(`${day}T00:00:00.000Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(from.getTime()) || from.toISOString().slice(0, 10) !== day)
    throw new RangeError(`${day} is not a day (YYYY-MM-DD)`);
  return { from: from.toISOString(), to: new Date(from.getTime() + 86_400_000).toISOString() };
}

/** An operator's correction of a provider's clearing account after a reconciliation exception. */
export interface ClearingAdjustment {
  /** The adjustment's id (`adj_…`), its cause. */
  id: string;
  provider: string;
  environment: Environment;
  currency: string;
  /** Minor units the provider holds more than our books said (negative: less); never 0. */
  amount: number;
  operator: string;
  reason: string;
}

/**
 * The journal of a clearing adjustment (docs/reconciliation.md#resolving): the provider's clearing
 * account moves by `amount` against platform fees (the platform gains or bears the difference; no
 * merchant's balance changes).
 */
export function clearingAdjustmentJournal(adjustment: ClearingAdjustment): JournalDraft {
  return {
    cause: `adjustment:${adjustment.id}`,
    environment: adjustment.environment,
    currency: adjustment.currency,
    description: `Reconciliation adjustment of ${adjustment.provider} by ${adjustment.operator}: ${adjustment.reason}`,
    postings: [
      { account: { kind: 'provider_clearing', owner: adjustment.provider }, amount: adjustment.amount },
      { account: { kind: 'platform_fees', owner: '' }, amount: -adjustment.amount },
    ],
  };
}
