/**
 * Operator health from the service's own traffic (docs/availability.md): which decided attempts count as the
 * provider's failure, the bucket of recent outcomes each provider, country and operation is judged by, and the status
 * it gives with its thresholds and hysteresis. Pure: no clock, no I/O; the caller passes `now` (epoch milliseconds).
 *
 * The words: an *attempt* is one request of ours to a provider (a collection, a payout, a refund); it is *decided*
 * once the table that owns it reached a final outcome. A *provider failure* is an outcome the provider caused: its
 * error or refusal for reasons of its own, a time-out, an unknown answer, a request that never reached it. The payer's
 * decline, lack of funds, wrong PIN or silence, and the merchant's cancel, are never provider failures.
 */
import { PROVIDER_DESCRIPTORS } from '../providers/descriptors';
import type { ProviderCode } from './catalogue';
import type { Environment } from './environment';
import type { FailureCode } from './payment';
import type { PayoutFailureCode } from './payout-rail';
import type { ProviderDescriptor } from './provider-descriptor';

/** The operations measured per provider and country. */
export const HEALTH_OPERATIONS = ['collection', 'payout', 'refund'] as const;
/** One measured operation. */
export type HealthOperation = (typeof HEALTH_OPERATIONS)[number];

/** A provider's status as merchants and payers see it (docs/availability.md#statuses). */
export type ProviderStatus = 'operational' | 'degraded' | 'down';

/**
 * An operator's status for one key, shown instead of the measured one until cleared, with the reason given and who set
 * it (docs/availability.md#overrides).
 */
export interface StatusOverride {
  status: ProviderStatus;
  reason: string;
  /** Who set it: the operator's name as the admin command was given it (`--operator`). */
  by: string;
}

/**
 * Whose an outcome is: `provider` (the operator's own error, refusal for reasons of its own, silence: counts against
 * it), `payer` (the payer's or payee's decline, funds, PIN, silence, wrong account), `platform` (our own set-up at the
 * operator: credentials, float, registered callback host; our alert, not the operator's status).
 */
export type OutcomeSide = 'provider' | 'payer' | 'platform';

/**
 * Every payment failure code and whose it is (docs/availability.md#classification). Typed by the code's union, so a
 * new code left out of it does not compile, and a test walks the list.
 */
export const PAYMENT_FAILURE_SIDE: Readonly<Record<FailureCode, OutcomeSide>> = {
  declined: 'payer',
  card_declined: 'payer',
  insufficient_funds: 'payer',
  // The payer's silence, unless the provider's last word was no answer at all (see paymentFailureSide).
  expired: 'payer',
  provider_error: 'provider',
};

/** Every payout failure code and whose it is (docs/availability.md#classification). */
export const PAYOUT_FAILURE_SIDE: Readonly<Record<PayoutFailureCode, OutcomeSide>> = {
  account_invalid: 'payer',
  account_restricted: 'payer',
  amount_invalid: 'payer',
  platform_funds: 'platform',
  declined: 'payer',
  provider_error: 'provider',
};

/** One decided attempt as the health bucket keeps it. */
export interface DecidedAttempt {
  /** When it was decided, epoch milliseconds. */
  decidedAt: number;
  /** Seconds from our first request to the provider to the final outcome. */
  seconds: number;
  /** `success`: the provider did it; `failure`: it did not, on `side`. */
  outcome: 'success' | 'failure';
  /** Whose failure it was; null for a success. */
  side: OutcomeSide | null;
  /** True when no request of the attempt reached the provider (a refused connection, a DNS error, a proxy's 5xx). */
  neverReached: boolean;
}

/**
 * Whose a payment's failure is: the side of the provider's own reason when the adapter named one (`reasonSide`, from
 * src/providers/failure-sides.ts), else of our failure code; an expiry whose provider never answered our requests
 * (`lastWordUnknown`: time-outs, errors) is the provider's silence, not the payer's; a request that never reached the
 * provider is the provider's.
 */
export function paymentFailureSide(
  failureCode: FailureCode,
  facts: { reasonSide?: OutcomeSide | undefined; lastWordUnknown: boolean; neverReached: boolean },
): OutcomeSide {
  if (facts.neverReached) return 'provider';
  if (failureCode === 'expired' && facts.lastWordUnknown) return 'provider';
  return facts.reasonSide ?? PAYMENT_FAILURE_SIDE[failureCode];
}

