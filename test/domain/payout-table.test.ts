/**
 * The payout table (docs/payouts.md#states): every row, every (status, event) pair without a row refused and changing
 * nothing, the rail's answers as events, and docs/payouts.md#states generated from it.
 */
import { expect } from 'chai';
import { expectGeneratedSection } from '../helpers/generated-docs';
import { acceptedPayoutState, PAYOUT_STATUSES, type PayoutSnapshot, type PayoutStatus } from '../../src/domain/payout';
import {
  applyPayout,
  PAYOUT_EVENT_TYPES,
  PAYOUT_TABLE,
  payoutTableMarkdown,
  payoutWriteOrders,
  railAnswerEvents,
  type PayoutEvent,
  type PayoutEventType,
} from '../../src/domain/payout-table';

const AT = '2026-03-01T10:00:00.000Z';
const LATER = '2026-03-01T10:05:00.000Z';

function payout(status: PayoutStatus, overrides: Partial<PayoutSnapshot> = {}): PayoutSnapshot {
  return {
    id: 'po_000000000000000000000001',
    merchantId: 'mer_1',
    environment: 'sandbox',
    amount: 10_000,
    fee: 100,
    currency: 'RWF',
    destinationId: 'dst_1',
    provider: 'momo',
    description: null,
    automatic: false,
    ...acceptedPayoutState(AT),
    status,
    ...overrides,
  };
}

/** One event of each type, as the rail or the merchant sends it. */
const EVENTS: Record<PayoutEventType, PayoutEvent> = {
  rail_status: { type: 'rail_status', status: 'down', reason: 'the momo payout rail in RW is down' },
  rail_down: { type: 'rail_down', reason: 'the rail is down' },
  provider_accepted: { type: 'provider_accepted', providerReference: 'ref-1' },
  provider_unknown: { type: 'provider_unknown', providerReference: 'ref-1' },
  provider_paid: { type: 'provider_paid', providerReference: 'ref-1' },
  provider_failed: {
    type: 'provider_failed',
    providerReference: 'ref-1',
    failureCode: 'account_invalid',
    message: 'no such wallet',
  },
  provider_returned: { type: 'provider_returned', providerReference: 'ref-1' },
  provider_not_received: { type: 'provider_not_received' },
  cancel: { type: 'cancel' },
};

/**
 * A payout and an event that take row `r`: the rail's status rows are told apart by their conditions (a `down` rail
 * with a new reason, one already recorded, a rail that is up).
 */
function inputOf(r: (typeof PAYOUT_TABLE)[number]): [PayoutSnapshot, PayoutEvent] {
  if (r.event !== 'rail_status') return [payout(r.from), EVENTS[r.event]];
  const down = EVENTS.rail_status as Extract<PayoutEvent, { type: 'rail_status' }>;
  if (r.effects.some((e) => e.do === 'write')) return [payout(r.from), down];
  if (r.effects.some((e) => e.do === 'wait_for_rail')) return [payout(r.from, { pendingReason: down.reason }), down];
  return [payout(r.from), { ...down, status: 'operational' }];
}

describe('payout table: every row (docs/payouts.md#states)', () => {
  for (const r of PAYOUT_TABLE)
    it(`${r.from} × ${r.event}${r.when ? ` (${r.when.text})` : ''} → ${r.to}`, () => {
      const applied = applyPayout(...inputOf(r), LATER);
      expect(applied.ok).to.equal(true);
      if (!applied.ok) return;
      expect(applied.row).to.equal(r);
      expect(applied.payout.status).to.equal(r.to);
      expect(applied.from).to.equal(r.from);
      const writes = r.effects.some((e) => e.do === 'write');
      expect(applied.payout.updatedAt).to.equal(writes ? LATER : AT);
      for (const e of applied.effects) if (e.do === 'post') expect(e.cause).to.match(/^payout:po_0+1:[a-z]+$/);
    });
});

