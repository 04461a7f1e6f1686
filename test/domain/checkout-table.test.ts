/**
 * The checkout session table (docs/checkout.md#states): one attempt at a time, at most ten, at most one completes, a
 * late success after completion is a duplicate, an attempt open at expiry keeps its own expiry; every refusal changes
 * nothing; docs/checkout.md#states is generated from it.
 */
import { expect } from 'chai';
import { checkoutSessionSnapshot } from '../helpers/fixtures';
import { expectGeneratedSection } from '../helpers/generated-docs';
import {
  applyCheckout,
  CHECKOUT_EVENT_TYPES,
  CHECKOUT_STATUSES,
  checkoutTableMarkdown,
  emittedEvent,
  MAX_CHECKOUT_ATTEMPTS,
  type CheckoutEvent,
  type CheckoutSessionSnapshot,
} from '../../src/domain/checkout-table';

const AT = '2026-03-01T10:00:00.000Z';
const EXPIRES = '2026-03-01T11:00:00.000Z';
const AFTER = '2026-03-01T11:00:01.000Z';

function session(overrides: Partial<CheckoutSessionSnapshot> = {}): CheckoutSessionSnapshot {
  return checkoutSessionSnapshot(AT, { expiresAt: EXPIRES, ...overrides });
}

/** Applies `events` in turn, expecting each to be taken. */
function run(s: CheckoutSessionSnapshot, events: CheckoutEvent[], at = AT): CheckoutSessionSnapshot {
  for (const e of events) {
    const applied = applyCheckout(s, e, at);
    if (!applied.ok) throw new Error(`${e.type} refused: ${applied.refusal.message}`);
    s = applied.session;
  }
  return s;
}

function refusalOf(s: CheckoutSessionSnapshot, e: CheckoutEvent, at = AT): string {
  const applied = applyCheckout(s, e, at);
  expect(applied.ok, `${e.type} in ${s.status}`).to.equal(false);
  return applied.ok ? '' : applied.refusal.code;
}

