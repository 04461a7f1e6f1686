/**
 * The payment's table (docs/payments.md#states): every row taken once, every (status, event) pair without a row
 * refused without a change, the conditions' refusals, and docs/payments.md#states equal to the table.
 */
import { expect } from 'chai';
import { expectGeneratedSection } from '../helpers/generated-docs';
import {
  callbackMayChange,
  PAYMENT_STATUSES,
  withReceiptNumber,
  type PaymentSnapshot,
  type PaymentStatus,
} from '../../src/domain/payment';
import {
  apply,
  applyInTurn,
  answerChangesPayment,
  PROVIDER_WORD_WITHIN_MS,
  answerEvent,
  cancelEvent,
  expiryEvent,
  initialPaymentState,
  initiationEvents,
  lateSuccessRefundId,
  oneWriteOf,
  PAYMENT_EVENT_TYPES,
  PAYMENT_TABLE,
  stateTableMarkdown,
  writeOrdersOf,
  type PaymentEvent,
  type PaymentEventType,
  type PaymentRow,
  type PaymentState,
} from '../../src/domain/payment-table';
import type { RefundRecord } from '../../src/domain/refund';
import { mobileMoneyPayment } from '../helpers/fixtures';

const DAY_MS = 86_400_000;
const WINDOW_MS = 7 * DAY_MS;
const REFUND_WINDOW_MS = 180 * DAY_MS;
const T0 = '2026-11-23T10:00:00.000Z';
const later = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
const AT = later(60_000);

function pendingRefund(payment: PaymentSnapshot, id: string, amount: number): RefundRecord {
  return {
    id,
    paymentId: payment.id,
    merchantId: payment.merchantId,
    environment: payment.environment,
    amount,
    currency: payment.currency,
    status: 'pending',
    reason: null,
    providerReference: null,
    failureMessage: null,
    createdAt: T0,
    completedAt: null,
  };
}

/** A payment in `status` (1500 minor units), with `refunds` of these amounts in flight. */
function stateIn(
  status: PaymentStatus,
  overrides: Partial<PaymentSnapshot> = {},
  refunds: number[] = [],
): PaymentState {
  const payment: PaymentSnapshot = {
    ...mobileMoneyPayment('mer_x', '+250788000001', { nowMs: Date.parse(T0) }),
    providerReference: 'momo_1',
    status,
    version: 3,
    updatedAt: T0,
    ...(status === 'failed' ? { failureCode: 'expired', failureMessage: 'expired' } : {}),
    ...overrides,
  };
  return {
    ...initialPaymentState(payment),
    pendingRefunds: refunds.map((amount, i) => pendingRefund(payment, `ref_${i}`, amount)),
  };
}

/** One event of each type (a refund event names the first refund in flight, `ref_0`). */
function sampleEvent(type: PaymentEventType): PaymentEvent {
  switch (type) {
    case 'initiation_accepted':
      return { type, providerReference: 'momo_2', nextAction: { type: 'mobile_money_approval', message: 'approve' } };
    case 'initiation_refused':
      return { type, failureCode: 'declined', message: 'refused' };
    case 'initiation_unanswered':
      return { type, message: 'no answer within 2 minutes' };
    case 'provider_decline':
      return { type, failureCode: 'insufficient_funds', message: 'no funds' };
    case 'provider_error':
      return { type, message: 'provider fault' };
    case 'late_success':
    case 'provider_unanswered':
      return { type, reconciliationWindowMs: WINDOW_MS };
    case 'cancel':
      return { type, reason: 'customer left' };
    case 'refund_accepted':
      return { type, refundId: 'ref_new', amount: 500, reason: null, refundWindowMs: REFUND_WINDOW_MS };
    case 'refund_completed':
      return { type, refundId: 'ref_0', providerReference: 'momo_ref_0' };
    case 'refund_refused':
      return { type, refundId: 'ref_0', message: 'refused' };
    case 'refund_unknown':
    case 'refund_withdrawn':
      return { type, refundId: 'ref_0' };
    default:
      return { type } as PaymentEvent;
  }
}

