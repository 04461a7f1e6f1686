/**
 * The payout rail boundary (docs/payouts.md#rails): the capability a provider offers to pay a merchant's money
 * out to a destination, as the collection adapters of ./provider.ts offer collecting. One rail per provider that
 * declares `payouts` in its descriptor (its folder's adapter in live, ./sandbox/payout-simulator.ts in the sandbox).
 *
 * Every rail keeps the same promises:
 * - the provider's reference derives from the payout id alone, so a send repeated for one payout (a retried
 *   activity, a worker killed after the provider took it) names the same transfer and the provider's own
 *   duplicate check answers: nothing is ever paid twice;
 * - answers are values, never guesses: `unknown` when the provider may have the payout and did not say (time-out,
 *   5xx, an ambiguous code), and the caller then asks with {@link PayoutRail.payoutStatus}, never sends again;
 * - {@link PayoutRailUnavailable} only when the provider certainly did not get the payout (it could not even be
 *   sent: our credentials refused, the rail down, no live rail), so the payout waits and is sent later.
 */
import type { ProviderCode } from '../domain/catalogue';
import type { Currency } from '../domain/money';
import type {
  PayoutDestination,
  PayoutFailureCode,
  PayoutSendOutcome,
  PayoutStatusOutcome,
} from '../domain/payout-rail';

/** A payout to send: `amount` minor units of `currency` to `destination`. */
export interface PayoutRequest {
  /** Our payout id (`po_…`); the provider's reference derives from it (docs/payouts.md#rails). */
  payoutId: string;
  /** Minor units, positive. */
  amount: number;
  currency: Currency;
  destination: PayoutDestination;
  /** Text for the recipient's statement (the rail trims it to what the provider takes). */
  description?: string;
  /** Where the provider's callbacks go (`…/v1/provider-callbacks/{code}`), or null for none; callbacks are hints. */
  callbackUrl: string | null;
}

/** A rail's answer about one payout: the outcome, the provider's reference and, for a refusal, why. */
export interface PayoutAnswer<Outcome extends string = PayoutStatusOutcome> {
  outcome: Outcome;
  /** The provider's reference of the transfer, derived from the payout id (the same on every attempt). */
  providerReference: string;
  /** Set when `outcome` is `refused`. */
  failureCode?: PayoutFailureCode;
  /** Set when `outcome` is `refused` (the provider's reason, readable), or to say why it is `unknown`. */
  failureMessage?: string;
  /**
   * The provider's own reason for a refusal, as its API sends it (`PAYEE_NOT_FOUND`, `DP00900001012`, ResultCode
   * `2001`), when it gave one: whose it is decides the outcome's side for operator health (./failure-sides.ts).
   */
  providerReason?: string;
}

/** The answer to a send: `paid`, `in_transit`, `refused` or `unknown` (docs/payouts.md#rails). */
export type PayoutSendAnswer = PayoutAnswer<PayoutSendOutcome>;

/** Whether the provider knows a wallet's holder: `verified` (registered and active), `unverified` (not), `unknown`. */
export type AccountHolderVerification = 'verified' | 'unverified' | 'unknown';

/** A balance the provider reports for our own account on a rail, in minor units. */
export interface RailBalance {
  amount: number;
  currency: Currency;
}

/** One provider's payout rail (see the module's comment). */
export interface PayoutRail {
  readonly code: ProviderCode;
  /**
   * Sends the payout. Sending again for the same payout id names the same transfer (the provider answers with
   * it); the caller still never sends again after `unknown`, but asks with {@link payoutStatus}.
   * @throws PayoutRailUnavailable when the provider certainly did not get it (send it later)
   */
  sendPayout(request: PayoutRequest): Promise<PayoutSendAnswer>;
  /**
   * What the provider says now of the payout `providerReference` (as {@link sendPayout} gave it): the send
   * outcomes, `returned` where the provider reports a reversal, `not_received` where it has no such payout.
   * Never throws for the provider's silence: that is `unknown`.
   */
  payoutStatus(providerReference: string): Promise<PayoutAnswer>;
  /** Whether `msisdn` (E.164) is a registered, active wallet; absent where the provider cannot say. */
  verifyAccountHolder?(msisdn: string): Promise<AccountHolderVerification>;
  /**
   * Our disbursement account's balance at the provider (reconciliation by balance); absent where it reports none.
   * @throws Error when the provider does not answer
   */
  balance?(): Promise<RailBalance>;
}

/**
 * The provider certainly did not get the payout, and will not act on it: the rail is down, our credentials were
 * refused before anything was sent, or there is no live rail (`provider_unavailable`). The payout stays `pending`
 * and is sent again later (docs/payouts.md#rails).
 */
export class PayoutRailUnavailable extends Error {
  constructor(
    message: string,
    /** How long to wait before sending again, in milliseconds, when the rail says; else undefined. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'PayoutRailUnavailable';
  }
}
