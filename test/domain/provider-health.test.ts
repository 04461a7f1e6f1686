/**
 * Operator health (docs/availability.md): every failure code and every provider reason classified, the bucket's
 * figures, the thresholds, and the hysteresis, including random sequences (fast-check) that never change a status twice
 * within 5 minutes but for a fall to `down`.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { FAILURE_CODES } from '../../src/domain/payment';
import { PAYOUT_FAILURE_CODES } from '../../src/domain/payout-rail';
import {
  BUCKET,
  bucketFigures,
  dailyWorst,
  decidedAttemptOf,
  freshAttempt,
  nextHealth,
  PAYMENT_FAILURE_SIDE,
  paymentFailureSide,
  PAYOUT_FAILURE_SIDE,
  statusOfFigures,
  THRESHOLDS,
  type DecidedAttempt,
  type HealthState,
  type OutcomeSide,
  type ProviderStatus,
} from '../../src/domain/provider-health';
import { FAILURE_RESPONSE_CODES } from '../../src/providers/airtel/statuses';
import { DISBURSEMENT_REFUSALS } from '../../src/providers/airtel/payout-statuses';
import { FAILURE_REASON_SIDES, failureReasonSide } from '../../src/providers/failure-sides';
import { MOMO_REASONS } from '../../src/providers/momo/statuses';
import { MOMO_TRANSFER_REASONS } from '../../src/providers/momo/payout-statuses';
import { MPESA_RESULT_CODES } from '../../src/providers/mpesa/statuses';
import { B2C_REFUSALS as VODACOM_B2C_REFUSALS } from '../../src/providers/vodacom/b2c';
import { VODACOM_RESULT_CODES } from '../../src/providers/vodacom/statuses';
import { B2C_REFUSALS } from '../../src/providers/mpesa/payout-statuses';
import { ORANGE_FAILURES } from '../../src/providers/orange/statuses';
import { WAVE_PAYMENT_ERRORS } from '../../src/providers/wave/statuses';
import { WAVE_PAYOUT_ERRORS } from '../../src/providers/wave/payout';

const MINUTE = 60_000;
const NOW = Date.parse('2026-11-29T12:00:00Z');

/** `count` decided attempts, one a second back from `now`; `failEvery`-th a provider failure (0: none). */
function attempts(count: number, options: { failEvery?: number; seconds?: number; now?: number } = {}) {
  const now = options.now ?? NOW;
  return Array.from({ length: count }, (_, i): DecidedAttempt => ({
    decidedAt: now - i * 1000,
    seconds: options.seconds ?? 10,
    outcome: options.failEvery && i % options.failEvery === 0 ? 'failure' : 'success',
    side: options.failEvery && i % options.failEvery === 0 ? 'provider' : null,
    neverReached: false,
  }));
}