/** A state and event that take `row` (its condition holds). */
function caseFor(row: PaymentRow): { state: PaymentState; event: PaymentEvent; at: string } {
  const event = sampleEvent(row.event);
  const refunds = row.event.startsWith('refund_') && row.event !== 'refund_accepted' ? [500] : [];
  if (row.event === 'refund_completed' && row.to === 'refunded')
    return { state: stateIn(row.from, { amountRefunded: 1000 }, refunds), event, at: AT };
  if (row.event === 'late_success' && row.when?.text.includes('after the reconciliation window'))
    return { state: stateIn(row.from), event, at: later(WINDOW_MS + 1) };
  if (row.event === 'late_success' && row.when?.text.includes('declined'))
    return { state: stateIn(row.from, { failureCode: 'declined' }), event, at: AT };
  if (row.event === 'late_success' && row.when?.text.includes('cannot refund')) {
    const unrefundable: PaymentEvent = {
      type: 'late_success',
      reconciliationWindowMs: WINDOW_MS,
      capabilities: { refund: false, partialRefund: false },
    };
    return { state: stateIn(row.from), event: unrefundable, at: AT };
  }
  if (row.when?.text.includes('last answer was unknown'))
    return { state: stateIn(row.from, { pendingReason: 'checking_with_provider' }), event, at: AT };
  if (row.event === 'late_refund_refused') return { state: stateIn(row.from, { reconciledAt: T0 }), event, at: AT };
  return { state: stateIn(row.from, {}, refunds), event, at: AT };
}

const label = (r: PaymentRow) => `${r.from} × ${r.event}${r.when ? ` (${r.when.text})` : ''} → ${r.to}`;

describe('payment table: every row (docs/payments.md#states)', () => {
  for (const row of PAYMENT_TABLE) {
    it(label(row), () => {
      const { state, event, at } = caseFor(row);
      const applied = apply(state, event, at);
      if (!applied.ok) throw new Error(`refused: ${applied.refusal.message}`);
      expect(applied.row).to.equal(row);
      expect(applied.state.payment.status).to.equal(row.to);
      const writes = row.effects.some((e) => e.do === 'write');
      expect(applied.state.payment.version).to.equal(writes ? 4 : 3);
      expect(applied.effects.map((e) => e.do)).to.deep.equal(row.effects.map((e) => e.do));
      for (const effect of applied.effects) if (effect.do === 'post') expect(effect.cause).not.to.include('{id}');
      expect(state.payment.version, 'the state given is not changed').to.equal(3);
    });
  }
});

describe('payment table: every (status, event) pair without a row is refused and changes nothing', () => {
  for (const status of PAYMENT_STATUSES) {
    for (const type of PAYMENT_EVENT_TYPES) {
      if (PAYMENT_TABLE.some((r) => r.from === status && r.event === type)) continue;
      it(`${status} × ${type}`, () => {
        const state = stateIn(status, {}, [500]);
        const applied = apply(state, sampleEvent(type), AT);
        expect(applied.ok).to.equal(false);
        if (applied.ok) return;
        const code =
          type === 'cancel'
            ? 'payment_not_cancellable'
            : type === 'refund_accepted'
              ? 'payment_not_refundable'
              : 'not_applicable';
        expect(applied.refusal.code).to.equal(code);
        expect(state.payment.version).to.equal(3);
      });
    }
  }
});

