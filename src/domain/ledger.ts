/**
 * The ledger's rules (docs/ledger.md): which postings each cause makes. Pure: src/db/ledger.ts writes
 * what these functions return, in the transaction of the read-model change that caused it.
 *
 * A posting's `amount` is in minor units, debit positive and credit negative, so a journal balances
 * when its postings sum to zero (docs/ledger.md#invariants). Provider clearing is an asset (what a
 * provider holds for us), a merchant balance, refunds in flight and payouts in flight are what we
 * owe, platform fees what we earned: a merchant is owed the negated sum of its account's postings.
 */
import type { Environment } from './environment';

/** The kinds of ledger account (docs/ledger.md#accounts); each exists per environment and currency. */
export const LEDGER_ACCOUNT_KINDS = [
  'provider_clearing',
  'merchant_balance',
  'platform_fees',
  'refunds_in_flight',
  'payouts_in_flight',
] as const;
/** A kind of ledger account. */
export type LedgerAccountKind = (typeof LEDGER_ACCOUNT_KINDS)[number];

/** An account in one environment and currency: kind and owner (provider code, merchant id, '' for the platform). */
export interface LedgerAccountRef {
  kind: LedgerAccountKind;
  owner: string;
}

/** One posting: `amount` minor units, debit positive, credit negative, never 0. */
export interface Posting {
  account: LedgerAccountRef;
  amount: number;
}

/** Balance transaction types (docs/ledger.md#balance-transactions), the merchant's side of a journal. */
export const BALANCE_TRANSACTION_TYPES = [
  'payment',
  'refund',
  'refund_failure',
  'payout',
  'payout_failure',
  'adjustment',
] as const;
/** A balance transaction type. */
export type BalanceTransactionType = (typeof BALANCE_TRANSACTION_TYPES)[number];

/**
 * The merchant's side of a journal that moves its balance (docs/ledger.md#balance-transactions): minor units,
 * `net` = `amount` − `fee` = what the balance moved by.
 */
export interface BalanceTransactionDraft {
  merchantId: string;
  type: BalanceTransactionType;
  /** Id of the payment, refund, payout or adjustment cause. */
  source: string;
  amount: number;
  fee: number;
  net: number;
  description: string;
  /** Days after the journal's time when the funds become available (0: at once). */
  availableAfterDays: number;
}

/** A journal to write once: its cause (unique), the postings (one currency) and the merchant's side, if any. */
export interface JournalDraft {
  /** The cause, unique in the ledger: `payment:{id}:completed`, `refund:{id}:reserved` … */
  cause: string;
  environment: Environment;
  currency: string;
  description: string;
  postings: Posting[];
  balanceTransaction?: BalanceTransactionDraft;
}

/** The journal of `cause` for `object` (its environment and currency) with `postings`, no balance transaction yet. */
function journalOf(
  cause: string,
  object: { environment: Environment; currency: string },
  description: string,
  postings: Posting[],
): JournalDraft {
  return { cause, environment: object.environment, currency: object.currency, description, postings };
}

/**
 * The merchant's side of `object`'s journal (docs/ledger.md#balance-transactions): `amount` and `fee` in minor units,
 * its net always `amount − fee`.
 */
function merchantSide(
  object: { id: string; merchantId: string },
  type: BalanceTransactionType,
  money: { amount: number; fee: number },
  description: string,
  availableAfterDays = 0,
): BalanceTransactionDraft {
  const { amount, fee } = money;
  return {
    merchantId: object.merchantId,
    type,
    source: object.id,
    amount,
    fee,
    net: amount - fee,
    description,
    availableAfterDays,
  };
}

/**
 * What the journals of a money object (a payment's collection, a payout) need: its id, whose and which environment's
 * it is, its currency, the provider whose clearing account the money crosses, and its amount and fee in minor units.
 */
export interface LedgerMoneyObject {
  id: string;
  merchantId: string;
  environment: Environment;
  currency: string;
  provider: string;
  amount: number;
  fee: number;
}

/** What a payment's collection posts: the payment as the ledger needs it. Amounts in minor units. */
export interface CollectedPayment extends LedgerMoneyObject {
  /** Days from completion to available funds (the provider's or the merchant's, docs/ledger.md#available-on). */
  settlementDelayDays: number;
}

/** What a refund's journals need. Amounts in minor units. */
export interface LedgerRefund {
  id: string;
  paymentId: string;
  merchantId: string;
  environment: Environment;
  currency: string;
  /** The provider of the refunded payment, whose clearing account pays the refund. */
  provider: string;
  amount: number;
}

const PLATFORM = '';
const clearing = (provider: string): LedgerAccountRef => ({ kind: 'provider_clearing', owner: provider });
const merchant = (merchantId: string): LedgerAccountRef => ({ kind: 'merchant_balance', owner: merchantId });
const FEES: LedgerAccountRef = { kind: 'platform_fees', owner: PLATFORM };
const REFUNDS_IN_FLIGHT: LedgerAccountRef = { kind: 'refunds_in_flight', owner: PLATFORM };
const PAYOUTS_IN_FLIGHT: LedgerAccountRef = { kind: 'payouts_in_flight', owner: PLATFORM };

