/**
 * The sandbox payout rails' rules (docs/payouts.md#sandbox-destinations): what a destination's ending does, and
 * what the simulated rail answers about a payout at a given moment. Pure: the simulator
 * (src/providers/sandbox/payout-simulator.ts) keeps only when it first saw and when it took each payout, and asks
 * these functions for the rest, so every answer follows from the record and the clock.
 */
import type { PayoutFailureCode, PayoutStatusOutcome } from './payout-rail';

/** What a sandbox destination's ending does (docs/payouts.md#sandbox-destinations). */
export type SandboxPayoutBehaviour =
  /** `0001`: paid at once. */
  | 'paid_at_once'
  /** `0002`: refused, `account_invalid`. */
  | 'account_invalid'
  /** `0003`: in transit for {@link SANDBOX_PAYOUT_IN_TRANSIT_MS}, then paid. */
  | 'in_transit_then_paid'
  /** `0005`: the rail is down for {@link SANDBOX_PAYOUT_RAIL_DOWN_MS} after the first attempt; sent after it, paid. */
  | 'rail_down_then_paid'
  /**
   * `0007`: the send's answer is lost (it was taken); asked about, unknown for {@link SANDBOX_PAYOUT_UNKNOWN_MS},
   * then paid.
   */
  | 'unknown_then_paid'
  /** `0009`: paid at once, then returned {@link SANDBOX_PAYOUT_RETURN_AFTER_MS} later. */
  | 'paid_then_returned'
  /** Any other ending: in transit for the simulators' approval delay, then paid. */
  | 'paid_after_delay';

/** `0003`: how long the payout stays in transit, in milliseconds (60 s). */
export const SANDBOX_PAYOUT_IN_TRANSIT_MS = 60_000;
/** `0005`: how long the rail stays down after the first attempt, in milliseconds (60 s). */
export const SANDBOX_PAYOUT_RAIL_DOWN_MS = 60_000;
/** `0007`: how long the answer stays unknown after the send, in milliseconds (about 20 s). */
export const SANDBOX_PAYOUT_UNKNOWN_MS = 20_000;
/** `0009`: how long after it was paid the payout comes back, in milliseconds (30 s). */
export const SANDBOX_PAYOUT_RETURN_AFTER_MS = 30_000;

/** The behaviour of a destination whose national number or account number ends in `ending` (its last 4 digits). */
export function payoutBehaviourForEnding(ending: string): SandboxPayoutBehaviour {
  switch (ending.replace(/[^0-9]/g, '').slice(-4)) {
    case '0001':
      return 'paid_at_once';
    case '0002':
      return 'account_invalid';
    case '0003':
      return 'in_transit_then_paid';
    case '0005':
      return 'rail_down_then_paid';
    case '0007':
      return 'unknown_then_paid';
    case '0009':
      return 'paid_then_returned';
    default:
      return 'paid_after_delay';
  }
}

/** What the simulated rail says about a payout at one moment. */
export interface SandboxPayoutState {
  outcome: PayoutStatusOutcome;
  failureCode?: PayoutFailureCode;
  failureMessage?: string;
}

/** What the simulated rail does with a send at `now` when it first saw the payout at `firstAttemptAt`. */
export type SandboxPayoutSend = 'take' | 'rail_down';

/**
 * Whether the rail takes a send of a payout of `behaviour` at `now`, the payout's first attempt having been at
 * `firstAttemptAt`: only `0005` refuses it (the rail is down) for {@link SANDBOX_PAYOUT_RAIL_DOWN_MS}.
 */
export function sandboxPayoutSendAt(
  behaviour: SandboxPayoutBehaviour,
  firstAttemptAt: Date,
  now: Date,
): SandboxPayoutSend {
  if (behaviour !== 'rail_down_then_paid') return 'take';
  return now.getTime() - firstAttemptAt.getTime() < SANDBOX_PAYOUT_RAIL_DOWN_MS ? 'rail_down' : 'take';
}

/**
 * What the rail says at `now` about a payout of `behaviour` it took at `takenAt` (null: never taken, so
 * `not_received`). `delayMs` is the in-transit time of endings without a scenario (milliseconds).
 */
export function sandboxPayoutStateAt(
  behaviour: SandboxPayoutBehaviour,
  takenAt: Date | null,
  now: Date,
  delayMs: number,
): SandboxPayoutState {
  if (takenAt === null) return { outcome: 'not_received' };
  const elapsed = now.getTime() - takenAt.getTime();
  switch (behaviour) {
    case 'account_invalid':
      return {
        outcome: 'refused',
        failureCode: 'account_invalid',
        failureMessage: 'The sandbox rail has no account with this number',
      };
    case 'in_transit_then_paid':
      return { outcome: elapsed < SANDBOX_PAYOUT_IN_TRANSIT_MS ? 'in_transit' : 'paid' };
    case 'unknown_then_paid':
      return { outcome: elapsed < SANDBOX_PAYOUT_UNKNOWN_MS ? 'unknown' : 'paid' };
    case 'paid_then_returned':
      return { outcome: elapsed < SANDBOX_PAYOUT_RETURN_AFTER_MS ? 'paid' : 'returned' };
    case 'paid_after_delay':
      return { outcome: elapsed < delayMs ? 'in_transit' : 'paid' };
    default:
      // paid_at_once, and rail_down_then_paid once the rail took it.
      return { outcome: 'paid' };
  }
}

/** What a sandbox payout rail records of one payout (docs/payouts.md#sandbox-destinations). Amount in minor units. */
export interface SandboxPayoutRecord {
  /** The rail's reference, derived from the payout id (`{code}_` + 24 base62), primary key. */
  provider_reference: string;
  /** The provider code of the rail (`momo`, `mobile_money_b`, `bank_transfer`). */
  provider: string;
  payout_id: string;
  amount: number;
  currency: string;
  destination_type: string;
  /** The last four digits of the destination's number, which chose `behaviour`. */
  destination_ending: string;
  behaviour: SandboxPayoutBehaviour;
  /** When the rail first saw a send of it. */
  first_attempt_at: Date;
  /** When the rail took it; null while the simulated rail was down for every send so far. */
  taken_at: Date | null;
}