describe('payment table: conditions (docs/payments.md#cancel-and-refund)', () => {
  const refund = (
    amount: number | undefined,
    extra: Partial<Extract<PaymentEvent, { type: 'refund_accepted' }>> = {},
  ) =>
    ({
      type: 'refund_accepted',
      refundId: 'ref_new',
      amount,
      reason: null,
      refundWindowMs: REFUND_WINDOW_MS,
      ...extra,
    }) as const;
  const refusalOf = (state: PaymentState, event: PaymentEvent, at = AT) => {
    const applied = apply(state, event, at);
    return applied.ok ? undefined : applied.refusal;
  };

  it('reserves a refund at once, so two requests decided together never exceed the rest', () => {
    const first = apply(stateIn('completed'), refund(1000), AT);
    if (!first.ok) throw new Error('refused');
    expect(first.refund).to.include({ id: 'ref_new', amount: 1000, status: 'pending' });
    expect(first.effects).to.deep.include({ do: 'post', cause: 'refund:ref_new:reserved' });
    expect(refusalOf(first.state, refund(600, { refundId: 'ref_other' }))).to.deep.equal({
      code: 'amount_exceeds_refundable',
      message: 'amount 600 exceeds the refundable rest of 500',
    });
    const rest = apply(first.state, refund(undefined, { refundId: 'ref_rest' }), AT);
    expect(rest.ok && rest.refund?.amount).to.equal(500);
    if (rest.ok)
      expect(refusalOf(rest.state, refund(1, { refundId: 'ref_more' }))?.code).to.equal('payment_not_refundable');
  });

  it('takes the same refund id again as the refund already in flight', () => {
    const first = apply(stateIn('completed'), refund(1500), AT);
    if (!first.ok) throw new Error('refused');
    const again = apply(first.state, refund(1500), AT);
    expect(again.ok && again.state.pendingRefunds).to.have.length(1);
  });

  it('refuses a refund after the refund window, counted from the creation', () => {
    expect(refusalOf(stateIn('completed'), refund(100), later(REFUND_WINDOW_MS + 1))).to.deep.equal({
      code: 'payment_not_refundable',
      message: 'payments can be refunded for 180 days after they were created',
    });
    expect(refusalOf(stateIn('completed'), refund(100), later(REFUND_WINDOW_MS))).to.equal(undefined);
  });

  it('refuses what the provider cannot refund, when its capabilities are known', () => {
    const noRefunds = { refund: false, partialRefund: false };
    const wholeOnly = { refund: true, partialRefund: false };
    expect(refusalOf(stateIn('completed'), refund(100, { capabilities: noRefunds }))?.message).to.match(
      /cannot be refunded through the API/,
    );
    expect(refusalOf(stateIn('completed'), refund(100, { capabilities: wholeOnly }))?.message).to.match(
      /only be refunded whole: refund 1500/,
    );
    expect(refusalOf(stateIn('completed'), refund(1500, { capabilities: wholeOnly }))).to.equal(undefined);
  });

  it('refuses a cancel and a refund in the statuses that take none, with the API codes', () => {
    expect(refusalOf(stateIn('completed'), { type: 'cancel', reason: null })).to.deep.equal({
      code: 'payment_not_cancellable',
      message: 'a completed payment cannot be cancelled; only pending and processing payments can',
    });
    expect(refusalOf(stateIn('pending'), refund(100))).to.deep.equal({
      code: 'payment_not_refundable',
      message: 'a pending payment cannot be refunded; only completed payments can',
    });
  });

  it('settles the last refund to refunded, and keeps a refusal from changing the payment', () => {
    const completed = apply(stateIn('completed', {}, [1500]), sampleEvent('refund_completed'), AT);
    expect(completed.ok && completed.state.payment).to.include({
      status: 'refunded',
      amountRefunded: 1500,
      version: 4,
    });
    expect(completed.ok && completed.refund).to.include({ status: 'completed', providerReference: 'momo_ref_0' });
    const refused = apply(stateIn('completed', {}, [1500]), sampleEvent('refund_refused'), AT);
    expect(refused.ok && refused.state.pendingRefunds).to.deep.equal([]);
    expect(refused.ok && refused.refund).to.include({ status: 'failed', failureMessage: 'refused' });
    expect(refusalOf(stateIn('completed'), sampleEvent('refund_completed'))?.message).to.equal(
      'refund ref_0 is not in flight',
    );
  });

  it('books a late success within the window, and outside it or after a decline with an exception, once', () => {
    const within = apply(stateIn('failed'), sampleEvent('late_success'), later(WINDOW_MS));
    expect(within.ok && within.state.payment).to.include({
      status: 'completed',
      failureCode: null,
      reconciledAt: later(WINDOW_MS),
    });
    expect(within.ok && within.effects.some((e) => e.do === 'record_exception')).to.equal(false);
    const outside = apply(stateIn('failed'), sampleEvent('late_success'), later(WINDOW_MS + 1));
    if (!outside.ok) throw new Error('refused');
    expect(outside.state.payment).to.include({ status: 'completed', reconciledAt: later(WINDOW_MS + 1) });
    const id = outside.state.payment.id;
    expect(outside.effects).to.deep.include({ do: 'post', cause: `payment:${id}:completed` });
    expect(outside.effects).to.deep.include({ do: 'emit', event: 'payment.completed' });
    expect(outside.effects).to.deep.include({ do: 'count_late_answer' });
    expect(outside.effects).to.deep.include({ do: 'record_exception', kind: 'late_success_after_window' });
    expect(apply(outside.state, sampleEvent('late_success'), later(WINDOW_MS + 2)).ok).to.equal(false);
    const declined = apply(stateIn('failed', { failureCode: 'declined' }), sampleEvent('late_success'), AT);
    expect(declined.ok && declined.state.payment.status).to.equal('completed');
    expect(declined.ok && declined.effects).to.deep.include({
      do: 'record_exception',
      kind: 'late_success_after_decline',
    });
  });

  it('refuses a cancel its provider cannot withdraw, changing nothing, and takes it where it can', () => {
    const pending = stateIn('pending');
    const refusal = refusalOf(pending, { type: 'cancel', reason: null, capabilities: { cancel: false } });
    expect(refusal?.code).to.equal('payment_not_cancellable');
    expect(refusal?.message).to.include('cannot withdraw');
    expect(refusal?.message).to.include('expiry');
    expect(refusalOf(stateIn('processing'), cancelEvent('unsupported', null))?.code).to.equal(
      'payment_not_cancellable',
    );
    const taken = apply(pending, { type: 'cancel', reason: null, capabilities: { cancel: true } }, AT);
    expect(taken.ok && taken.state.payment.status).to.equal('cancelled');
  });

  it('books a success after the cancel with an exception when the provider cannot refund the whole payment', () => {
    for (const capabilities of [
      { refund: false, partialRefund: false },
      { refund: false, partialRefund: true },
    ]) {
      const step = apply(
        stateIn('cancelled'),
        { type: 'late_success', reconciliationWindowMs: WINDOW_MS, capabilities },
        AT,
      );
      if (!step.ok) throw new Error('refused');
      expect(step.state.payment).to.include({ status: 'completed', reconciledAt: AT, amountRefunded: 0 });
      expect(step.state.pendingRefunds).to.deep.equal([]);
      expect(step.effects).to.deep.include({ do: 'record_exception', kind: 'late_success_unrefundable' });
      expect(step.effects).to.deep.include({ do: 'post', cause: `payment:${step.state.payment.id}:completed` });
      expect(step.effects.some((e) => e.do === 'ask_provider')).to.equal(false);
    }
    const refundable = { refund: true, partialRefund: false };
    const refunded = apply(
      stateIn('cancelled'),
      { type: 'late_success', reconciliationWindowMs: WINDOW_MS, capabilities: refundable },
      AT,
    );
    expect(refunded.ok && refunded.state.payment.status).to.equal('cancelled');
    expect(refunded.ok && refunded.effects.some((e) => e.do === 'ask_provider')).to.equal(true);
  });

  it('refunds a success after the cancel once, in full', () => {
    const step = apply(stateIn('cancelled'), sampleEvent('late_success'), AT);
    if (!step.ok) throw new Error('refused');
    const id = lateSuccessRefundId(step.state.payment.id);
    expect(step.refund).to.include({ id, amount: 1500, reason: 'late_success_after_cancel' });
    expect(step.effects).to.deep.include({ do: 'post', cause: `refund:${id}:reserved` });
    expect(apply(step.state, sampleEvent('late_success'), AT).ok).to.equal(false);
  });

  it('drops the next action once the payment leaves pending, and fills the ledger cause with the payment id', () => {
    const state = stateIn('pending', { nextAction: { type: 'mobile_money_approval', message: 'approve' } });
    const step = apply(state, { type: 'provider_success' }, AT);
    expect(step.ok && step.state.payment.nextAction).to.equal(null);
    expect(step.ok && step.effects).to.deep.include({ do: 'post', cause: `payment:${state.payment.id}:completed` });
  });

  it("drops the customer's next step as soon as a row takes the payment out of pending, and keeps it while pending", () => {
    const nextAction = { type: 'card_confirm' as const, client_secret: 'pi_1_secret_2' };
    for (const type of ['provider_processing', 'provider_success', 'provider_cancelled', 'cancel', 'expiry'] as const) {
      const step = apply(stateIn('pending', { nextAction }), sampleEvent(type), AT);
      expect(step.ok && step.state.payment.nextAction, type).to.equal(null);
    }
    const accepted = apply(stateIn('pending'), sampleEvent('initiation_accepted'), AT);
    expect(accepted.ok && accepted.state.payment).to.deep.include({
      status: 'pending',
      providerReference: 'momo_2',
      nextAction: { type: 'mobile_money_approval', message: 'approve' },
    });
  });

  it('sets the failure with a failing row and clears it with a succeeding one, with the next version and time', () => {
    const failed = apply(stateIn('processing'), sampleEvent('provider_decline'), AT);
    expect(failed.ok && failed.state.payment).to.include({
      status: 'failed',
      failureCode: 'insufficient_funds',
      failureMessage: 'no funds',
      updatedAt: AT,
      version: 4,
    });
    const unanswered = apply(stateIn('pending'), sampleEvent('initiation_unanswered'), AT);
    expect(unanswered.ok && unanswered.state.payment).to.include({ failureCode: 'provider_error' });
    const reconciled = apply(stateIn('failed'), sampleEvent('late_success'), AT);
    expect(reconciled.ok && reconciled.state.payment).to.include({ failureCode: null, failureMessage: null });
  });

  it("keeps the receipt number of the provider's success by every path, the first one kept staying", () => {
    const receipt = { status: 'completed' as const, receiptNumber: 'NLJ7RT61SV' };
    // The success at a poll or a callback, at the expiry's last question, at a cancel, and a late one.
    for (const event of [
      answerEvent({ status: 'pending' }, receipt, WINDOW_MS),
      expiryEvent(receipt),
      cancelEvent(receipt, null),
    ]) {
      expect(event).to.deep.equal({ type: 'provider_success', receiptNumber: 'NLJ7RT61SV' });
      const step = apply(stateIn('pending'), event, AT);
      expect(step.ok && step.state.payment).to.include({ status: 'completed', providerReceiptNumber: 'NLJ7RT61SV' });
    }
    const late = answerEvent({ status: 'failed' }, receipt, WINDOW_MS);
    expect(late).to.deep.equal({
      type: 'late_success',
      reconciliationWindowMs: WINDOW_MS,
      receiptNumber: 'NLJ7RT61SV',
    });
    const reconciled = apply(stateIn('failed'), late, AT);
    expect(reconciled.ok && reconciled.state.payment).to.include({ providerReceiptNumber: 'NLJ7RT61SV' });
    // A success that names none keeps none; a kept one is never replaced.
    const none = apply(stateIn('pending'), { type: 'provider_success' }, AT);
    expect(none.ok && none.state.payment.providerReceiptNumber).to.equal(undefined);
    const kept = apply(
      stateIn('failed', { providerReceiptNumber: 'FIRST00001' }),
      { type: 'late_success', reconciliationWindowMs: WINDOW_MS, receiptNumber: 'OTHER00002' },
      AT,
    );
    expect(kept.ok && kept.state.payment.providerReceiptNumber).to.equal('FIRST00001');
    // A failure never sets one.
    const failed = apply(stateIn('pending'), sampleEvent('provider_decline'), AT);
    expect(failed.ok && failed.state.payment.providerReceiptNumber).to.equal(undefined);
  });

  it('takes a receipt number only from a success, trimmed, and never a blank, over-long or control-laden one', () => {
    expect(withReceiptNumber({ status: 'completed' }, ' 5729364812 ')).to.deep.equal({
      status: 'completed',
      receiptNumber: '5729364812',
    });
    expect(withReceiptNumber({ status: 'completed' }, 5729364812)).to.deep.include({ receiptNumber: '5729364812' });
    for (const bad of [null, undefined, '', '   ', 'x'.repeat(101), 'AB\nCD'])
      expect(withReceiptNumber({ status: 'completed' }, bad)).to.deep.equal({ status: 'completed' });
    expect(withReceiptNumber({ status: 'pending' }, 'NLJ7RT61SV')).to.deep.equal({ status: 'pending' });
  });

  it("maps the provider's word at expiry, at a cancel and on a poll onto events", () => {
    expect(expiryEvent(undefined)).to.deep.equal({ type: 'expiry' });
    expect(expiryEvent({ status: 'processing' })).to.deep.equal({ type: 'expiry' });
    expect(expiryEvent({ status: 'completed' })).to.deep.equal({ type: 'provider_success' });
    expect(cancelEvent('unsupported', 'r')).to.deep.equal({
      type: 'cancel',
      reason: 'r',
      capabilities: { cancel: false },
    });
    expect(cancelEvent({ status: 'cancelled' }, null)).to.deep.equal({ type: 'cancel', reason: null });
    expect(cancelEvent({ status: 'completed' }, null)).to.deep.equal({ type: 'provider_success' });
    expect(answerChangesPayment('pending', { status: 'processing' })).to.equal(true);
    expect(answerChangesPayment('processing', { status: 'processing' })).to.equal(false);
    expect(answerChangesPayment('processing', { status: 'pending' })).to.equal(false);
  });
});

