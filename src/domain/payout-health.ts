/**
 * A payout's part in operator health (docs/availability.md#payouts): the provider, country and operation its rail is
 * measured and shown under, whose a payout's failure is, the decided outcome the payout table records when a payout
 * is paid or failed, and the words a payout waiting for a `down` rail shows. Pure: safe inside the workflow sandbox.
 */
import { GENERIC_CATALOGUE, servesCountry, type ProviderCode } from './catalogue';
import { countriesOfCurrency } from './create-payment';
import type { PayoutSnapshot } from './payout';
import type { PayoutFailureCode } from './payout-rail';
import {
  PAYOUT_FAILURE_SIDE,
  type DecidedAttempt,
  type HealthKey,
  type OutcomeSide,
  type ProviderStatus,
} from './provider-health';

/**
 * The health key of a payout's rail (docs/availability.md#payouts): its provider, the one country it serves whose
 * wallets hold the payout's currency (every rail pays in the wallet's own currency: RWF → RW, KES → KE; Airtel's XOF →
 * NE), operation `payout`; undefined when the rail pays that currency in several countries (MTN's XOF: CI and BJ),
 * whose payouts are then not measured.
 */
export function payoutHealthKey(payout: Pick<PayoutSnapshot, 'provider' | 'currency'>): HealthKey | undefined {
  const provider = payout.provider as ProviderCode;
  const served = GENERIC_CATALOGUE.mobile_money.find((offering) => offering.provider === provider);
  const countries = countriesOfCurrency(payout.currency).filter((country) => !served || servesCountry(served, country));
  return countries.length === 1 ? { provider, country: countries[0] as string, operation: 'payout' } : undefined;
}

/**
 * Whose a payout's failure is (docs/availability.md#classification): the side of the provider's own reason when the
 * rail named one (`reasonSide`, from src/providers/failure-sides.ts), else of our failure code (PAYOUT_FAILURE_SIDE).
 */
export function payoutFailureSide(failureCode: PayoutFailureCode, reasonSide?: OutcomeSide): OutcomeSide {
  return reasonSide ?? PAYOUT_FAILURE_SIDE[failureCode];
}

/** A decided payout as operator health records it: under its rail's key, once per payout. */
export interface PayoutOutcome {
  key: HealthKey;
  attempt: DecidedAttempt;
}

/**
 * The decided outcome of `payout` as a row of the payout table left it `paid` or `failed` at `at` (ISO 8601 UTC),
 * docs/availability.md#payouts: a success, or a failure on the side of {@link payoutFailureSide}; seconds from our
 * first request that the rail answered (`firstRequestAt`, else when it went in transit, else its creation) to `at`.
 * Every decided payout reached its rail (the rail's answer decided it), so none is `neverReached`.
 * @returns the outcome; undefined for any other status, or a payout without a health key
 */
export function payoutDecidedOutcome(
  payout: PayoutSnapshot,
  at: string,
  reasonSide?: OutcomeSide,
): PayoutOutcome | undefined {
  const key = payoutHealthKey(payout);
  if (!key || (payout.status !== 'paid' && payout.status !== 'failed')) return undefined;
  const decidedAt = Date.parse(at);
  const from = Date.parse(payout.firstRequestAt ?? payout.inTransitAt ?? payout.createdAt);
  const failed = payout.status === 'failed';
  return {
    key,
    attempt: {
      decidedAt,
      seconds: Math.max(0, decidedAt - from) / 1000,
      outcome: failed ? 'failure' : 'success',
      side: failed ? payoutFailureSide(payout.failureCode ?? 'declined', reasonSide) : null,
      neverReached: false,
    },
  };
}

/**
 * How long a payout waits for a `down` rail before asking its status again (docs/payouts.md#rail-down), in
 * milliseconds: 30 s, the interval the status is measured at, so a rail back up is used within a measurement.
 */
export const RAIL_DOWN_RECHECK_MS = 30_000;

/** The status a rail shows before a send (docs/payouts.md#rail-down), and an operator's reason. */
export interface RailHealth {
  status: ProviderStatus;
  reason: string | null;
}

/**
 * The `pending_reason` of a payout waiting for its `down` rail (docs/payouts.md#rail-down), e.g. "the momo payout rail
 * in RW is down (MTN maintenance); the payout is sent when it is back".
 */
export function railDownReason(key: HealthKey, reason: string | null): string {
  const why = reason ? ` (${reason.slice(0, 200)})` : '';
  return `the ${key.provider} payout rail in ${key.country} is down${why}; the payout is sent when it is back`;
}