/**
 * What the payment's run knows of an attempt when it is decided (docs/availability.md#classification), carried across
 * its continue-as-new: when we first asked the provider, whether its last word was unknown, whether any request reached
 * it, and whose the failure was when the run knows it without a provider's reason.
 */
export interface AttemptFacts {
  /** When we first asked the provider (ISO 8601 UTC): where the attempt's duration starts. */
  firstRequestAt: string;
  /**
   * The provider's last word about the open payment was no usable answer (time-outs, 5xx, undocumented bodies), or it
   * gave none after it took the request: an expiry is then its silence, not the payer's.
   */
  lastWordUnknown: boolean;
  /** No request of the attempt reached the provider (a refused connection, a DNS error, a proxy's 5xx). */
  neverReached: boolean;
  /** `platform` when the provider refused our own credentials (known from the failure, not from a reason). */
  side?: OutcomeSide;
}

/** The facts of an attempt that began at `firstRequestAt` and of which nothing else is known yet. */
export function freshAttempt(firstRequestAt: string): AttemptFacts {
  return { firstRequestAt, lastWordUnknown: false, neverReached: false };
}

/** A row's `record_outcome` order as the writer gets it (src/domain/payment-table.ts `OutcomeOrder`). */
export interface OutcomeOrderLike {
  operation: 'collection' | 'refund';
  outcome: 'success' | 'failure';
  reason?: string;
}

/**
 * The decided attempt a row's `record_outcome` order makes at `decidedAt` (epoch ms), with the run's `facts`
 * (docs/availability.md#classification): a success has no side; a collection's failure is {@link paymentFailureSide}'s
 * (`providerReasonSide`: the side src/providers/failure-sides.ts gives the provider's reason, else the run's own
 * `side`, else the failure code's); a payer's cancel at the provider (no failure code) is the payer's; a refund's
 * refusal is the provider's unless its reason says otherwise. Seconds from `facts.firstRequestAt`, never negative.
 */
export function decidedAttemptOf(
  order: OutcomeOrderLike,
  facts: AttemptFacts,
  failureCode: FailureCode | null,
  providerReasonSide: OutcomeSide | undefined,
  decidedAt: number,
): DecidedAttempt {
  const seconds = Math.max(0, (decidedAt - Date.parse(facts.firstRequestAt)) / 1000);
  const attempt = { decidedAt, seconds, neverReached: facts.neverReached };
  if (order.outcome === 'success') return { ...attempt, outcome: 'success', side: null };
  const reasonSide = providerReasonSide ?? facts.side;
  let side: OutcomeSide;
  if (order.operation === 'refund') side = facts.neverReached ? 'provider' : (reasonSide ?? 'provider');
  else if (failureCode === null) side = facts.neverReached ? 'provider' : 'payer';
  else side = paymentFailureSide(failureCode, { reasonSide, ...facts });
  return { ...attempt, outcome: 'failure', side };
}

/** The bucket's size and age: the most recent 50 decided attempts within the last 10 minutes. */
export const BUCKET = { size: 50, maxAgeMs: 10 * 60_000, judgedFrom: 20 } as const;

/**
 * Thresholds (docs/availability.md#statuses): `degraded` above 20 % provider failures or p95 over 3 × its 24-hour
 * median; `down` above 60 % or 5 attempts in a row that never reached the provider; better again only after 5
 * minutes within the better status's bounds; at most one change per 5 minutes, but for a fall to `down`.
 */
export const THRESHOLDS = {
  degradedFailureShare: 0.2,
  downFailureShare: 0.6,
  slowFactor: 3,
  neverReachedInARow: 5,
  recoveryMs: 5 * 60_000,
  minChangeIntervalMs: 5 * 60_000,
} as const;

/** What a bucket says: counts, shares and percentiles (seconds); `successRate` null without attempts. */
export interface BucketFigures {
  attempts: number;
  successes: number;
  providerFailures: number;
  successRate: number | null;
  providerFailureShare: number | null;
  p50Seconds: number | null;
  p95Seconds: number | null;
  /** How many of the most recent attempts in a row never reached the provider. */
  neverReachedInARow: number;
}

/** The nearest-rank percentile `p` (0–1) of ascending `sorted`; null when empty. */
function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] as number;
}