describe('provider callbacks (docs/payments.md#provider-callbacks)', () => {
  it('tells which callbacks may change a payment: any while open, only a success once failed or cancelled', () => {
    expect(callbackMayChange({ status: 'pending', failureCode: null }, 'processing')).to.equal(true);
    expect(callbackMayChange({ status: 'completed', failureCode: null }, 'completed')).to.equal(false);
    expect(callbackMayChange({ status: 'failed', failureCode: 'expired' }, 'completed')).to.equal(true);
    expect(callbackMayChange({ status: 'failed', failureCode: 'expired' }, 'failed')).to.equal(false);
    expect(callbackMayChange({ status: 'failed', failureCode: 'declined' }, 'completed')).to.equal(true);
    expect(callbackMayChange({ status: 'completed', failureCode: null }, 'completed')).to.equal(false);
    expect(callbackMayChange({ status: 'cancelled', failureCode: null }, 'completed')).to.equal(true);
  });
});

describe('payment table: docs/payments.md#states is generated from it', () => {
  it('shows the table between its markers (UPDATE_STATE_TABLE=1 rewrites it)', () => {
    expectGeneratedSection('payments.md', 'state-table', 'src/domain/payment-table.ts', stateTableMarkdown());
  });
});

describe('payment table: a checkout session hears its attempt’s outcome (docs/checkout.md#states)', () => {
  it('declares tell_checkout on exactly the rows that bring a payment into completed, failed or cancelled from another status', () => {
    for (const r of PAYMENT_TABLE) {
      const tells = r.effects.some((e) => e.do === 'tell_checkout');
      const outcome = r.from !== r.to && ['completed', 'failed', 'cancelled'].includes(r.to);
      expect(tells, `${r.from} --${r.event}--> ${r.to}`).to.equal(outcome);
    }
    const telling = PAYMENT_TABLE.filter((r) => r.effects.some((e) => e.do === 'tell_checkout'));
    expect(telling.map((r) => r.to)).to.include.members(['completed', 'failed', 'cancelled']);
  });
});

