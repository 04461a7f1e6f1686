/**
 * A simulated mobile-money operator in the simulator's process (docs/simulation.md#what-it-runs): it keeps its own
 * books (requests to pay, refunds, the money each refund moved) and answers the adapter calls of
 * src/providers/provider.ts the way an operator misbehaves: answers lost before or after it acted, refusals, customers
 * who approve after a latency, decline, never answer or approve after the payment expired, refunds left pending, and
 * callbacks lost, sent twice or late. Every answer is drawn from the run's seed and the call's name (sim/random.ts).
 *
 * Its clock is the Temporal test server's: inside an activity, the time the server scheduled the attempt (simulated
 * time); outside one, the driver's last reading of the server's clock.
 */
import type { ProviderCode } from '../src/domain/catalogue';
import type { NextAction, ProviderAnswer, ProviderOutcome } from '../src/domain/payment';
import { capabilitiesOf, type ProviderCapabilities } from '../src/domain/provider-descriptor';
import { PROVIDER_DESCRIPTORS } from '../src/providers/descriptors';
import {
  ProviderRefusal,
  ProviderUnsupported,
  type InitiateRequest,
  type PaymentProvider,
  type RefundAnswer,
  type RefundRequest,
} from '../src/providers/provider';
import type { StatementEntry, StatementSource } from '../src/domain/reconciliation';
import { drawOutages, type Outage } from './outages';
import { callDraws as namedCallDraws, draws, simulatedNow } from './random';

/** What the customer does with a request to pay, and when (simulated epoch milliseconds). */
type Fate =
  { kind: 'approve' | 'decline'; atMs: number; late: boolean } | { kind: 'ignore'; atMs: number; late: false };

/** One request to pay in the operator's books. */
interface Transaction {
  reference: string;
  paymentId: string;
  label: string;
  amount: number;
  currency: string;
  /** When the operator took the request, and when the payment expires (simulated epoch milliseconds, ISO 8601). */
  createdAtMs: number;
  expiresAt: string;
  fate: Fate;
  cancelledAtMs?: number;
}

/** One refund in the operator's books, under the idempotency key it was sent with. */
interface OperatorRefund {
  key: string;
  refundId: string;
  reference: string;
  amount: number;
  /** Refused at once, or decided at `decideAtMs` to `eventually`. */
  refused: boolean;
  decideAtMs: number;
  eventually: 'succeeded' | 'failed';
}

/** A callback the operator sends: the payment's reference and what it claims. */
export interface OperatorCallback {
  paymentId: string;
  providerReference: string;
  claimed: ProviderOutcome['status'];
}

/** The operator's fault rates, as probabilities (0 … 1) per call. */
export interface FaultRates {
  /** An answer lost (the call times out), before or after the operator acted: each. */
  lost: number;
  /** A request to pay refused outright. */
  refusal: number;
  /** A customer who never answers. */
  ignore: number;
  /** A success that comes after the payment's expiry. */
  lateSuccess: number;
  /** A refund the operator takes and decides later. */
  pendingRefund: number;
  /** Callbacks: lost, sent twice, sent late (the rest: once, on time). */
  callbackLost: number;
  callbackTwice: number;
  callbackLate: number;
}

/** The longest a movement takes to show on an operator's statement, in minutes (the shortest: 1). */
export const STATEMENT_LAG_MINUTES = 240;

/** For ever: a time after every decision of an operator. */
const EVER_MS = Number.MAX_SAFE_INTEGER;

/** The rates of an ordinary day of a flaky operator. */
export const DEFAULT_FAULTS: FaultRates = {
  lost: 0.06,
  refusal: 0.04,
  ignore: 0.1,
  lateSuccess: 0.05,
  pendingRefund: 0.15,
  callbackLost: 0.2,
  callbackTwice: 0.15,
  callbackLate: 0.15,
};

/**
 * What sets one simulated operator apart (docs/simulation.md#what-it-runs): its provider code, the flows its live
 * descriptor offers (src/providers/<code>/descriptor.ts), the shapes of its references, receipts and next actions
 * as its adapter (src/providers/<code>/adapter.ts) maps them, how it answers refunds, and its callbacks' habits.
 */