describe('checkout table (docs/checkout.md#states)', () => {
  it('admits one attempt at a time: a second while the first is in flight is refused', () => {
    const s = run(session(), [{ type: 'attempt_started', payment: 'pay_1' }]);
    expect(s.attempts).to.deep.equal([{ payment: 'pay_1', status: 'pending' }]);
    expect(refusalOf(s, { type: 'attempt_started', payment: 'pay_2' })).to.equal(
      'checkout_session_attempt_in_progress',
    );
    const applied = applyCheckout(s, { type: 'attempt_started', payment: 'pay_1' }, AT);
    expect(applied.ok).to.equal(false);
  });

  it('admits a new attempt once the previous failed, and the eleventh is refused', () => {
    let s = session();
    for (let i = 1; i <= MAX_CHECKOUT_ATTEMPTS; i++)
      s = run(s, [
        { type: 'attempt_started', payment: `pay_${i}` },
        { type: 'attempt_failed', payment: `pay_${i}` },
      ]);
    expect(s.status).to.equal('open');
    expect(s.attempts).to.have.length(MAX_CHECKOUT_ATTEMPTS);
    expect(refusalOf(s, { type: 'attempt_started', payment: 'pay_11' })).to.equal(
      'checkout_session_attempts_exhausted',
    );
  });

  it('completes by the succeeding attempt, emitting checkout.session.completed, and then admits nothing', () => {
    const s0 = run(session(), [{ type: 'attempt_started', payment: 'pay_1' }]);
    const applied = applyCheckout(s0, { type: 'attempt_completed', payment: 'pay_1' }, AT);
    if (!applied.ok) throw new Error('refused');
    expect(applied.session).to.include({ status: 'complete', payment: 'pay_1', completedAt: AT });
    expect(emittedEvent(applied.effects)).to.equal('checkout.session.completed');
    expect(refusalOf(applied.session, { type: 'attempt_started', payment: 'pay_2' })).to.equal(
      'checkout_session_not_open',
    );
    expect(refusalOf(applied.session, { type: 'expire', by: 'merchant' })).to.equal('checkout_session_not_open');
    expect(refusalOf(applied.session, { type: 'attempt_completed', payment: 'pay_1' })).to.equal('not_applicable');
  });

  it('settles a late success of an earlier attempt after another completed as a duplicate, keeping the first', () => {
    const s = run(session(), [
      { type: 'attempt_started', payment: 'pay_1' },
      { type: 'attempt_failed', payment: 'pay_1' },
      { type: 'attempt_started', payment: 'pay_2' },
      { type: 'attempt_completed', payment: 'pay_2' },
    ]);
    const applied = applyCheckout(s, { type: 'attempt_completed', payment: 'pay_1' }, AT);
    if (!applied.ok) throw new Error('refused');
    expect(applied.session).to.include({ status: 'complete', payment: 'pay_2' });
    expect(applied.effects.map((e) => e.do)).to.deep.equal(['write', 'settle_duplicate']);
    expect(emittedEvent(applied.effects)).to.equal(null);
  });

  it("refuses the merchant's expire while an attempt is in flight, and takes it otherwise", () => {
    const inFlight = run(session(), [{ type: 'attempt_started', payment: 'pay_1' }]);
    expect(refusalOf(inFlight, { type: 'expire', by: 'merchant' })).to.equal('checkout_session_attempt_in_progress');
    const applied = applyCheckout(session(), { type: 'expire', by: 'merchant' }, AT);
    if (!applied.ok) throw new Error('refused');
    expect(applied.session).to.include({ status: 'expired', expiredAt: AT });
    expect(emittedEvent(applied.effects)).to.equal('checkout.session.expired');
    expect(refusalOf(applied.session, { type: 'expire', by: 'merchant' })).to.equal('checkout_session_not_open');
  });

  it('lets an attempt open at expires_at keep its own expiry: the session expires when it fails', () => {
    const s = run(session(), [{ type: 'attempt_started', payment: 'pay_1' }]);
    expect(refusalOf(s, { type: 'expire', by: 'clock' }, AFTER)).to.equal('checkout_session_attempt_in_progress');
    const failed = applyCheckout(s, { type: 'attempt_failed', payment: 'pay_1' }, AFTER);
    if (!failed.ok) throw new Error('refused');
    expect(failed.session.status).to.equal('expired');
    expect(emittedEvent(failed.effects)).to.equal('checkout.session.expired');
  });

  it('lets an attempt open at expires_at complete the session when it succeeds', () => {
    const s = run(session(), [{ type: 'attempt_started', payment: 'pay_1' }]);
    const done = applyCheckout(s, { type: 'attempt_completed', payment: 'pay_1' }, AFTER);
    expect(done.ok && done.session.status).to.equal('complete');
  });

  it('admits no attempt after expires_at', () => {
    expect(refusalOf(session(), { type: 'attempt_started', payment: 'pay_1' }, AFTER)).to.equal(
      'checkout_session_not_open',
    );
  });

  it("refuses an outcome of a payment that is not the session's", () => {
    expect(refusalOf(session(), { type: 'attempt_completed', payment: 'pay_x' })).to.equal('not_applicable');
  });

  it('refuses every (status, event) pair without a row and changes nothing', () => {
    const events: Record<string, CheckoutEvent> = {
      attempt_started: { type: 'attempt_started', payment: 'pay_9' },
      attempt_completed: { type: 'attempt_completed', payment: 'pay_9' },
      attempt_failed: { type: 'attempt_failed', payment: 'pay_9' },
      expire: { type: 'expire', by: 'merchant' },
    };
    for (const status of CHECKOUT_STATUSES)
      for (const type of CHECKOUT_EVENT_TYPES) {
        const before = session({ status, attempts: [{ payment: 'pay_1', status: 'failed' }] });
        const frozen = JSON.stringify(before);
        const applied = applyCheckout(before, events[type] as CheckoutEvent, AT);
        if (!applied.ok) expect(JSON.stringify(before)).to.equal(frozen);
      }
  });
});

describe('checkout table: a customer-chosen amount (docs/payment-links.md#amounts)', () => {
  it("takes the attempt's amount as the session's, and completes with the amount the completing attempt paid", () => {
    const open = session({ amount: null, amountRange: { min: 100, max: 10_000 }, paymentLink: 'plink_1' });
    const first = run(open, [{ type: 'attempt_started', payment: 'pay_1', amount: 700 }]);
    expect(first.amount).to.equal(700);
    expect(first.attempts).to.deep.equal([{ payment: 'pay_1', status: 'pending', amount: 700 }]);
    const second = run(first, [
      { type: 'attempt_failed', payment: 'pay_1' },
      { type: 'attempt_started', payment: 'pay_2', amount: 900 },
    ]);
    expect(second.amount).to.equal(900);
    // The earlier attempt's late success completes the session that expired: with the amount that attempt paid.
    const expired = run(run(second, [{ type: 'attempt_failed', payment: 'pay_2' }], AFTER), [], AFTER);
    expect(expired.status).to.equal('expired');
    const late = run(expired, [{ type: 'attempt_completed', payment: 'pay_1' }], AFTER);
    expect(late).to.include({ status: 'complete', payment: 'pay_1', amount: 700 });
  });

  it('keeps a fixed amount when the attempt carries none', () => {
    const s = run(session(), [
      { type: 'attempt_started', payment: 'pay_1' },
      { type: 'attempt_completed', payment: 'pay_1' },
    ]);
    expect(s).to.include({ status: 'complete', amount: 5_000 });
  });
});

describe('checkout table: docs/checkout.md#states is generated from it', () => {
  it('shows the table between its markers (UPDATE_STATE_TABLE=1 rewrites it)', () => {
    expectGeneratedSection('checkout.md', 'checkout-table', 'src/domain/checkout-table.ts', checkoutTableMarkdown());
  });
});