describe('operator health: classification', () => {
  it('gives every payment and payout failure code a side', () => {
    for (const code of FAILURE_CODES) expect(PAYMENT_FAILURE_SIDE[code], code).to.be.oneOf(['provider', 'payer']);
    for (const code of PAYOUT_FAILURE_CODES)
      expect(PAYOUT_FAILURE_SIDE[code], code).to.be.oneOf(['provider', 'payer', 'platform']);
    expect(Object.keys(PAYMENT_FAILURE_SIDE)).to.have.members([...FAILURE_CODES]);
    expect(Object.keys(PAYOUT_FAILURE_SIDE)).to.have.members([...PAYOUT_FAILURE_CODES]);
  });

  it('classifies exactly the reasons each provider table reads, and agrees with their codes', () => {
    const tables: [string, 'collection' | 'payout', Record<string, string>][] = [
      ['momo', 'collection', Object.fromEntries(Object.entries(MOMO_REASONS).map(([k, v]) => [k, v.failureCode]))],
      ['momo', 'payout', { ...MOMO_TRANSFER_REASONS }],
      ['mobile_money_b', 'collection', { ...FAILURE_RESPONSE_CODES }],
      ['mobile_money_b', 'payout', { ...DISBURSEMENT_REFUSALS }],
      [
        'mpesa',
        'collection',
        Object.fromEntries(Object.entries(MPESA_RESULT_CODES).map(([k, v]) => [k, v.failureCode])),
      ],
      ['mpesa', 'payout', Object.fromEntries(Object.entries(B2C_REFUSALS).map(([k, v]) => [k, v.failureCode]))],
      ['orange', 'collection', Object.fromEntries(Object.entries(ORANGE_FAILURES).map(([k, v]) => [k, v.failureCode]))],
      [
        'vodacom',
        'collection',
        Object.fromEntries(Object.entries(VODACOM_RESULT_CODES).map(([k, v]) => [k, v.failureCode])),
      ],
      [
        'vodacom',
        'payout',
        Object.fromEntries(Object.entries(VODACOM_B2C_REFUSALS).map(([k, v]) => [k, v.failureCode])),
      ],
      ['wave', 'collection', { ...WAVE_PAYMENT_ERRORS }],
      ['wave', 'payout', { ...WAVE_PAYOUT_ERRORS }],
    ];
    for (const [provider, operation, reasons] of tables) {
      const sides = (FAILURE_REASON_SIDES as Record<string, Record<string, Record<string, OutcomeSide>>>)[provider]?.[
        operation
      ];
      expect(Object.keys(sides ?? {}), `${provider} ${operation}`).to.have.members(Object.keys(reasons));
      for (const [reason, code] of Object.entries(reasons)) {
        const side = sides?.[reason];
        // A payer's code is never the provider's failure; our provider_error may be the provider's or our set-up's.
        if (code === 'provider_error') expect(side, `${provider} ${reason}`).to.be.oneOf(['provider', 'platform']);
        else if (code !== 'platform_funds') expect(side, `${provider} ${reason}`).to.be.oneOf(['payer', 'platform']);
      }
    }
    expect(failureReasonSide('momo', 'collection', 'NOT_ENOUGH_FUNDS')).to.equal('payer');
    expect(failureReasonSide('momo', 'collection', 'SERVICE_UNAVAILABLE')).to.equal('provider');
    expect(failureReasonSide('momo', 'refund', 'SERVICE_UNAVAILABLE')).to.equal(undefined);
  });

  it("counts an expiry as the payer's silence unless the provider never answered", () => {
    expect(paymentFailureSide('expired', { lastWordUnknown: false, neverReached: false })).to.equal('payer');
    expect(paymentFailureSide('expired', { lastWordUnknown: true, neverReached: false })).to.equal('provider');
    expect(paymentFailureSide('declined', { lastWordUnknown: true, neverReached: false })).to.equal('payer');
    expect(paymentFailureSide('declined', { lastWordUnknown: false, neverReached: true })).to.equal('provider');
    expect(
      paymentFailureSide('provider_error', { reasonSide: 'platform', lastWordUnknown: false, neverReached: false }),
    ).to.equal('platform');
  });
});