export interface OperatorProfile {
  code: ProviderCode;
  /** The live descriptor's capabilities: a cancel of an operator without one throws ProviderUnsupported. */
  supports: ProviderCapabilities;
  /** The operator's reference of the transaction of payment `label` (`paymentId` its id). */
  reference(label: string, paymentId: string): string;
  /** The receipt number of a collected transaction with reference `reference`. */
  receipt(reference: string): string;
  /** The reference of a paid refund sent under `key`. */
  refundReference(key: string): string;
  /** The next action of a request to pay (a card's client secret), none for a prompt on the customer's phone. */
  nextAction(reference: string): NextAction | null;
  /**
   * True when the refund's own answer is always `pending` and its result comes later (M-Pesa's reversal, whose result
   * Daraja sends to the callback URL, and which the adapter's refund question reads).
   */
  refundDecidedLater: boolean;
  /** The profile's callback habits, over DEFAULT_FAULTS. */
  faults: Partial<FaultRates>;
  /**
   * True when its first outage begins 10 minutes to 2 hours into the run (CI's short runs meet it), else 2 to 30 hours
   * in (long runs meet it): MoMo's only, so that CI's runs meet as many outages as before the other operators came.
   */
  earlyOutage: boolean;
  /**
   * How the service reconciles its live account (docs/reconciliation.md#sources): by the transactions of a statement
   * (Stripe, and M-Pesa's statement stands in for the balance query not wired yet), or by a balance only (MTN MoMo,
   * Airtel Money), which the simulator then gives its sandbox account too.
   */
  reconciledBy: 'transactions' | 'balance';
}

/** The capabilities of provider `code`, its live adapter's (`capabilitiesOf`, as the service's sandbox offers them). */
function liveCapabilities(code: ProviderCode): ProviderCapabilities {
  const found = PROVIDER_DESCRIPTORS.find((d) => d.code === code);
  if (!found) throw new Error(`no descriptor for ${code}`);
  return capabilitiesOf(found);
}

/** A reference's last eight characters, upper-cased (the simulated receipts' tail). */
const tail = (reference: string) => reference.slice(-8).toUpperCase();

/**
 * The simulated operators, one per provider the workload pays through: MTN MoMo (callbacks as the collection API's,
 * answer shapes of src/providers/momo), Airtel Money (`mobile_money_b`: our transaction id as the reference, the
 * `airtel_money_id` as receipt, whole-payment refunds), M-Pesa (Daraja's `CheckoutRequestID` as reference, its
 * receipt number, reversals answered by their result callback only, STK callbacks never retried) and Stripe
 * (`card_gateway`: a PaymentIntent `pi_…` with its client secret as next action and its charge `ch_…` as receipt,
 * cancels, refunds `re_…`, webhooks retried so seldom lost and often repeated).
 */
export const OPERATOR_PROFILES: readonly OperatorProfile[] = [
  {
    code: 'momo',
    supports: liveCapabilities('momo'),
    reference: (label, paymentId) => `sim_${label}_${paymentId.slice(-6)}`,
    receipt: (reference) => `SIM${reference.slice(-8)}`,
    refundReference: (key) => `simrf_${key}`,
    nextAction: () => null,
    refundDecidedLater: false,
    faults: {},
    earlyOutage: true,
    reconciledBy: 'balance',
  },
  {
    code: 'mobile_money_b',
    supports: liveCapabilities('mobile_money_b'),
    reference: (label, paymentId) => `${label}${paymentId.slice(-10)}`,
    receipt: (reference) => `MP${tail(reference)}`,
    refundReference: (key) => `MPR${tail(key)}`,
    nextAction: () => null,
    refundDecidedLater: false,
    faults: {},
    earlyOutage: false,
    reconciledBy: 'balance',
  },
  {
    code: 'mpesa',
    supports: liveCapabilities('mpesa'),
    reference: (label, paymentId) => `ws_CO_${label}_${paymentId.slice(-8)}`,
    receipt: (reference) => `S${tail(reference).slice(-9).padStart(9, '0')}`,
    refundReference: (key) => `R${tail(key)}`,
    nextAction: () => null,
    refundDecidedLater: true,
    faults: { callbackTwice: 0.05, callbackLate: 0.1 },
    earlyOutage: false,
    reconciledBy: 'transactions',
  },
  {
    code: 'card_gateway',
    supports: liveCapabilities('card_gateway'),
    reference: (label, paymentId) => `pi_sim${label}${paymentId.slice(-8)}`,
    receipt: (reference) => `ch_${reference.slice(3)}`,
    refundReference: (key) => `re_${tail(key)}`,
    nextAction: (reference) => ({ type: 'card_confirm', client_secret: `${reference}_secret_sim` }),
    refundDecidedLater: false,
    faults: { callbackLost: 0.02, callbackTwice: 0.25, callbackLate: 0.2 },
    earlyOutage: false,
    reconciledBy: 'transactions',
  },
];

