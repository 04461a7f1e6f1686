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
import type { ProviderAnswer, ProviderOutcome } from '../src/domain/payment';
import {
  ProviderRefusal,
  type InitiateRequest,
  type PaymentProvider,
  type RefundAnswer,
  type RefundRequest,
} from '../src/providers/provider';
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

/** The simulated operator: the adapter the workers call, its books, and the callbacks it owes. */
export interface SimOperator {
  adapter: PaymentProvider;
  /** Names a payment or a refund id with the driver's label (`p12`, `p12r1`), which keys its draws. */
  label(id: string, label: string): void;
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
  /** Counts for the run's summary. */
  counts(): Record<string, number>;
}

/**
 * A simulated operator serving provider `code`, answering from `seed` with `faults`; `clock` is the driver's reading
 * of the test server's clock (epoch milliseconds), used outside activities.
 */
export function createSimOperator(
  code: ProviderCode,
  seed: number,
  clock: () => number,
  faults: FaultRates = DEFAULT_FAULTS,
): SimOperator {
  const labels = new Map<string, string>();
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
  const outages = drawOutages(seed, code, clock());
  /** The simulated time of a call named `what`, which fails as the operator's outage does when one is on. */
  const called = (what: string): number => {
    const at = now();
    if (outages.at(at)) count('calls in outages');
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
    if (t.fate.kind === 'approve') return { status: 'completed', receiptNumber: `SIM${t.reference.slice(-8)}` };
    return { status: 'failed', failureCode: 'declined', failureMessage: 'the customer declined', reason: 'REJECTED' };
  };
  const refundAt = (r: OperatorRefund, atMs: number): RefundAnswer => {
    if (r.refused) return { status: 'failed', failureMessage: 'the operator refused the refund' };
    if (atMs < r.decideAtMs) return { status: 'pending' };
    return r.eventually === 'succeeded'
      ? { status: 'succeeded', refundReference: `simrf_${r.key}` }
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
    supports: { cancel: true, refund: true, partialRefund: true },
    async initiate(request: InitiateRequest): Promise<ProviderAnswer> {
      const at = called('initiation');
      const d = callDraws(request.paymentId, 'initiate');
      count('initiate calls');
      const existing = byKey.get(request.idempotencyKey);
      if (existing) {
        if (d.chance(faults.lost)) lost('initiation');
        return { providerReference: existing.reference, outcome: outcomeAt(existing, at), nextAction: null };
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
        reference: `sim_${label}_${request.paymentId.slice(-6)}`,
        paymentId: request.paymentId,
        label,
        amount: request.amount,
        fate,
      };
      byKey.set(request.idempotencyKey, t);
      byReference.set(t.reference, t);
      byPayment.set(request.paymentId, t);
      count('transactions');
      if (d.chance(faults.lost)) lost('initiation (after acting)');
      return { providerReference: t.reference, outcome: outcomeAt(t, at), nextAction: null };
    },
    async fetchStatus(providerReference) {
      const at = called('status question');
      const t = transaction(providerReference);
      if (callDraws(t.paymentId, 'status').chance(faults.lost)) lost('status question');
      return { providerReference, outcome: outcomeAt(t, at) };
    },
    async cancel(providerReference) {
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
      if (request.amount > t.amount - taken)
        return { status: 'failed', failureMessage: 'the operator refused the refund: it exceeds what is left' };
      if (d.chance(faults.lost)) lost('refund');
      const answer = d.weighted<'succeeded' | 'refused' | 'pending'>([
        ['succeeded', Math.round((0.95 - faults.pendingRefund) * 1000)],
        ['refused', 50],
        ['pending', Math.round(faults.pendingRefund * 1000)],
      ]);
      const r: OperatorRefund = {
        key: request.idempotencyKey,
        refundId,
        reference: t.reference,
        amount: request.amount,
        refused: answer === 'refused',
        decideAtMs: answer === 'pending' ? outages.after(at + d.int(60, 6 * 3600) * 1000) : at,
        eventually: answer === 'pending' && d.chance(0.1) ? 'failed' : 'succeeded',
      };
      refunds.set(r.key, r);
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

  return {
    adapter,
    label: (id, label) => void labels.set(id, label),
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
    counts: () => ({ ...tally }),
  };
}