describe('operator health: the decided attempt a row records (docs/availability.md#recording)', () => {
  const start = '2026-11-29T12:00:00.000Z';
  const at = Date.parse(start) + 42_500;
  const collection = { operation: 'collection' as const, outcome: 'failure' as const };

  it('counts seconds from the first request, a success without a side', () => {
    expect(
      decidedAttemptOf({ ...collection, outcome: 'success' }, freshAttempt(start), null, undefined, at),
    ).to.deep.equal({ decidedAt: at, seconds: 42.5, outcome: 'success', side: null, neverReached: false });
    // A clock that went back never makes a negative duration.
    expect(
      decidedAttemptOf(collection, freshAttempt(start), 'declined', undefined, Date.parse(start) - 1).seconds,
    ).to.equal(0);
  });

  it("gives a failure the provider's reason's side first, then the run's own, then the failure code's", () => {
    const facts = freshAttempt(start);
    const side = (code: Parameters<typeof decidedAttemptOf>[2], reasonSide?: OutcomeSide, own?: OutcomeSide) =>
      decidedAttemptOf(collection, { ...facts, ...(own ? { side: own } : {}) }, code, reasonSide, at).side;
    expect(side('provider_error')).to.equal('provider');
    expect(side('provider_error', 'platform')).to.equal('platform');
    expect(side('provider_error', undefined, 'platform')).to.equal('platform');
    expect(side('declined')).to.equal('payer');
    expect(side('declined', 'provider')).to.equal('provider');
    // A payer's cancel at the provider has no failure code: the payer's.
    expect(side(null)).to.equal('payer');
  });

  it("makes an expiry the provider's when its last word was unknown, and any failure that never reached it", () => {
    const expired = (facts: Partial<ReturnType<typeof freshAttempt>>) =>
      decidedAttemptOf(collection, { ...freshAttempt(start), ...facts }, 'expired', undefined, at);
    expect(expired({}).side).to.equal('payer');
    expect(expired({ lastWordUnknown: true }).side).to.equal('provider');
    expect(expired({ neverReached: true })).to.include({ side: 'provider', neverReached: true });
  });

  it("counts a refund's refusal as the provider's unless its reason says otherwise", () => {
    const refund = { operation: 'refund' as const, outcome: 'failure' as const };
    expect(decidedAttemptOf(refund, freshAttempt(start), 'declined', undefined, at).side).to.equal('provider');
    expect(decidedAttemptOf(refund, freshAttempt(start), null, 'platform', at).side).to.equal('platform');
  });
});

describe('operator health: the bucket', () => {
  it('keeps the most recent 50 within 10 minutes and gives their figures', () => {
    const old = attempts(30, { now: NOW - 11 * MINUTE, failEvery: 1 });
    const figures = bucketFigures([...old, ...attempts(60, { failEvery: 5, seconds: 7 })], NOW);
    expect(figures.attempts).to.equal(BUCKET.size);
    expect(figures.providerFailures).to.equal(10);
    expect(figures.successRate).to.equal(0.8);
    expect(figures.p50Seconds).to.equal(7);
    expect(figures.p95Seconds).to.equal(7);
  });

  it('is empty without attempts: no rate, no percentiles', () => {
    expect(bucketFigures([], NOW)).to.deep.include({ attempts: 0, successRate: null, p95Seconds: null });
  });

  it("never counts payers' declines against the provider", () => {
    const declines = attempts(50).map((a): DecidedAttempt => ({ ...a, outcome: 'failure', side: 'payer' }));
    const figures = bucketFigures(declines, NOW);
    expect(figures.providerFailureShare).to.equal(0);
    expect(statusOfFigures(figures, 10)).to.equal('operational');
  });
});

describe('operator health: thresholds', () => {
  it('is degraded above 20 % provider failures and down above 60 %', () => {
    expect(statusOfFigures(bucketFigures(attempts(50, { failEvery: 5 }), NOW), null)).to.equal('operational');
    expect(statusOfFigures(bucketFigures(attempts(50, { failEvery: 4 }), NOW), null)).to.equal('degraded');
    const mostlyFailing = attempts(50).map((a, i): DecidedAttempt =>
      i < 31 ? { ...a, outcome: 'failure', side: 'provider' } : a,
    );
    expect(statusOfFigures(bucketFigures(mostlyFailing, NOW), null)).to.equal('down');
  });

  it('is degraded when p95 is over 3 × its 24-hour median', () => {
    expect(statusOfFigures(bucketFigures(attempts(50, { seconds: 31 }), NOW), 10)).to.equal('degraded');
    expect(statusOfFigures(bucketFigures(attempts(50, { seconds: 30 }), NOW), 10)).to.equal('operational');
  });

  it('judges from 20 attempts, but 5 in a row that never reached the provider are down at once', () => {
    expect(statusOfFigures(bucketFigures(attempts(19, { failEvery: 1 }), NOW), null)).to.equal('operational');
    expect(statusOfFigures(bucketFigures(attempts(20, { failEvery: 1 }), NOW), null)).to.equal('down');
    const unreached = attempts(5).map((a): DecidedAttempt => ({
      ...a,
      outcome: 'failure',
      side: 'provider',
      neverReached: true,
    }));
    expect(statusOfFigures(bucketFigures(unreached, NOW), null)).to.equal('down');
  });
});