/** The profile of provider `code`. @throws Error when no simulated operator serves it */
export function operatorProfile(code: ProviderCode): OperatorProfile {
  const found = OPERATOR_PROFILES.find((p) => p.code === code);
  if (!found) throw new Error(`no simulated operator serves ${code}`);
  return found;
}

/** The simulated operator: the adapter the workers call, its books, and the callbacks it owes. */
export interface SimOperator {
  adapter: PaymentProvider;
  /** What sets it apart (OPERATOR_PROFILES). */
  profile: OperatorProfile;
  /** Names a payment or a refund id with the driver's label (`p12`, `p12r1`), which keys its draws. */
  label(id: string, label: string): void;
  /**
   * Names the next payment of `customer` (its number, as the initiation request carries it; for a card, which names
   * none, the request's description) with `label`, for a payment whose id the service draws (a checkout attempt's): its
   * first initiation takes the label, which keys its draws.
   */
  labelCustomer(customer: string, label: string): void;
  /** The callbacks due by `nowMs` (simulated), drawn once per decision: none, one, two, or one later. */
  callbacksDue(nowMs: number): OperatorCallback[];
  /** What the operator collected for `paymentId` by `nowMs`, in minor units (0 unless the customer approved). */
  collected(paymentId: string, nowMs: number): number;
  /** What the operator refunded of `paymentId` by `nowMs`, in minor units. */
  refunded(paymentId: string, nowMs: number): number;
  /** What the operator paid back under refund id `refundId` by `nowMs` (under any key it was sent), minor units. */
  refundedFor(refundId: string, nowMs: number): number;
  /** True when a success of `paymentId` after its expiry had its every callback lost (a reconciliation exception). */
  lateSuccessUnannounced(paymentId: string): boolean;
  /**
   * True when the operator collected `paymentId`, lost its every callback, and was in an outage at some moment of the
   * payment's last word (from `expiresAtMs`, its expiry, to 3 minutes after, docs/payments.md#decision-time): its
   * questions then went unanswered, and only reconciliation could tell (a reconciliation exception).
   */
  successLostToOutage(paymentId: string, expiresAtMs: number): boolean;
  /** Refund ids for which more than one request moved money (sent twice under different keys), with the keys. */
  refundsSentTwice(): { refundId: string; keys: string[] }[];
  /** The operator's outages that began before `untilMs` (simulated epoch milliseconds). */
  outages(untilMs: number): Outage[];
  /**
   * The operator's statement (docs/simulation.md#reconciliation): its collections and paid refunds, each with the
   * moment it happened, shown only from STATEMENT_LAG minutes to hours after it (drawn per entry). Its clock is the
   * operator's (an activity's scheduled time).
   */
  statement: Extract<StatementSource, { method: 'transactions' }>;
  /**
   * Why the statement and our books may differ about the payment with operator reference `providerReference` at
   * simulated `atMs`: `lag` when one of its entries had not shown on the statement yet, and the faults injected into
   * its story (`late success`, `callbacks lost`, `callbacks late`, `callbacks twice`, `outage while open`, `refund
   * pending`, `refund refused`); empty when nothing explains a difference. Which of them can make which exception is
   * sim/reconciliation.ts `CAUSES`. Undefined for a reference the operator never gave.
   */
  explain(providerReference: string, atMs: number): string[] | undefined;
  /**
   * What the operator's account holds in `currency` from the run's movements done by `atMs` (simulated epoch
   * milliseconds): its collections less the refunds it paid, minor units (its balance less what it held before).
   */
  balanceAt(currency: string, atMs: number): number;
  /** When every entry of the statement up to `nowMs` has shown on it (simulated epoch milliseconds). */
  statementSettledAt(nowMs: number): number;
  /** Callbacks the operator decided to send and has not sent yet (a late one, or one due in an outage). */
  callbacksOwed(): number;
  /** Counts for the run's summary. */
  counts(): Record<string, number>;
}