describe('payout table: every (status, event) pair without a row is refused and changes nothing', () => {
  for (const status of PAYOUT_STATUSES)
    for (const type of PAYOUT_EVENT_TYPES) {
      if (PAYOUT_TABLE.some((r) => r.from === status && r.event === type)) continue;
      it(`${status} × ${type}`, () => {
        const before = payout(status);
        const copy = structuredClone(before);
        const applied = applyPayout(before, EVENTS[type], LATER);
        expect(applied.ok).to.equal(false);
        if (applied.ok) return;
        expect(applied.refusal.message).to.include(status);
        expect(applied.refusal.code).to.equal(type === 'cancel' ? 'payout_not_cancellable' : 'not_applicable');
        expect(before).to.deep.equal(copy);
      });
    }
});

describe('payout table: the refusals the issue names, with their reasons', () => {
  it('refuses a callback after paid, a cancel once in transit and the same answer twice', () => {
    const paid = applyPayout(payout('in_transit'), EVENTS.provider_paid, LATER);
    expect(paid.ok).to.equal(true);
    if (!paid.ok) return;
    const again = applyPayout(paid.payout, EVENTS.provider_paid, LATER);
    expect(again).to.deep.equal({
      ok: false,
      refusal: { code: 'not_applicable', message: 'a paid payout takes no provider_paid' },
    });
    const late = applyPayout(paid.payout, EVENTS.provider_failed, LATER);
    expect(late.ok).to.equal(false);
    const cancel = applyPayout(payout('in_transit'), EVENTS.cancel, LATER);
    expect(cancel).to.deep.equal({
      ok: false,
      refusal: {
        code: 'payout_not_cancellable',
        message: 'a payout that is in_transit cannot be cancelled; only pending payouts can',
      },
    });
  });

  it('records a rail that is down once per reason', () => {
    const down = applyPayout(payout('pending'), EVENTS.rail_down, LATER);
    expect(down.ok && down.payout.pendingReason).to.equal('the rail is down');
    if (!down.ok) return;
    const same = applyPayout(down.payout, EVENTS.rail_down, LATER);
    expect(same.ok).to.equal(false);
  });

  it('declares the journal of each ending by its cause, and the write orders carry exactly them', () => {
    const failed = applyPayout(payout('pending'), EVENTS.provider_failed, LATER);
    expect(failed.ok).to.equal(true);
    if (!failed.ok) return;
    expect(payoutWriteOrders(failed)).to.deep.equal({
      from: 'pending',
      emit: 'payout.failed',
      post: ['payout:po_000000000000000000000001:failed'],
      verifyDestination: false,
      outcome: {
        key: { provider: 'momo', country: 'RW', operation: 'payout' },
        attempt: { decidedAt: Date.parse(LATER), seconds: 300, outcome: 'failure', side: 'payer', neverReached: false },
      },
    });
    expect(failed.payout).to.include({ failureCode: 'account_invalid', failureMessage: 'no such wallet' });
    const cancelled = applyPayout(payout('pending'), EVENTS.cancel, LATER);
    expect(cancelled.ok && payoutWriteOrders(cancelled)).to.deep.equal({
      from: 'pending',
      emit: null,
      post: ['payout:po_000000000000000000000001:cancelled'],
      verifyDestination: false,
      outcome: null,
    });
  });

  it("maps the rail's answers onto events: a return not yet recorded paid is its payment, then its return", () => {
    const returned = { outcome: 'returned' as const, providerReference: 'ref-1' };
    expect(railAnswerEvents('in_transit', returned).map((e) => e.type)).to.deep.equal([
      'provider_paid',
      'provider_returned',
    ]);
    expect(railAnswerEvents('paid', returned).map((e) => e.type)).to.deep.equal(['provider_returned']);
    expect(railAnswerEvents('pending', { outcome: 'refused', providerReference: 'r' })[0]).to.deep.include({
      failureCode: 'declined',
    });
  });
});

