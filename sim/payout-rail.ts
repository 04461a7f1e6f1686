/**
 * A simulated payout rail in the simulator's process (docs/simulation.md#what-it-runs): the operator's side of a
 * payout, as sim/operator.ts is the side of a collection. It keeps its own books (each transfer it took, under the
 * reference derived from the payout id, with the money it moved and when) and answers the calls of
 * src/providers/payout-rail.ts the way a rail misbehaves: a rail that is down before it takes anything, sends whose
 * answer is lost before or after it acted, refusals, ambiguous (`unknown`) answers, transfers in transit for seconds to
 * hours, status questions lost (answered `unknown`, as the boundary promises) or answered late from a lagging view,
 * and paid transfers that come back days later. A repeated send of one payout names the same transfer: the rail's own
 * duplicate check answers it, so money moves once per reference. Every answer is drawn from the run's seed and the
 * call's name (sim/random.ts).
 *
 * Its clock is the Temporal test server's, as the operator's: inside an activity, the time the server scheduled the
 * attempt; outside one, the driver's last reading.
 */
import type { PayoutStatusOutcome } from '../src/domain/payout-rail';
import {
  PayoutRailUnavailable,
  type PayoutAnswer,
  type PayoutRail,
  type PayoutRequest,
  type PayoutSendAnswer,
} from '../src/providers/payout-rail';
import { callDraws as namedCallDraws, draws, simulatedNow } from './random';

/** One transfer in the rail's books. */
interface Transfer {
  reference: string;
  payoutId: string;
  /** Minor units the rail pays out when it pays. */
  amount: number;
  /** Refused when taken: no money moves. */
  refused: boolean;
  /** When the transfer was taken, paid (MAX_SAFE_INTEGER: refused) and, for one that comes back, returned (ms). */
  takenAtMs: number;
  paidAtMs: number;
  returnedAtMs?: number;
}

/** The rail's fault rates, as probabilities (0 … 1) per call. */
export interface PayoutFaultRates {
  /** A send the rail refuses to take because it is down (nothing taken; it says when to come back). */
  down: number;
  /** A send's answer lost, before or after the rail acted: each. A status question lost (answered `unknown`). */
  lost: number;
  /** A payout refused (`account_invalid`). */
  refusal: number;
  /** A send taken whose answer is `unknown` (ambiguous): the caller asks. */
  unknown: number;
  /** A status question answered from a view lagging 1 to 30 minutes (a late answer). */
  stale: number;
  /** A paid transfer that comes back (1 hour to 2 days later). */
  returned: number;
}

/** The rates of an ordinary day of a flaky rail. */
export const DEFAULT_PAYOUT_FAULTS: PayoutFaultRates = {
  down: 0.05,
  lost: 0.06,
  refusal: 0.04,
  unknown: 0.05,
  stale: 0.1,
  returned: 0.03,
};

/** The simulated rail: what the workers call, and its books. */
export interface SimPayoutRail {
  rail: PayoutRail;
  /** Names a payout id with the driver's label (`o3`), which keys its draws. */
  label(payoutId: string, label: string): void;
  /** What the rail paid out for `payoutId` by `nowMs` (paid and not returned), in minor units. */
  paidOut(payoutId: string, nowMs: number): number;
  /** What the rail ever paid for `payoutId` (counting one that came back), in minor units. */
  everPaid(payoutId: string): number;
  /** What came back to the rail of `payoutId` by `nowMs`, in minor units. */
  returned(payoutId: string, nowMs: number): number;
  /**
   * Sends of a payout the rail had already taken and answered (a value, not a lost answer nor a rail that was
   * down): the caller asks the status after an answer and never sends again (docs/payouts.md#rails). With what it had
   * answered.
   */
  sentAgain(): { payoutId: string; answered: string }[];
  /**
   * Forgets the answer the rail last gave a send of `payoutId`: the attempt that sent it lost it (a process fault,
   * docs/simulation.md#process-faults), so the caller never received it and sends again, as after an answer lost on
   * the way (docs/payouts.md#rails).
   */
  answerLost(payoutId: string): void;
  /** The last moment (simulated ms) at which a transfer of the rail changes state; 0 with none. */
  settledAtMs(): number;
  /** Counts for the run's summary. */
  counts(): Record<string, number>;
}

/** The rail's reference of `payoutId`: derived from the payout id alone, as every rail's (docs/payouts.md#rails). */
export function simPayoutReference(payoutId: string): string {
  return `simpo_${payoutId}`;
}

/**
 * A simulated payout rail answering from `seed` with `faults`; `clock` is the driver's reading of the test server's
 * clock (epoch milliseconds), used outside activities.
 */