/**
 * A simulated operator of `profile` (OPERATOR_PROFILES), answering from `seed` with `faults` (the profile's callback
 * habits over them); `clock` is the driver's reading of the test server's clock (epoch milliseconds), used outside
 * activities.
 */
export function createSimOperator(
  profile: OperatorProfile,
  seed: number,
  clock: () => number,
  rates: FaultRates = DEFAULT_FAULTS,
): SimOperator {
  const { code } = profile;
  const faults: FaultRates = { ...rates, ...profile.faults };
  const labels = new Map<string, string>();
  const customerLabels = new Map<string, string>();
  const byKey = new Map<string, Transaction>();
  const byReference = new Map<string, Transaction>();
  const byPayment = new Map<string, Transaction>();
  const refunds = new Map<string, OperatorRefund>();
  const planned = new Set<string>();
  const owed: (OperatorCallback & { dueMs: number })[] = [];
  const unannounced = new Set<string>();
  /** Payments whose every callback the operator lost. */
  const silenced = new Set<string>();
  const tally: Record<string, number> = {};
  const count = (what: string) => (tally[what] = (tally[what] ?? 0) + 1);

  const now = simulatedNow(clock);
  const outages = drawOutages(seed, code, clock(), profile.earlyOutage);
  /** The simulated time of a call named `what`, which fails as the operator's outage does when one is on. */
  const called = (what: string): number => {
    const at = now();
    if (outages.at(at)) {
      count('calls in outages');
      if (what === 'initiation') count('initiations in outages');
    }
    outages.check(at, what);
    return at;
  };
  const callDraws = namedCallDraws(seed, labels);
  const lost = (what: string): never => {
    count(`lost ${what}`);
    throw new Error(`the simulated operator did not answer the ${what} in time`);
  };

  const outcomeAt = (t: Transaction, atMs: number): ProviderOutcome => {
    const decided = t.fate.kind !== 'ignore' && t.fate.atMs <= atMs;
    if (t.cancelledAtMs !== undefined && (!decided || t.cancelledAtMs < t.fate.atMs)) return { status: 'cancelled' };
    if (!decided) return { status: 'pending' };
    if (t.fate.kind === 'approve') return { status: 'completed', receiptNumber: profile.receipt(t.reference) };
    return { status: 'failed', failureCode: 'declined', failureMessage: 'the customer declined', reason: 'REJECTED' };
  };
  const refundAt = (r: OperatorRefund, atMs: number): RefundAnswer => {
    if (r.refused) return { status: 'failed', failureMessage: 'the operator refused the refund' };
    if (atMs < r.decideAtMs) return { status: 'pending' };
    return r.eventually === 'succeeded'
      ? { status: 'succeeded', refundReference: profile.refundReference(r.key) }
      : { status: 'failed', failureMessage: 'the operator reversed the refund' };
  };
  const refundIdOf = (key: string) => key.split(':')[1] ?? key;
  const transaction = (reference: string) => {
    const t = byReference.get(reference);
    if (!t) throw new ProviderRefusal(`the simulated operator knows no transaction ${reference}`);
    return t;
  };

  const adapter: PaymentProvider = {
    code,
    supports: profile.supports,
    async initiate(request: InitiateRequest): Promise<ProviderAnswer> {
      // A card's request names no number: its description (its checkout session's) stands for the customer.
      const customer = customerLabels.has(request.customer) ? request.customer : request.description;
      const named = customerLabels.get(customer);
      if (named !== undefined && !labels.has(request.paymentId)) {
        labels.set(request.paymentId, named);
        customerLabels.delete(customer);
      }
      const at = called('initiation');
      const d = callDraws(request.paymentId, 'initiate');
      count('initiate calls');
      const existing = byKey.get(request.idempotencyKey);
      if (existing) {
        if (d.chance(faults.lost)) lost('initiation');
        const outcome = outcomeAt(existing, at);
        return { providerReference: existing.reference, outcome, nextAction: profile.nextAction(existing.reference) };
      }
      if (d.chance(faults.refusal)) {
        count('refused initiations');
        throw new ProviderRefusal('the simulated operator refused the request to pay', 'declined', 'PAYER_NOT_FOUND');
      }
      if (d.chance(faults.lost)) lost('initiation');
      const label = labels.get(request.paymentId) ?? request.paymentId;
      const f = draws(seed, `${label}:fate`);
      const expiresMs = Date.parse(request.expiresAt);
      const kind = f.weighted<Fate['kind'] | 'late'>([
        ['approve', Math.round((1 - faults.ignore - faults.lateSuccess) * 800)],
        ['decline', Math.round((1 - faults.ignore - faults.lateSuccess) * 200)],
        ['ignore', Math.round(faults.ignore * 1000)],
        ['late', Math.round(faults.lateSuccess * 1000)],
      ]);
      // Customers answer within seconds to minutes (most before the expiry); a late one minutes to an hour after it.
      // An answer that falls in an outage is taken when the operator is back, maybe after the expiry.
      const decidedAtMs =
        kind === 'late'
          ? Math.max(at, expiresMs) + f.int(5, 60) * 60_000
          : at + f.int(3, Math.max(4, Math.floor((expiresMs - at) / 1000) - 30)) * 1000;
      const atMs = outages.after(decidedAtMs);
      const fate: Fate =
        kind === 'ignore'
          ? { kind: 'ignore', atMs: Number.MAX_SAFE_INTEGER, late: false }
          : { kind: kind === 'late' ? 'approve' : kind, atMs, late: atMs > expiresMs };
      const t: Transaction = {
        reference: profile.reference(label, request.paymentId),
        paymentId: request.paymentId,
        label,
        amount: request.amount,
        currency: request.currency,
        createdAtMs: at,
        expiresAt: request.expiresAt,
        fate,
      };
      byKey.set(request.idempotencyKey, t);
      byReference.set(t.reference, t);
      byPayment.set(request.paymentId, t);
      count('transactions');
      if (d.chance(faults.lost)) lost('initiation (after acting)');
      return { providerReference: t.reference, outcome: outcomeAt(t, at), nextAction: profile.nextAction(t.reference) };
    },
    async fetchStatus(providerReference) {
      const at = called('status question');
      const t = transaction(providerReference);
      if (callDraws(t.paymentId, 'status').chance(faults.lost)) lost('status question');
      return { providerReference, outcome: outcomeAt(t, at) };
    },
    async cancel(providerReference) {
      if (!profile.supports.cancel) throw new ProviderUnsupported(code, 'cancel');
      const at = called('cancel');
      const t = transaction(providerReference);
      if (callDraws(t.paymentId, 'cancel').chance(faults.lost)) lost('cancel');
      if (outcomeAt(t, at).status === 'pending') t.cancelledAtMs = at;
      return { providerReference, outcome: outcomeAt(t, at) };
    },
    async refund(request: RefundRequest): Promise<RefundAnswer> {
      const at = called('refund');
      const refundId = refundIdOf(request.idempotencyKey);
      const d = callDraws(refundId, 'refund');
      count('refund calls');
      const existing = refunds.get(request.idempotencyKey);
      if (existing) {
        if (d.chance(faults.lost)) lost('refund');
        return refundAt(existing, at);
      }
      const t = byReference.get(request.providerReference);
      if (!t || outcomeAt(t, at).status !== 'completed')
        return { status: 'failed', failureMessage: 'the operator refused the refund: the payment was not collected' };
      const taken = [...refunds.values()]
        .filter((r) => r.reference === t.reference && !r.refused && r.eventually === 'succeeded')
        .reduce((sum, r) => sum + r.amount, 0);
      if (!profile.supports.partialRefund && request.amount !== t.amount)
        throw new ProviderRefusal('the simulated operator refunds the whole payment only');
      if (request.amount > t.amount - taken)
        return { status: 'failed', failureMessage: 'the operator refused the refund: it exceeds what is left' };
      if (d.chance(faults.lost)) lost('refund');
      const drawn = d.weighted<'succeeded' | 'refused' | 'pending'>([
        ['succeeded', Math.round((0.95 - faults.pendingRefund) * 1000)],
        ['refused', 50],
        ['pending', Math.round(faults.pendingRefund * 1000)],
      ]);
      // An operator that answers refunds by their result callback takes each one and decides it seconds later.
      const answer = profile.refundDecidedLater && drawn === 'succeeded' ? 'pending' : drawn;
      const r: OperatorRefund = {
        key: request.idempotencyKey,
        refundId,
        reference: t.reference,
        amount: request.amount,
        refused: answer === 'refused',
        decideAtMs:
          answer !== 'pending'
            ? at
            : outages.after(at + (drawn === 'succeeded' ? d.int(5, 120) : d.int(60, 6 * 3600)) * 1000),
        eventually: answer === 'pending' && d.chance(0.1) ? 'failed' : 'succeeded',
      };
      refunds.set(r.key, r);
      if (answer !== 'succeeded') fault(t.paymentId, `refund ${answer}`);
      count(answer === 'refused' ? 'refused refunds' : 'refunds taken');
      if (d.chance(faults.lost)) lost('refund (after acting)');
      return refundAt(r, at);
    },
    async fetchRefund(request: RefundRequest) {
      const at = called('refund question');
      if (callDraws(refundIdOf(request.idempotencyKey), 'fetch-refund').chance(faults.lost)) lost('refund question');
      const r = refunds.get(request.idempotencyKey);
      return r ? refundAt(r, at) : { status: 'not_received' as const };
    },
    parseCallback() {
      throw new ProviderRefusal('the simulated operator hands its callbacks to the workflow in-process');
    },
  };

  /** Each payment's injected faults, by payment id (its callbacks' plan, a late success, a refund's fate). */
  const faultsOf = new Map<string, Set<string>>();
  const fault = (paymentId: string, what: string) =>
    faultsOf.set(paymentId, (faultsOf.get(paymentId) ?? new Set()).add(what));
  const lagOf = (name: string) => draws(seed, `${name}:statement-lag`).int(1, STATEMENT_LAG_MINUTES) * 60_000;
  /** Every movement of the operator's books, each with when it shows on the statement. */
  const movements = (): { entry: StatementEntry; shownAtMs: number }[] => {
    const out: { entry: StatementEntry; shownAtMs: number }[] = [];
    for (const t of byReference.values()) {
      if (outcomeAt(t, EVER_MS).status !== 'completed') continue;
      const entry: StatementEntry = {
        kind: 'collection',
        providerReference: t.reference,
        reference: t.reference,
        amount: t.amount,
        currency: t.currency,
        status: 'settled',
        at: new Date(t.fate.atMs).toISOString(),
      };
      out.push({ entry, shownAtMs: t.fate.atMs + lagOf(t.label) });
      for (const r of refunds.values()) {
        if (r.reference !== t.reference || refundAt(r, EVER_MS).status !== 'succeeded') continue;
        out.push({
          entry: {
            ...entry,
            kind: 'refund',
            reference: profile.refundReference(r.key),
            amount: r.amount,
            at: new Date(r.decideAtMs).toISOString(),
          },
          shownAtMs: r.decideAtMs + lagOf(r.key),
        });
      }
    }
    return out;
  };

  return {
    adapter,
    profile,
    label: (id, label) => void labels.set(id, label),
    labelCustomer: (customer, label) => void customerLabels.set(customer, label),
    callbacksDue(nowMs) {
      for (const t of byReference.values()) {
        const decidedAt = t.cancelledAtMs ?? (t.fate.kind === 'ignore' ? undefined : t.fate.atMs);
        if (decidedAt === undefined || decidedAt > nowMs || planned.has(t.reference)) continue;
        planned.add(t.reference);
        const claimed = outcomeAt(t, decidedAt).status;
        const d = draws(seed, `${t.label}:callback`);
        const plan = d.weighted<'lost' | 'once' | 'twice' | 'late'>([
          ['lost', Math.round(faults.callbackLost * 1000)],
          ['twice', Math.round(faults.callbackTwice * 1000)],
          ['late', Math.round(faults.callbackLate * 1000)],
          ['once', Math.round((1 - faults.callbackLost - faults.callbackTwice - faults.callbackLate) * 1000)],
        ]);
        count(`callbacks ${plan}`);
        if (plan !== 'once') fault(t.paymentId, `callbacks ${plan}`);
        if (plan === 'lost' && t.fate.late) unannounced.add(t.paymentId);
        if (plan === 'lost') silenced.add(t.paymentId);
        const callback = { paymentId: t.paymentId, providerReference: t.reference, claimed };
        // A callback due during an outage is sent when the operator is back.
        const owe = (dueMs: number) => owed.push({ ...callback, dueMs: outages.after(dueMs) });
        if (plan === 'once' || plan === 'twice') owe(decidedAt);
        if (plan === 'twice') owe(decidedAt + d.int(1, 600) * 1000);
        if (plan === 'late') owe(decidedAt + d.int(10, 180) * 60_000);
      }
      const due = owed.filter((c) => c.dueMs <= nowMs).sort((a, b) => a.dueMs - b.dueMs);
      for (const c of due) owed.splice(owed.indexOf(c), 1);
      return due.map(({ paymentId, providerReference, claimed }) => ({ paymentId, providerReference, claimed }));
    },
    collected(paymentId, nowMs) {
      const t = byPayment.get(paymentId);
      return t && outcomeAt(t, nowMs).status === 'completed' ? t.amount : 0;
    },
    refunded(paymentId, nowMs) {
      const t = byPayment.get(paymentId);
      if (!t) return 0;
      return [...refunds.values()]
        .filter((r) => r.reference === t.reference && refundAt(r, nowMs).status === 'succeeded')
        .reduce((sum, r) => sum + r.amount, 0);
    },
    refundedFor(refundId, nowMs) {
      return [...refunds.values()]
        .filter((r) => r.refundId === refundId && refundAt(r, nowMs).status === 'succeeded')
        .reduce((sum, r) => sum + r.amount, 0);
    },
    lateSuccessUnannounced: (paymentId) => unannounced.has(paymentId),
    successLostToOutage(paymentId, expiresAtMs) {
      const t = byPayment.get(paymentId);
      if (!t || !silenced.has(paymentId) || outcomeAt(t, Number.MAX_SAFE_INTEGER).status !== 'completed') return false;
      const lastWordEndMs = expiresAtMs + 3 * 60_000;
      return outages.until(lastWordEndMs).some((o) => o.toMs > expiresAtMs);
    },
    refundsSentTwice() {
      const keysOf = new Map<string, string[]>();
      for (const r of refunds.values())
        if (!r.refused) keysOf.set(r.refundId, [...(keysOf.get(r.refundId) ?? []), r.key]);
      return [...keysOf].filter(([, keys]) => keys.length > 1).map(([refundId, keys]) => ({ refundId, keys }));
    },
    outages: (untilMs) => outages.until(untilMs),
    callbacksOwed: () => owed.length,
    counts: () => ({ ...tally }),
    statement: {
      method: 'transactions',
      async entries(select) {
        const at = now();
        return movements()
          .filter(({ entry, shownAtMs }) => {
            if (shownAtMs > at) return false;
            if ('providerReferences' in select) return select.providerReferences.includes(entry.providerReference);
            return entry.at >= select.window.from && entry.at < select.window.to;
          })
          .map(({ entry }) => entry);
      },
    },
    explain(providerReference, atMs) {
      const t = byReference.get(providerReference);
      if (!t) return undefined;
      const unseen = movements().some((m) => m.entry.providerReference === providerReference && m.shownAtMs > atMs);
      const why = new Set(unseen ? ['lag'] : []);
      for (const what of faultsOf.get(t.paymentId) ?? []) why.add(what);
      if (t.fate.late) why.add('late success');
      const endMs = t.fate.kind === 'ignore' ? Date.parse(t.expiresAt) + 3 * 60_000 : t.fate.atMs;
      if (outages.until(endMs).some((o) => o.toMs > t.createdAtMs)) why.add('outage while open');
      return [...why];
    },
    statementSettledAt: (nowMs) =>
      Math.max(0, ...movements().map((m) => (Date.parse(m.entry.at) <= nowMs ? m.shownAtMs : 0))),
    balanceAt: (currency, atMs) =>
      movements()
        .filter(({ entry }) => entry.currency === currency && Date.parse(entry.at) <= atMs)
        .reduce((sum, { entry }) => sum + (entry.kind === 'collection' ? entry.amount : -entry.amount), 0),
  };
}