describe("payout table: a rail's health (docs/payouts.md#rail-down, docs/availability.md#payouts)", () => {
  const REASON = 'the momo payout rail in RW is down; the payout is sent when it is back';
  const railStatus = (status: 'operational' | 'degraded' | 'down'): PayoutEvent => ({
    type: 'rail_status',
    status,
    reason: REASON,
  });

  it('sends to a rail that is not down, and waits for a down one with its reason written once', () => {
    for (const status of ['operational', 'degraded'] as const) {
      const up = applyPayout(payout('pending'), railStatus(status), LATER);
      expect(up.ok && up.effects, status).to.deep.equal([{ do: 'ask_provider', call: 'send' }]);
    }
    const down = applyPayout(payout('pending'), railStatus('down'), LATER);
    expect(down.ok).to.equal(true);
    if (!down.ok) return;
    expect(down.effects).to.deep.equal([{ do: 'write' }, { do: 'wait_for_rail' }]);
    expect(down.payout).to.include({ status: 'pending', pendingReason: REASON, updatedAt: LATER });
    const still = applyPayout(down.payout, railStatus('down'), LATER);
    expect(still.ok && still.effects).to.deep.equal([{ do: 'wait_for_rail' }]);
    // A cancel while it waits is the merchant's, not the rail's: funds back, no outcome recorded.
    const cancelled = applyPayout(down.payout, EVENTS.cancel, LATER);
    expect(cancelled.ok && payoutWriteOrders(cancelled).outcome).to.equal(null);
    expect(applyPayout(payout('in_transit'), railStatus('down'), LATER).ok).to.equal(false);
  });

  it("records the decided outcome under the rail's key: success, the payee's or the provider's failure, seconds from the first request", () => {
    const requestedAt = '2026-03-01T10:04:00.000Z';
    const accepted = applyPayout(
      payout('pending'),
      { type: 'provider_accepted', providerReference: 'ref-1', requestedAt },
      '2026-03-01T10:04:01.000Z',
    );
    expect(accepted.ok && payoutWriteOrders(accepted).outcome).to.equal(null);
    if (!accepted.ok) return;
    expect(accepted.payout.firstRequestAt).to.equal(requestedAt);
    const paid = applyPayout(accepted.payout, { type: 'provider_paid', providerReference: 'ref-1' }, LATER);
    expect(paid.ok && payoutWriteOrders(paid).outcome).to.deep.equal({
      key: { provider: 'momo', country: 'RW', operation: 'payout' },
      attempt: { decidedAt: Date.parse(LATER), seconds: 60, outcome: 'success', side: null, neverReached: false },
    });
    const failed = (failureCode: 'account_invalid' | 'provider_error' | 'platform_funds', reasonSide?: 'platform') =>
      applyPayout(
        payout('pending'),
        { type: 'provider_failed', providerReference: 'r', failureCode, message: 'no', requestedAt, reasonSide },
        LATER,
      );
    const sideOf = (applied: ReturnType<typeof applyPayout>) =>
      applied.ok ? payoutWriteOrders(applied).outcome?.attempt : undefined;
    expect(sideOf(failed('account_invalid'))).to.include({ outcome: 'failure', side: 'payer', seconds: 60 });
    expect(sideOf(failed('provider_error'))).to.include({ outcome: 'failure', side: 'provider' });
    expect(sideOf(failed('platform_funds'))).to.include({ side: 'platform' });
    // The provider's own reason decides where the rail named one (our configuration's error: not the operator's).
    expect(sideOf(failed('provider_error', 'platform'))).to.include({ side: 'platform' });
    // A return after paid is no second outcome.
    if (!paid.ok) return;
    const returned = applyPayout(paid.payout, EVENTS.provider_returned, LATER);
    expect(returned.ok && payoutWriteOrders(returned).outcome).to.equal(null);
  });

  it("carries the send's time and the reason's side from the rail's answer", () => {
    const at = '2026-03-01T10:04:00.000Z';
    expect(railAnswerEvents('pending', { outcome: 'paid', providerReference: 'r' }, at)[0]).to.deep.include({
      requestedAt: at,
    });
    expect(
      railAnswerEvents('pending', { outcome: 'refused', providerReference: 'r', reasonSide: 'platform' })[0],
    ).to.deep.include({ reasonSide: 'platform' });
  });
});

describe('payout table: docs/payouts.md#states is generated from it', () => {
  it('shows the table between its markers (UPDATE_STATE_TABLE=1 rewrites it)', () => {
    expectGeneratedSection('payouts.md', 'payout-table', 'src/domain/payout-table.ts', payoutTableMarkdown());
  });
});
