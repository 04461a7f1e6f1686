/**
 * What a payment says of its refund and cancel (docs/payments.md#refundable-and-cancellable): `refundable` and
 * `cancellable` of the payment view, judged by the payment table with the provider's capabilities, the status, the
 * refund window and the refundable rest, each refusal with the message the API would answer.
 */
import { expect } from 'chai';
import { PROVIDER_CAPABILITIES } from '../../src/domain/catalogue';
import type { PaymentSnapshot } from '../../src/domain/payment';
import { cancelAbility, refundAbility } from '../../src/domain/payment-actions';
import { toGenericPaymentView } from '../../src/views/payment';
import { mobileMoneyPayment } from '../helpers/fixtures';

const DAY_MS = 86_400_000;
const WINDOW_MS = 180 * DAY_MS;
const T0 = '2026-11-23T10:00:00.000Z';
const later = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();

/** A payment of 1500 of `provider` in `status`, created at T0. */
function payment(
  provider: PaymentSnapshot['provider'],
  status: PaymentSnapshot['status'],
  extra = {},
): PaymentSnapshot {
  return { ...mobileMoneyPayment('mer_x', '+250788000001', { nowMs: Date.parse(T0) }), provider, status, ...extra };
}

describe('refundable and cancellable (docs/payments.md#refundable-and-cancellable)', () => {
  it('allows a refund of a completed payment within the window, in part where the provider refunds in part', () => {
    expect(
      refundAbility(payment('momo', 'completed'), PROVIDER_CAPABILITIES.momo, later(DAY_MS), WINDOW_MS),
    ).to.deep.equal({ allowed: true, partial: true, reason: null });
    // Airtel and M-Pesa give back whole payments only.
    for (const provider of ['mobile_money_b', 'mpesa'] as const)
      expect(
        refundAbility(payment(provider, 'completed'), PROVIDER_CAPABILITIES[provider], later(DAY_MS), WINDOW_MS),
      ).to.deep.equal({ allowed: true, partial: false, reason: null });
  });

  it('says why not: the status, the window, nothing left, a provider that refunds nothing or only whole payments', () => {
    const at = later(DAY_MS);
    const reasons = [
      refundAbility(payment('momo', 'pending'), PROVIDER_CAPABILITIES.momo, at, WINDOW_MS),
      refundAbility(payment('momo', 'completed'), PROVIDER_CAPABILITIES.momo, later(WINDOW_MS + DAY_MS), WINDOW_MS),
      refundAbility(payment('momo', 'refunded', { amountRefunded: 1500 }), PROVIDER_CAPABILITIES.momo, at, WINDOW_MS),
      refundAbility(
        payment('momo', 'completed', { amountRefundPending: 1500 }),
        PROVIDER_CAPABILITIES.momo,
        at,
        WINDOW_MS,
      ),
      refundAbility(payment('momo', 'completed'), { refund: false, partialRefund: false }, at, WINDOW_MS),
      refundAbility(
        payment('mobile_money_b', 'completed', { amountRefundPending: 500 }),
        PROVIDER_CAPABILITIES.mobile_money_b,
        at,
        WINDOW_MS,
      ),
    ];
    expect(reasons.map((r) => r.allowed)).to.deep.equal([false, false, false, false, false, false]);
    expect(reasons.map((r) => r.partial)).to.deep.equal([false, false, false, false, false, false]);
    expect(reasons.map((r) => r.reason)).to.deep.equal([
      'a pending payment cannot be refunded; only completed payments can',
      'payments can be refunded for 180 days after they were created',
      'a refunded payment cannot be refunded; only completed payments can',
      'the payment has been refunded in full',
      'momo payments cannot be refunded through the API',
      'mobile_money_b payments can only be refunded whole: refund 1500 (minor units) or nothing',
    ]);
  });

  it('allows a cancel of an open payment only where the provider withdraws its request', () => {
    const at = later(1000);
    expect(cancelAbility(payment('card_gateway', 'pending'), PROVIDER_CAPABILITIES.card_gateway, at)).to.deep.equal({
      allowed: true,
      reason: null,
    });
    expect(cancelAbility(payment('momo', 'pending'), PROVIDER_CAPABILITIES.momo, at)).to.deep.equal({
      allowed: false,
      reason: 'momo cannot withdraw a request the customer has not answered: it lapses at expires_at',
    });
    expect(cancelAbility(payment('card_gateway', 'completed'), PROVIDER_CAPABILITIES.card_gateway, at)).to.deep.equal({
      allowed: false,
      reason: 'a completed payment cannot be cancelled; only pending and processing payments can',
    });
  });

  it('the payment view carries both, judged by the adapter serving it when the caller says, else by the descriptor', () => {
    const completed = payment('momo', 'completed');
    const view = toGenericPaymentView(completed, { at: later(DAY_MS) });
    expect({ refundable: view.refundable, cancellable: view.cancellable }).to.deep.equal({
      refundable: { allowed: true, partial: true, reason: null },
      cancellable: {
        allowed: false,
        reason: 'a completed payment cannot be cancelled; only pending and processing payments can',
      },
    });
    // A live MoMo adapter without the Disbursement credentials refunds nothing; a shorter configured window.
    const unconfigured = { cancel: false, refund: false, partialRefund: false };
    expect(
      toGenericPaymentView(completed, { at: later(DAY_MS), capabilities: () => unconfigured }).refundable,
    ).to.deep.equal({ allowed: false, partial: false, reason: 'momo payments cannot be refunded through the API' });
    expect(toGenericPaymentView(completed, { at: later(2 * DAY_MS), refundWindowDays: 1 }).refundable.reason).to.equal(
      'payments can be refunded for 1 days after they were created',
    );
  });
});