describe('payment table: the decided attempts operator health counts (docs/availability.md#recording)', () => {
  it("records the collection on exactly the rows that decide it from an open status, never on a merchant's cancel or a late answer", () => {
    for (const r of PAYMENT_TABLE) {
      const recorded = r.effects.filter((e) => e.do === 'record_outcome');
      const decides =
        ['pending', 'processing'].includes(r.from) &&
        ['completed', 'failed', 'cancelled'].includes(r.to) &&
        r.event !== 'cancel';
      const refundDecided = r.event === 'refund_completed' || r.event === 'refund_refused';
      const label = `${r.from} --${r.event}--> ${r.to}`;
      if (decides)
        expect(recorded, label).to.deep.equal([
          { do: 'record_outcome', operation: 'collection', outcome: r.to === 'completed' ? 'success' : 'failure' },
        ]);
      else if (refundDecided)
        expect(recorded, label).to.deep.equal([
          {
            do: 'record_outcome',
            operation: 'refund',
            outcome: r.event === 'refund_completed' ? 'success' : 'failure',
          },
        ]);
      else expect(recorded, label).to.deep.equal([]);
    }
  });

  it("hands the provider's own reason of a failure to the write, and carries it in the create's one write", () => {
    const state = initialPaymentState(mobileMoneyPayment('mer_x', '+250788000002'));
    const decline = apply(
      state,
      { type: 'provider_decline', failureCode: 'insufficient_funds', message: 'no funds', reason: 'NOT_ENOUGH_FUNDS' },
      '2026-11-29T12:00:00Z',
    );
    if (!decline.ok) throw new Error('refused');
    expect(writeOrdersOf(decline.effects).outcome).to.deep.equal({
      operation: 'collection',
      outcome: 'failure',
      reason: 'NOT_ENOUGH_FUNDS',
    });
    const refused = applyInTurn(
      state,
      initiationEvents({ refused: { failureCode: 'provider_error', message: 'x', reason: 'NOT_ALLOWED' } }),
      '2026-11-29T12:00:00Z',
    );
    expect(oneWriteOf(refused)?.orders.outcome).to.deep.equal({
      operation: 'collection',
      outcome: 'failure',
      reason: 'NOT_ALLOWED',
    });
  });
});

