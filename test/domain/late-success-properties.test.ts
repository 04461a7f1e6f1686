/**
 * Property: a payment the provider collected always ends booked (docs/payments.md#late-successes), whatever its
 * provider can do (cancel, refund, partial refund: every combination, and each real descriptor's live capabilities)
 * and whatever came before the success (a cancel, an expiry inside or outside the reconciliation window, a provider
 * error, a decline, the same success twice). Drives the table purely, as the run carries its effects out
 * (src/workflows/payment-run.ts): the automatic refund is sent only where the table asks, a refund the provider
 * refuses at send time is withdrawn and the success booked, a refund's answer is completed, refused or unknown then
 * completed. Asserts: exactly one collection posted, every journal posted balances, and no step throws (the workflow
 * never dies).
 */
import { expect } from 'chai';
import fc from 'fast-check';
import {
  journalProblems,
  paymentCollectedJournal,
  refundCompletedJournal,
  refundFailedJournal,
  refundReservedJournal,
  type JournalDraft,
} from '../../src/domain/ledger';
import type { PaymentSnapshot } from '../../src/domain/payment';
import {
  apply,
  cancelEvent,
  initialPaymentState,
  lateSuccessRefundId,
  refundCapabilityRefusal,
  type Effect,
  type PaymentEvent,
  type PaymentState,
} from '../../src/domain/payment-table';
import type { ProviderCapabilities } from '../../src/domain/provider-descriptor';
import type { RefundRecord } from '../../src/domain/refund';
import { PROVIDER_DESCRIPTORS } from '../../src/providers/descriptors';
import { mobileMoneyPayment } from '../helpers/fixtures';