/** The bucket of `attempts` (any order) at `now`: the most recent {@link BUCKET}.size within its age, with figures. */
export function bucketFigures(attempts: readonly DecidedAttempt[], now: number): BucketFigures {
  const recent = attempts
    .filter((a) => a.decidedAt <= now && now - a.decidedAt <= BUCKET.maxAgeMs)
    .sort((a, b) => b.decidedAt - a.decidedAt)
    .slice(0, BUCKET.size);
  const successes = recent.filter((a) => a.outcome === 'success').length;
  const providerFailures = recent.filter((a) => a.side === 'provider').length;
  const seconds = recent.map((a) => a.seconds).sort((a, b) => a - b);
  let inARow = 0;
  while (inARow < recent.length && recent[inARow]?.neverReached) inARow += 1;
  return {
    attempts: recent.length,
    successes,
    providerFailures,
    successRate: recent.length ? successes / recent.length : null,
    providerFailureShare: recent.length ? providerFailures / recent.length : null,
    p50Seconds: percentile(seconds, 0.5),
    p95Seconds: percentile(seconds, 0.95),
    neverReachedInARow: inARow,
  };
}

/** The status the figures alone point to, before hysteresis; `typicalP95Seconds`: p95's 24-hour median, if known. */
export function statusOfFigures(figures: BucketFigures, typicalP95Seconds: number | null): ProviderStatus {
  if (figures.neverReachedInARow >= THRESHOLDS.neverReachedInARow) return 'down';
  if (figures.attempts < BUCKET.judgedFrom) return 'operational';
  const share = figures.providerFailureShare ?? 0;
  if (share > THRESHOLDS.downFailureShare) return 'down';
  const slow =
    typicalP95Seconds !== null &&
    typicalP95Seconds > 0 &&
    figures.p95Seconds !== null &&
    figures.p95Seconds > THRESHOLDS.slowFactor * typicalP95Seconds;
  return share > THRESHOLDS.degradedFailureShare || slow ? 'degraded' : 'operational';
}

/** A status with what hysteresis needs: since when (epoch ms), and since when the figures were last worse than it. */
export interface HealthState {
  status: ProviderStatus;
  since: number;
  /** Since when the figures have pointed to a better status than `status` without a break; null when they do not. */
  betterSince: number | null;
}

/** Each status's level, worse higher: the order hysteresis compares, and the value of `paycollect_provider_status`. */
export const STATUS_LEVEL: Readonly<Record<ProviderStatus, number>> = { operational: 0, degraded: 1, down: 2 };

/**
 * The next state from `state` given what the figures point to at `now` (docs/availability.md#statuses): a worse status
 * at once, but no second change within 5 minutes unless it is a fall to `down`; a better one once the figures have
 * pointed to it (or better) for 5 minutes without a break, and 5 minutes after the last change.
 */
export function nextHealth(state: HealthState, pointsTo: ProviderStatus, now: number): HealthState {
  const sinceLastChange = now - state.since;
  if (STATUS_LEVEL[pointsTo] > STATUS_LEVEL[state.status]) {
    if (pointsTo !== 'down' && sinceLastChange < THRESHOLDS.minChangeIntervalMs) return { ...state, betterSince: null };
    return { status: pointsTo, since: now, betterSince: null };
  }
  if (STATUS_LEVEL[pointsTo] === STATUS_LEVEL[state.status]) return { ...state, betterSince: null };
  const betterSince = state.betterSince ?? now;
  if (now - betterSince >= THRESHOLDS.recoveryMs && sinceLastChange >= THRESHOLDS.minChangeIntervalMs)
    return { status: pointsTo, since: now, betterSince: null };
  return { ...state, betterSince };
}

/** One measured line: a provider in a country for an operation (country ISO 3166 alpha-2). */
export interface HealthKey {
  provider: ProviderCode;
  country: string;
  operation: HealthOperation;
}

/**
 * Every provider, country and operation `environment` serves (docs/availability.md#api), in the descriptors' order:
 * collections where a provider is offered in named countries, refunds where it refunds, payouts where it has a rail
 * (live: only what the live adapter does; sandbox: the simulators do everything). A provider offered everywhere (`*`,
 * the card gateway and the wallet) has no country to judge by and is not measured.
 */