/** Drops postings of 0 (a fee of 0 moves nothing; the database refuses zero postings). */
function nonZero(postings: Posting[]): Posting[] {
  return postings.filter((p) => p.amount !== 0);
}

/** The cause of a payment's collection. */
export const paymentCollectedCause = (paymentId: string) => `payment:${paymentId}:completed`;
/** The cause of a refund's step: reserved when accepted, then completed or failed. */
export const refundCause = (refundId: string, step: RefundLedgerStep) => `refund:${refundId}:${step}`;

/** The steps of a refund that post: reserved when accepted, then completed or failed. */
export type RefundLedgerStep = 'reserved' | 'completed' | 'failed';

/** What a payment's or refund's journal cause names: the journal a table's `post` effect orders. */
export type PaymentJournalCause =
  { journal: 'payment_collected'; paymentId: string } | { journal: 'refund'; refundId: string; step: RefundLedgerStep };

/**
 * The journal `cause` names (`payment:{id}:completed`, `refund:{id}:reserved|completed|failed`), as the payment's
 * table writes it in a `post` effect (src/domain/payment-table.ts); undefined for any other text.
 */
export function paymentJournalCause(cause: string): PaymentJournalCause | undefined {
  const payment = /^payment:([^:]+):completed$/.exec(cause);
  if (payment) return { journal: 'payment_collected', paymentId: payment[1] as string };
  const refund = /^refund:([^:]+):(reserved|completed|failed)$/.exec(cause);
  if (refund) return { journal: 'refund', refundId: refund[1] as string, step: refund[2] as RefundLedgerStep };
  return undefined;
}

/**
 * A completed payment (also a reconciled late success, and a late success after cancel, which is
 * then refunded): debit the provider's clearing account `amount`, credit the merchant `amount − fee`
 * and platform fees `fee` (docs/ledger.md#postings).
 */
export function paymentCollectedJournal(payment: CollectedPayment): JournalDraft {
  const net = payment.amount - payment.fee;
  return {
    ...journalOf(
      paymentCollectedCause(payment.id),
      payment,
      `Payment ${payment.id}`,
      nonZero([
        { account: clearing(payment.provider), amount: payment.amount },
        { account: merchant(payment.merchantId), amount: -net },
        { account: FEES, amount: -payment.fee },
      ]),
    ),
    balanceTransaction: merchantSide(payment, 'payment', payment, `Payment ${payment.id}`, payment.settlementDelayDays),
  };
}

/**
 * A refund accepted (written `pending` before its provider is asked): the merchant is debited its
 * amount at once, held in refunds in flight; the fee is not returned (docs/ledger.md#postings).
 */
export function refundReservedJournal(refund: LedgerRefund): JournalDraft {
  return {
    ...journalOf(refundCause(refund.id, 'reserved'), refund, `Refund ${refund.id} of payment ${refund.paymentId}`, [
      { account: merchant(refund.merchantId), amount: refund.amount },
      { account: REFUNDS_IN_FLIGHT, amount: -refund.amount },
    ]),
    balanceTransaction: merchantSide(
      refund,
      'refund',
      { amount: -refund.amount, fee: 0 },
      `Refund ${refund.id} of payment ${refund.paymentId}`,
    ),
  };
}

/** A refund the provider completed: the money leaves the provider's clearing account; the merchant's is unchanged. */
export function refundCompletedJournal(refund: LedgerRefund): JournalDraft {
  return journalOf(refundCause(refund.id, 'completed'), refund, `Refund ${refund.id} paid by ${refund.provider}`, [
    { account: REFUNDS_IN_FLIGHT, amount: refund.amount },
    { account: clearing(refund.provider), amount: -refund.amount },
  ]);
}

/** A refund the provider refused: the reservation is reversed and the merchant gets its amount back. */
export function refundFailedJournal(refund: LedgerRefund): JournalDraft {
  return {
    ...journalOf(refundCause(refund.id, 'failed'), refund, `Refund ${refund.id} refused; reservation released`, [
      { account: REFUNDS_IN_FLIGHT, amount: refund.amount },
      { account: merchant(refund.merchantId), amount: -refund.amount },
    ]),
    balanceTransaction: merchantSide(
      refund,
      'refund_failure',
      { amount: refund.amount, fee: 0 },
      `Refund ${refund.id} refused; amount released`,
    ),
  };
}

/**
 * What a payout's journals need (`provider`: the one whose rail pays it, whose clearing account the money leaves).
 * Amounts in minor units.
 */
export type LedgerPayout = LedgerMoneyObject;

/** The steps of a payout that post: reserved when accepted, then paid, then returned; or failed or cancelled. */
export type PayoutLedgerStep = 'reserved' | 'paid' | 'failed' | 'cancelled' | 'returned';