export function createSimPayoutRail(
  seed: number,
  clock: () => number,
  faults: PayoutFaultRates = DEFAULT_PAYOUT_FAULTS,
): SimPayoutRail {
  const labels = new Map<string, string>();
  const byReference = new Map<string, Transfer>();
  /** The outcome the rail last answered a send of each payout with (only answers the caller received). */
  const answered = new Map<string, string>();
  const resent: { payoutId: string; answered: string }[] = [];
  const tally: Record<string, number> = {};
  const count = (what: string) => (tally[what] = (tally[what] ?? 0) + 1);
  const now = simulatedNow(clock);
  const callDraws = namedCallDraws(seed, labels);
  const lost = (what: string): never => {
    count(`lost ${what}`);
    throw new Error(`the simulated payout rail did not answer the ${what} in time`);
  };

  /** What the rail says of `t` at `atMs`. */
  const stateAt = (t: Transfer, atMs: number): PayoutAnswer => {
    const reference = t.reference;
    if (t.refused)
      return {
        outcome: 'refused',
        providerReference: reference,
        failureCode: 'account_invalid',
        failureMessage: 'the simulated rail knows no such wallet',
        providerReason: 'PAYEE_NOT_FOUND',
      };
    let outcome: PayoutStatusOutcome = 'in_transit';
    if (t.returnedAtMs !== undefined && atMs >= t.returnedAtMs) outcome = 'returned';
    else if (atMs >= t.paidAtMs) outcome = 'paid';
    return { outcome, providerReference: reference };
  };

  const rail: PayoutRail = {
    code: 'momo',
    async sendPayout(request: PayoutRequest): Promise<PayoutSendAnswer> {
      const d = callDraws(request.payoutId, 'send');
      count('payout sends');
      const reference = simPayoutReference(request.payoutId);
      const at = now();
      const existing = byReference.get(reference);
      if (existing) {
        count('payout sends repeated');
        const before = answered.get(request.payoutId);
        if (before !== undefined) resent.push({ payoutId: request.payoutId, answered: before });
        if (d.chance(faults.lost)) lost('payout send');
        const answer = stateAt(existing, at);
        // A repeated send of a payout since returned answers what a send can: the status call says the rest.
        const sent: PayoutSendAnswer =
          answer.outcome === 'returned' || answer.outcome === 'not_received'
            ? { outcome: 'unknown', providerReference: reference, failureMessage: 'already sent: ask its status' }
            : (answer as PayoutSendAnswer);
        answered.set(request.payoutId, sent.outcome);
        return sent;
      }
      if (d.chance(faults.down)) {
        count('payout sends while down');
        throw new PayoutRailUnavailable('the simulated payout rail is down', d.int(30, 1800) * 1000);
      }
      if (d.chance(faults.lost)) lost('payout send');
      const f = draws(seed, `${labels.get(request.payoutId) ?? request.payoutId}:payout-fate`);
      const refused = f.chance(faults.refusal);
      // Most transfers pay within a minute; some stay in transit for minutes to hours.
      const paidAtMs = refused
        ? Number.MAX_SAFE_INTEGER
        : at +
          f.weighted([
            [0, 30],
            [f.int(1, 60) * 1000, 40],
            [f.int(1, 120) * 60_000, 30],
          ] as const);
      const comesBack = !refused && f.chance(faults.returned);
      const t: Transfer = {
        reference,
        payoutId: request.payoutId,
        amount: request.amount,
        refused,
        takenAtMs: at,
        paidAtMs,
        ...(comesBack ? { returnedAtMs: paidAtMs + f.int(60, 2 * 24 * 60) * 60_000 } : {}),
      };
      byReference.set(reference, t);
      count(refused ? 'payouts refused' : 'payouts taken');
      if (d.chance(faults.lost)) lost('payout send (after acting)');
      const answer: PayoutSendAnswer = d.chance(faults.unknown)
        ? { outcome: 'unknown', providerReference: reference, failureMessage: 'the simulated rail did not say' }
        : (stateAt(t, at) as PayoutSendAnswer);
      if (answer.outcome === 'unknown') count('payout sends answered unknown');
      answered.set(request.payoutId, answer.outcome);
      return answer;
    },
    async payoutStatus(providerReference: string): Promise<PayoutAnswer> {
      const t = byReference.get(providerReference);
      if (!t) return { outcome: 'not_received', providerReference };
      const d = callDraws(t.payoutId, 'status');
      if (d.chance(faults.lost)) {
        count('lost payout status questions');
        return { outcome: 'unknown', providerReference, failureMessage: 'the simulated rail did not answer in time' };
      }
      // A lagging view answers as of a moment ago, never before the transfer was taken.
      const at = now();
      const seen = d.chance(faults.stale) ? Math.max(t.takenAtMs, at - d.int(1, 30) * 60_000) : at;
      return stateAt(t, seen);
    },
  };

  const ofPayout = (payoutId: string) => [...byReference.values()].filter((t) => t.payoutId === payoutId);
  return {
    rail,
    label: (payoutId, label) => void labels.set(payoutId, label),
    paidOut: (payoutId, nowMs) =>
      ofPayout(payoutId)
        .filter((t) => stateAt(t, nowMs).outcome === 'paid')
        .reduce((sum, t) => sum + t.amount, 0),
    everPaid: (payoutId) =>
      ofPayout(payoutId)
        .filter((t) => !t.refused)
        .reduce((sum, t) => sum + t.amount, 0),
    returned: (payoutId, nowMs) =>
      ofPayout(payoutId)
        .filter((t) => stateAt(t, nowMs).outcome === 'returned')
        .reduce((sum, t) => sum + t.amount, 0),
    sentAgain: () => [...resent],
    answerLost: (payoutId) => void answered.delete(payoutId),
    settledAtMs: () =>
      Math.max(
        0,
        ...[...byReference.values()].map((t) => (t.refused ? t.takenAtMs : Math.max(t.paidAtMs, t.returnedAtMs ?? 0))),
      ),
    counts: () => ({ ...tally }),
  };
}