/** The books of every simulated operator of a run, asked by payment or refund id (each id is one operator's). */
export type OperatorBooks = Omit<SimOperator, 'adapter' | 'statement' | 'profile'>;

/**
 * The simulated operators of every profile (OPERATOR_PROFILES) for one run, and their books joined: a question about
 * an id goes to every operator (only the one that served it knows it), callbacks, outages and refunds sent twice are
 * every operator's, counts are summed.
 */
export function createSimOperators(
  seed: number,
  clock: () => number,
): { operators: SimOperator[]; books: OperatorBooks } {
  const operators = OPERATOR_PROFILES.map((profile) => createSimOperator(profile, seed, clock));
  const sum = (of: (o: SimOperator) => number) => operators.reduce((total, o) => total + of(o), 0);
  const books: OperatorBooks = {
    label: (id, label) => operators.forEach((o) => o.label(id, label)),
    labelCustomer: (customer, label) => operators.forEach((o) => o.labelCustomer(customer, label)),
    callbacksDue: (nowMs) => operators.flatMap((o) => o.callbacksDue(nowMs)),
    collected: (paymentId, nowMs) => sum((o) => o.collected(paymentId, nowMs)),
    refunded: (paymentId, nowMs) => sum((o) => o.refunded(paymentId, nowMs)),
    refundedFor: (refundId, nowMs) => sum((o) => o.refundedFor(refundId, nowMs)),
    lateSuccessUnannounced: (paymentId) => operators.some((o) => o.lateSuccessUnannounced(paymentId)),
    successLostToOutage: (paymentId, expiresAtMs) =>
      operators.some((o) => o.successLostToOutage(paymentId, expiresAtMs)),
    refundsSentTwice: () => operators.flatMap((o) => o.refundsSentTwice()),
    outages: (untilMs) => operators.flatMap((o) => o.outages(untilMs)),
    callbacksOwed: () => sum((o) => o.callbacksOwed()),
    explain: (providerReference, atMs) =>
      operators.map((o) => o.explain(providerReference, atMs)).find((why) => why !== undefined),
    statementSettledAt: (nowMs) => Math.max(...operators.map((o) => o.statementSettledAt(nowMs))),
    balanceAt: (currency, atMs) => sum((o) => o.balanceAt(currency, atMs)),
    counts() {
      const total: Record<string, number> = {};
      for (const o of operators)
        for (const [what, n] of Object.entries(o.counts())) total[what] = (total[what] ?? 0) + n;
      return total;
    },
  };
  return { operators, books };
}