describe('payment table: why an open payment waits and until when (docs/payments.md#decision-time)', () => {
  const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
  /** A new payment, as its workflow starts from it. */
  const fresh = (overrides: Partial<PaymentSnapshot> = {}) =>
    initialPaymentState({ ...mobileMoneyPayment('mer_x', '+250788000001', { nowMs: Date.parse(T0) }), ...overrides });
  const accepted: PaymentEvent = { type: 'initiation_accepted', providerReference: 'ref_1', nextAction: null };
  const taken = (state: PaymentState, event: PaymentEvent, at = AT): PaymentState => {
    const applied = apply(state, event, at);
    if (!applied.ok) throw new Error(`refused: ${applied.refusal.message}`);
    return applied.state;
  };

  it('gives a new payment provider_unreachable until the provider acknowledged it, until its expiry and the last word', () => {
    const { payment } = fresh();
    expect(payment).to.include({
      pendingReason: 'provider_unreachable',
      decisionExpectedBy: plus(payment.expiresAt, PROVIDER_WORD_WITHIN_MS),
    });
    expect(PROVIDER_WORD_WITHIN_MS).to.equal(180_000);
    // A payment that expires before initiation gives up (3 minutes) is waited for until then and a last word after.
    const short = fresh({ expiresAt: later(60_000) }).payment;
    expect(short.decisionExpectedBy).to.equal(later(2 * PROVIDER_WORD_WITHIN_MS));
  });

  it('waits for the customer once the provider took the request, until its expiry and the last word', () => {
    const { payment } = taken(fresh(), accepted);
    expect(payment).to.include({
      pendingReason: 'awaiting_customer',
      decisionExpectedBy: plus(payment.expiresAt, PROVIDER_WORD_WITHIN_MS),
    });
  });

  it("waits for the bank's notice of a bank transfer (awaiting_callback)", () => {
    const transfer = fresh({ provider: 'bank_transfer', kind: 'bank_transfer', paymentMethod: 'bank_transfer' });
    expect(taken(transfer, accepted).payment.pendingReason).to.equal('awaiting_callback');
  });

  it('waits for the provider once it settles (awaiting_provider)', () => {
    const { payment } = taken(taken(fresh(), accepted), { type: 'provider_processing' });
    expect(payment).to.include({
      status: 'processing',
      pendingReason: 'awaiting_provider',
      decisionExpectedBy: plus(payment.expiresAt, PROVIDER_WORD_WITHIN_MS),
    });
  });

  it('checks with the provider after an unanswered question until the reconciliation window after expiry, and waits as before once it answers again', () => {
    for (const [before, answer, after] of [
      [taken(fresh(), accepted), { type: 'provider_unknown' }, 'awaiting_customer'],
      [
        taken(taken(fresh(), accepted), { type: 'provider_processing' }),
        { type: 'provider_processing' },
        'awaiting_provider',
      ],
    ] as const) {
      const checking = taken(before, { type: 'provider_unanswered', reconciliationWindowMs: WINDOW_MS });
      expect(checking.payment).to.include({
        status: before.payment.status,
        pendingReason: 'checking_with_provider',
        decisionExpectedBy: plus(before.payment.expiresAt, PROVIDER_WORD_WITHIN_MS + WINDOW_MS),
      });
      expect(taken(checking, answer).payment.pendingReason).to.equal(after);
      // A provider still saying pending is no change to a payment whose last answer was known.
      expect(apply(before, answer, AT).ok).to.equal(false);
    }
  });

  it('counts the deadline from the moment of the change once the expiry has passed', () => {
    const late = later(3_600_000);
    const { payment } = taken(fresh(), accepted, late);
    expect(payment.decisionExpectedBy).to.equal(plus(late, PROVIDER_WORD_WITHIN_MS));
  });

  it('sets both on every row that leaves the payment open and clears both on every row that closes it', () => {
    for (const row of PAYMENT_TABLE) {
      const { state, event, at } = caseFor(row);
      const applied = apply(state, event, at);
      if (!applied.ok || !applied.effects.some((e) => e.do === 'write')) continue;
      const { pendingReason, decisionExpectedBy } = applied.state.payment;
      if (['pending', 'processing'].includes(row.to)) {
        expect(pendingReason, label(row)).to.be.a('string');
        expect(Date.parse(decisionExpectedBy as string), label(row)).to.be.greaterThan(Date.parse(at));
      } else
        expect({ pendingReason, decisionExpectedBy }, label(row)).to.deep.equal({
          pendingReason: null,
          decisionExpectedBy: null,
        });
    }
  });
});