const DAY_MS = 86_400_000;
const WINDOW_MS = 7 * DAY_MS;
const T0 = Date.parse('2026-11-23T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

/** What came before the provider's success. */
type Path =
  | 'cancel'
  | 'expiry_inside_window'
  | 'expiry_outside_window'
  | 'provider_error'
  | 'decline'
  | 'customer_cancel_at_provider';
const PATHS: readonly Path[] = [
  'cancel',
  'expiry_inside_window',
  'expiry_outside_window',
  'provider_error',
  'decline',
  'customer_cancel_at_provider',
];

/** The provider's answer to a refund sent to it. */
type RefundAnswer = 'completed' | 'refused' | 'unknown_then_completed' | 'unknown_then_refused';

const ALL_COMBINATIONS: ProviderCapabilities[] = [false, true].flatMap((cancel) =>
  [false, true].flatMap((refund) => [false, true].map((partialRefund) => ({ cancel, refund, partialRefund }))),
);
const LIVE: ProviderCapabilities[] = PROVIDER_DESCRIPTORS.flatMap((d) => (d.live ? [d.live] : []));

/** What one payment's life wrote: the ledger causes posted (in order) and the state it ended in. */
interface Life {
  posted: string[];
  state: PaymentState;
  exceptions: string[];
  cancelRefused: boolean;
  /** The adapter refuses the refund when it is sent, whatever the event said (stale or unknown capabilities). */
  refuseAtSend: boolean;
}

/**
 * Carries out `event` as the run does, effects and all, with a provider of `supports` that answers refunds by
 * `refundAnswer`. Throws nothing: a refusal of the table changes nothing.
 */
function drive(
  life: Life,
  event: PaymentEvent,
  when: string,
  supports: ProviderCapabilities,
  refundAnswer: RefundAnswer,
) {
  const applied = apply(life.state, event, when);
  if (!applied.ok) return;
  life.state = applied.state;
  const effects: Effect[] = applied.effects;
  if (!effects.some((e) => e.do === 'ask_provider')) {
    for (const e of effects) if (e.do === 'post') life.posted.push(e.cause);
    for (const e of effects) if (e.do === 'record_exception') life.exceptions.push(e.kind);
    return;
  }
  const refund = applied.refund as RefundRecord;
  // refundAtProvider: the adapter's own check first; nothing is written for a refund it cannot take (also when the
  // event's capabilities were unknown or stale: `sendAnyway`).
  if (refundCapabilityRefusal(life.state.payment, refund.amount, supports) || life.refuseAtSend) {
    drive(life, { type: 'refund_withdrawn', refundId: refund.id }, when, supports, refundAnswer);
    const unrefundable = { refund: false, partialRefund: false };
    drive(
      life,
      { type: 'late_success', reconciliationWindowMs: 0, capabilities: unrefundable },
      when,
      supports,
      refundAnswer,
    );
    return;
  }
  for (const e of effects) if (e.do === 'post') life.posted.push(e.cause);
  const final = refundAnswer.endsWith('completed') ? 'completed' : 'refused';
  if (refundAnswer.startsWith('unknown'))
    drive(life, { type: 'refund_unknown', refundId: refund.id }, when, supports, refundAnswer);
  const answer: PaymentEvent =
    final === 'completed'
      ? { type: 'refund_completed', refundId: refund.id, providerReference: 'prov_ref' }
      : { type: 'refund_refused', refundId: refund.id, message: 'refused' };
  drive(life, answer, when, supports, refundAnswer);
  // PaymentRun.decideRefund: the late success's refund refused, the payment is booked as collected.
  if (final === 'refused' && refund.id === lateSuccessRefundId(life.state.payment.id))
    drive(life, { type: 'late_refund_refused' }, when, supports, refundAnswer);
}

/** A payment's life: created pending, then `path`, then the provider's success (`successes` times). */
function live(path: Path, supports: ProviderCapabilities, refundAnswer: RefundAnswer, successes: number): Life {
  const payment: PaymentSnapshot = {
    ...mobileMoneyPayment('mer_x', '+250788000001', { nowMs: T0 }),
    providerReference: 'prov_1',
    version: 1,
    updatedAt: at(0),
  };
  const life: Life = {
    posted: [],
    state: initialPaymentState(payment),
    exceptions: [],
    cancelRefused: false,
    refuseAtSend: false,
  };
  const go = (event: PaymentEvent, ms: number) => drive(life, event, at(ms), supports, refundAnswer);
  switch (path) {
    case 'cancel': {
      // The API and the run ask the table with the provider's capability; the run's provider call answers
      // `unsupported` where it cannot withdraw (cancelEvent).
      const before = life.state;
      const event = supports.cancel ? cancelEvent({ status: 'cancelled' }, null) : cancelEvent('unsupported', null);
      go(event, 1000);
      life.cancelRefused = life.state === before;
      break;
    }
    case 'customer_cancel_at_provider':
      go({ type: 'provider_cancelled' }, 1000);
      break;
    case 'expiry_inside_window':
    case 'expiry_outside_window':
      go({ type: 'expiry' }, 1000);
      break;
    case 'provider_error':
      go({ type: 'provider_error', message: 'fault' }, 1000);
      break;
    case 'decline':
      go({ type: 'provider_decline', failureCode: 'declined', message: 'no' }, 1000);
      break;
  }
  const lateMs = path === 'expiry_outside_window' ? 1000 + WINDOW_MS + 1 : 2000;
  const { refund, partialRefund } = supports;
  for (let i = 0; i < successes; i++) {
    const status = life.state.payment.status;
    const event: PaymentEvent =
      status === 'pending' || status === 'processing'
        ? { type: 'provider_success' }
        : { type: 'late_success', reconciliationWindowMs: WINDOW_MS, capabilities: { refund, partialRefund } };
    go(event, lateMs + i);
  }
  return life;
}

/** The journal a cause posts for `state`'s payment (the table's causes, docs/ledger.md#postings). */
function journalOf(cause: string, state: PaymentState): JournalDraft {
  const p = state.payment;
  const [kind, id, step] = cause.split(':') as [string, string, string];
  if (kind === 'payment') return paymentCollectedJournal({ ...p, fee: p.feeAmount, settlementDelayDays: 0 });
  const refund = {
    id,
    paymentId: p.id,
    merchantId: p.merchantId,
    environment: p.environment,
    currency: p.currency,
    provider: p.provider,
    amount: p.amount,
  };
  if (step === 'reserved') return refundReservedJournal(refund);
  if (step === 'completed') return refundCompletedJournal(refund);
  return refundFailedJournal(refund);
}

const capabilities = fc.oneof(fc.constantFrom(...ALL_COMBINATIONS), fc.constantFrom(...LIVE));

describe('late successes always end booked (docs/payments.md#late-successes)', () => {
  it('every capability, every path: one collection posted, balanced journals, nothing thrown', () => {
    fc.assert(
      fc.property(
        capabilities,
        fc.constantFrom(...PATHS),
        fc.constantFrom<RefundAnswer>('completed', 'refused', 'unknown_then_completed', 'unknown_then_refused'),
        fc.integer({ min: 1, max: 3 }),
        (supports, path, refundAnswer, successes) => {
          const life = live(path, supports, refundAnswer, successes);
          const collection = `payment:${life.state.payment.id}:completed`;
          expect(
            life.posted.filter((c) => c === collection),
            'one collection',
          ).to.have.length(1);
          expect(new Set(life.posted).size, 'each cause once').to.equal(life.posted.length);
          for (const cause of life.posted) expect(journalProblems(journalOf(cause, life.state))).to.deep.equal([]);
          expect(life.state.pendingRefunds, 'no refund left in flight').to.deep.equal([]);
          const { status, amountRefunded, amount } = life.state.payment;
          if (status === 'cancelled') {
            // Refunded back: only where the provider refunds, and only when it paid the refund.
            expect(supports.refund).to.equal(true);
            expect(life.posted).to.include(`refund:ref_${life.state.payment.id.slice(4)}:completed`);
            expect(amountRefunded).to.equal(amount);
          } else expect(['completed', 'refunded'], status).to.include(status);
          // A success whose money stayed with the merchant says so: completed, with its exception.
          if (status === 'completed' && path === 'cancel' && !life.cancelRefused)
            expect(life.exceptions).to.include('late_success_unrefundable');
          if (status === 'refunded') expect(amountRefunded).to.equal(amount);
          if (path === 'cancel') expect(life.cancelRefused).to.equal(!supports.cancel);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('books a success whose automatic refund the provider refuses at send time, once', () => {
    const life = live('cancel', { cancel: true, refund: true, partialRefund: true }, 'completed', 0);
    life.refuseAtSend = true;
    const late: PaymentEvent = { type: 'late_success', reconciliationWindowMs: WINDOW_MS };
    for (const ms of [2000, 3000])
      drive(life, late, at(ms), { cancel: true, refund: true, partialRefund: true }, 'completed');
    expect(life.state.payment.status).to.equal('completed');
    expect(life.posted).to.deep.equal([`payment:${life.state.payment.id}:completed`]);
    expect(life.exceptions).to.deep.equal(['late_success_unrefundable']);
  });

  it('books a success whose automatic refund the provider refuses after it was sent as completed, once', () => {
    const refundable = { cancel: true, refund: true, partialRefund: true };
    const life = live('cancel', refundable, 'unknown_then_refused', 1);
    const id = life.state.payment.id;
    expect(life.state.payment).to.include({ status: 'completed', amountRefunded: 0 });
    expect(life.exceptions).to.deep.equal(['late_success_unrefundable']);
    const refund = `ref_${id.slice(4)}`;
    expect(life.posted).to.deep.equal([
      `payment:${id}:completed`,
      `refund:${refund}:reserved`,
      `refund:${refund}:failed`,
    ]);
    // A second report of the success changes nothing.
    drive(life, { type: 'late_success', reconciliationWindowMs: WINDOW_MS }, at(5000), refundable, 'completed');
    expect(life.state.payment.status).to.equal('completed');
    expect(life.exceptions).to.have.length(1);
  });

  it('books an unrefundable or out-of-window success as completed with its exception', () => {
    const mpesaLike = { cancel: false, refund: false, partialRefund: false };
    const outside = live('expiry_outside_window', mpesaLike, 'completed', 2);
    expect(outside.state.payment.status).to.equal('completed');
    expect(outside.exceptions).to.deep.equal(['late_success_after_window']);
    const cancelNoRefund = { cancel: true, refund: false, partialRefund: false };
    const cancelled = live('cancel', cancelNoRefund, 'completed', 2);
    expect(cancelled.state.payment).to.include({ status: 'completed' });
    expect(cancelled.exceptions).to.deep.equal(['late_success_unrefundable']);
    const refundable = live('cancel', { cancel: true, refund: true, partialRefund: true }, 'completed', 1);
    expect(refundable.state.payment).to.include({ status: 'cancelled', amountRefunded: 1500 });
    expect(refundable.exceptions).to.deep.equal([]);
  });
});