/** The cause of a payout's step. */
export const payoutCause = (payoutId: string, step: PayoutLedgerStep) => `payout:${payoutId}:${step}`;

/**
 * A payout accepted (docs/ledger.md#postings): the merchant is debited amount + fee at once, held in payouts in
 * flight until the provider pays it or refuses it.
 */
export function payoutReservedJournal(payout: LedgerPayout): JournalDraft {
  const total = payout.amount + payout.fee;
  return {
    ...journalOf(payoutCause(payout.id, 'reserved'), payout, `Payout ${payout.id}`, [
      { account: merchant(payout.merchantId), amount: total },
      { account: PAYOUTS_IN_FLIGHT, amount: -total },
    ]),
    balanceTransaction: merchantSide(
      payout,
      'payout',
      { amount: -payout.amount, fee: payout.fee },
      `Payout ${payout.id}`,
    ),
  };
}

/** A payout the provider paid: the amount leaves its clearing account, the fee is the platform's. */
export function payoutPaidJournal(payout: LedgerPayout): JournalDraft {
  return journalOf(
    payoutCause(payout.id, 'paid'),
    payout,
    `Payout ${payout.id} paid by ${payout.provider}`,
    nonZero([
      { account: PAYOUTS_IN_FLIGHT, amount: payout.amount + payout.fee },
      { account: clearing(payout.provider), amount: -payout.amount },
      { account: FEES, amount: -payout.fee },
    ]),
  );
}

/**
 * A payout that gives amount and fee back to the merchant (docs/ledger.md#postings): refused or cancelled before it
 * was paid (out of payouts in flight), or returned by the provider after it was paid (back into its clearing
 * account, the fee out of platform fees). The balance transaction is a `payout_failure` of amount + fee, fee 0.
 */
export function payoutReversedJournal(payout: LedgerPayout, step: 'failed' | 'cancelled' | 'returned'): JournalDraft {
  const total = payout.amount + payout.fee;
  const from: Posting[] =
    step === 'returned'
      ? [
          { account: clearing(payout.provider), amount: payout.amount },
          { account: FEES, amount: payout.fee },
        ]
      : [{ account: PAYOUTS_IN_FLIGHT, amount: total }];
  const description = `Payout ${payout.id} ${step}; amount and fee given back`;
  return {
    ...journalOf(
      payoutCause(payout.id, step),
      payout,
      description,
      nonZero([...from, { account: merchant(payout.merchantId), amount: -total }]),
    ),
    balanceTransaction: merchantSide(payout, 'payout_failure', { amount: total, fee: 0 }, description),
  };
}

/** An operator's correction of a merchant's balance (docs/ledger.md#postings). */
export interface Adjustment {
  /** Unique id of the adjustment (`adj_…`), its cause. */
  id: string;
  merchantId: string;
  environment: Environment;
  currency: string;
  /** Minor units added to the merchant's balance (negative: taken from it); never 0. */
  amount: number;
  operator: string;
  reason: string;
}

/** An adjustment, against platform fees (the platform bears or gains the difference). */
export function adjustmentJournal(adjustment: Adjustment): JournalDraft {
  const description = `Adjustment by ${adjustment.operator}: ${adjustment.reason}`;
  return {
    ...journalOf(`adjustment:${adjustment.id}`, adjustment, description, [
      { account: merchant(adjustment.merchantId), amount: -adjustment.amount },
      { account: FEES, amount: adjustment.amount },
    ]),
    balanceTransaction: merchantSide(adjustment, 'adjustment', { amount: adjustment.amount, fee: 0 }, description),
  };
}

/**
 * What is wrong with `journal`, as sentences; empty when it may be written: postings of whole
 * non-zero minor units summing to zero, and a balance transaction whose `net` is `amount − fee` and
 * what the merchant's postings moved (docs/ledger.md#invariants).
 */
export function journalProblems(journal: JournalDraft): string[] {
  const problems: string[] = [];
  if (journal.postings.length < 2) problems.push(`${journal.cause}: fewer than two postings`);
  for (const p of journal.postings) {
    if (!Number.isSafeInteger(p.amount) || p.amount === 0)
      problems.push(`${journal.cause}: posting ${p.amount} is not whole non-zero minor units`);
  }
  const sum = journal.postings.reduce((total, p) => total + p.amount, 0);
  if (sum !== 0) problems.push(`${journal.cause}: postings sum to ${sum}, not 0`);
  const bt = journal.balanceTransaction;
  if (bt) {
    if (bt.net !== bt.amount - bt.fee) problems.push(`${journal.cause}: net is not amount − fee`);
    const moved = -journal.postings
      .filter((p) => p.account.kind === 'merchant_balance' && p.account.owner === bt.merchantId)
      .reduce((total, p) => total + p.amount, 0);
    if (moved !== bt.net)
      problems.push(`${journal.cause}: the merchant's postings move ${moved}, its net says ${bt.net}`);
  }
  return problems;
}