describe('operator health: hysteresis', () => {
  const start: HealthState = { status: 'operational', since: NOW - 60 * MINUTE, betterSince: null };

  it('falls at once and comes back only after 5 minutes within bounds', () => {
    let state = nextHealth(start, 'degraded', NOW);
    expect(state.status).to.equal('degraded');
    state = nextHealth(state, 'operational', NOW + 4 * MINUTE);
    state = nextHealth(state, 'operational', NOW + 8 * MINUTE);
    expect(state.status).to.equal('degraded');
    state = nextHealth(state, 'operational', NOW + 9 * MINUTE);
    expect(state).to.deep.equal({ status: 'operational', since: NOW + 9 * MINUTE, betterSince: null });
  });

  it('restarts the recovery clock when the figures break bounds again', () => {
    let state = nextHealth(start, 'degraded', NOW);
    state = nextHealth(state, 'operational', NOW + 6 * MINUTE);
    state = nextHealth(state, 'degraded', NOW + 7 * MINUTE);
    state = nextHealth(state, 'operational', NOW + 8 * MINUTE);
    expect(nextHealth(state, 'operational', NOW + 12 * MINUTE).status).to.equal('degraded');
    expect(nextHealth(state, 'operational', NOW + 13 * MINUTE).status).to.equal('operational');
  });

  it('falls to down at once, even within 5 minutes of the last change', () => {
    const degraded = nextHealth(start, 'degraded', NOW);
    expect(nextHealth(degraded, 'down', NOW + MINUTE).status).to.equal('down');
  });

  it('changes at most once per 5 minutes unless it falls to down, whatever the figures do', () => {
    const statuses: ProviderStatus[] = ['operational', 'degraded', 'down'];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...statuses), fc.integer({ min: 1, max: 120 })), { maxLength: 200 }),
        (steps) => {
          let state = start;
          let at = NOW;
          for (const [pointsTo, seconds] of steps) {
            at += seconds * 1000;
            const next = nextHealth(state, pointsTo, at);
            if (next.status !== state.status && next.status !== 'down')
              expect(at - state.since).to.be.at.least(THRESHOLDS.minChangeIntervalMs);
            state = next;
          }
        },
      ),
    );
  });
});

describe('operator health: the status page days (docs/availability.md#status-page)', () => {
  const DAY = 86_400_000;
  const now = Date.parse('2031-03-10T12:00:00Z');
  const today = Date.parse('2031-03-10T00:00:00Z');

  it('shows the current status every day when nothing changed', () => {
    expect(dailyWorst([], 'operational', now)).to.deep.equal(Array(90).fill('operational'));
    expect(dailyWorst([], 'down', now, 3)).to.deep.equal(['down', 'down', 'down']);
  });

  it('marks each day by its worst status, carried over midnight until the next change', () => {
    const days = dailyWorst(
      [
        { at: today - 2 * DAY + 3_600_000, from: 'operational', to: 'down' },
        { at: today - DAY + 7_200_000, from: 'down', to: 'degraded' },
        { at: today - DAY + 9_000_000, from: 'degraded', to: 'operational' },
      ],
      'operational',
      now,
      4,
    );
    expect(days).to.deep.equal(['operational', 'down', 'down', 'operational']);
  });

  it('takes the status before the first change of the window from that change, not from now', () => {
    expect(
      dailyWorst([{ at: today + 1000, from: 'degraded', to: 'operational' }], 'operational', now, 2),
    ).to.deep.equal(['degraded', 'degraded']);
  });
});