export function servedHealthKeys(environment: Environment): HealthKey[] {
  const keys: HealthKey[] = [];
  for (const descriptor of PROVIDER_DESCRIPTORS as readonly (ProviderDescriptor & { code: ProviderCode })[]) {
    const reach = [descriptor.generic?.countries, descriptor.merchant?.countries];
    const countries = [...new Set(reach.flatMap((countries) => (Array.isArray(countries) ? countries : [])))];
    if (environment === 'live' && !descriptor.live) continue;
    const refunds = environment === 'sandbox' || descriptor.live?.refund === true;
    const payouts = descriptor.payouts !== null && (environment === 'sandbox' || descriptor.payouts.live);
    for (const country of countries) {
      const operations: HealthOperation[] = [
        'collection',
        ...(refunds ? ['refund' as const] : []),
        ...(payouts ? ['payout' as const] : []),
      ];
      for (const operation of HEALTH_OPERATIONS)
        if (operations.includes(operation)) keys.push({ provider: descriptor.code, country, operation });
    }
  }
  return keys;
}

/** One changed status of a measurement: the key, and the status shown before and after. */
export interface StatusChange extends HealthKey {
  from: ProviderStatus;
  to: ProviderStatus;
}

/** One row of `GET /v1/availability` (docs/availability.md#api); times ISO 8601 UTC, seconds, a 0–1 fraction. */
export interface AvailabilityRow extends HealthKey {
  status: ProviderStatus;
  since: string | null;
  successRate: number | null;
  p50Seconds: number | null;
  p95Seconds: number | null;
  windowAttempts: number;
  reason: string | null;
}

/** The event of a changed status (docs/availability.md#events). */
export const STATUS_CHANGED_EVENT = 'provider.status_changed';

/**
 * The `data` of a `provider.status_changed` event (docs/availability.md#events): the key, the status shown now and
 * before, when it changed (ISO 8601 UTC), why (the figures, or an operator's reason), and the bucket's success rate
 * (0–1, null without attempts) and size then.
 */
export interface StatusChangedData {
  provider: ProviderCode;
  country: string;
  operation: HealthOperation;
  status: ProviderStatus;
  previous_status: ProviderStatus;
  since: string;
  reason: string | null;
  success_rate: number | null;
  window_attempts: number;
}

/** One recorded change of a key's shown status: when (epoch ms), from what, to what, why. */
export interface RecordedChange extends HealthKey {
  at: number;
  from: ProviderStatus;
  to: ProviderStatus;
  reason: string | null;
}

/** The days the status page shows (docs/availability.md#status-page). */
export const STATUS_PAGE_DAYS = 90;

/**
 * The worst status a key showed on each UTC day of the `days` days ending with the day of `now` (epoch ms), oldest
 * first (docs/availability.md#status-page): the status at the day's start (the last earlier change's, else the first
 * change's `from`, else `current`) or any status a change of that day went to, whichever is worse.
 * @param changes the key's changes, any order
 * @param current the status the key shows now
 */
export function dailyWorst(
  changes: readonly Pick<RecordedChange, 'at' | 'from' | 'to'>[],
  current: ProviderStatus,
  now: number,
  days: number = STATUS_PAGE_DAYS,
): ProviderStatus[] {
  const sorted = [...changes].sort((a, b) => a.at - b.at);
  const today = Math.floor(now / 86_400_000) * 86_400_000;
  const result: ProviderStatus[] = [];
  for (let d = days - 1; d >= 0; d -= 1) {
    const start = today - d * 86_400_000;
    const end = start + 86_400_000;
    const before = sorted.filter((c) => c.at < start).pop();
    let worst: ProviderStatus = before?.to ?? sorted[0]?.from ?? current;
    for (const change of sorted)
      if (change.at >= start && change.at < end && STATUS_LEVEL[change.to] > STATUS_LEVEL[worst]) worst = change.to;
    result.push(worst);
  }
  return result;
}

/** What the public status page shows (docs/availability.md#status-page). */
export interface StatusPage {
  /** Every served key of the live environment: its status now, an operator's reason, its worst status each day. */
  rows: (AvailabilityRow & { days: ProviderStatus[] })[];
  /** The changes of the last {@link STATUS_PAGE_DAYS} days, newest first. */
  incidents: RecordedChange[];
  /** The first day shown, `YYYY-MM-DD` (UTC). */
  firstDay: string;
}
