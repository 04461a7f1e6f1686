/**
 * The simulated operators (sim/operator.ts, docs/simulation.md#what-it-runs) outside Temporal: each offers the flows
 * the service's descriptor gives its provider, and answers in its own shapes (references, receipts, next actions,
 * refunds), so that the simulation does not let the service do what the real operator refuses.
 */
import { expect } from 'chai';
import type { ProviderCode } from '../../src/domain/catalogue';
import { PROVIDER_DESCRIPTORS } from '../../src/providers/descriptors';
import { capabilitiesOf } from '../../src/domain/provider-descriptor';
import { ProviderRefusal, ProviderUnsupported, type InitiateRequest } from '../../src/providers/provider';
import {
  createSimOperator,
  DEFAULT_FAULTS,
  operatorProfile,
  OPERATOR_PROFILES,
  type FaultRates,
  type SimOperator,
} from '../../sim/operator';

/** No lost answers, refusals, silent customers or late successes: every answer is the operator's first word. */
const FAULTLESS: FaultRates = { ...DEFAULT_FAULTS, lost: 0, refusal: 0, ignore: 0, lateSuccess: 0, pendingRefund: 0 };
const START_MS = Date.parse('2026-01-05T08:00:00Z');

/** A request to pay `amount` minor units as payment `id`, expiring 30 minutes after START_MS. */
function request(id: string, amount: number): InitiateRequest {
  return {
    paymentId: id,
    idempotencyKey: `payment:${id}:initiate`,
    amount,
    currency: 'RWF',
    customer: '+250788000001',
    description: 'simulated',
    expiresAt: new Date(START_MS + 30 * 60_000).toISOString(),
    callbackUrl: null,
  };
}

/**
 * An operator of `code` without an outage in the hour after START_MS (the first seed from 1 on without one; outages
 * come from the seed), and a payment its customer approved, found among the first ten payment ids (each one's fate is
 * drawn from the seed); the clock is then past its approval.
 */
async function collectedPayment(
  code: ProviderCode,
  clock: { ms: number },
): Promise<{ operator: SimOperator; id: string; reference: string; amount: number }> {
  const seed = Array.from({ length: 50 }, (_, i) => i + 1).find(
    (n) => createSimOperator(operatorProfile(code), n, () => START_MS).outages(START_MS + 3_600_000).length === 0,
  );
  const operator = createSimOperator(operatorProfile(code), seed!, () => clock.ms, FAULTLESS);
  for (let i = 0; i < 10; i++) {
    clock.ms = START_MS;
    const id = `pay_sim${i}`;
    operator.label(id, `p${i}`);
    const answer = await operator.adapter.initiate(request(id, 10_000));
    clock.ms = START_MS + 29 * 60_000;
    const now = await operator.adapter.fetchStatus(answer.providerReference);
    if (now.outcome.status === 'completed')
      return { operator, id, reference: answer.providerReference, amount: 10_000 };
  }
  throw new Error('no customer approved in ten payments');
}

describe('simulated operators (sim/operator.ts)', () => {
  it('offer exactly the flows the service gives each provider: MoMo, Airtel and M-Pesa take no cancel', () => {
    expect(OPERATOR_PROFILES.map((p) => p.code)).to.deep.equal(['momo', 'mobile_money_b', 'mpesa', 'card_gateway']);
    for (const profile of OPERATOR_PROFILES) {
      const descriptor = PROVIDER_DESCRIPTORS.find((d) => d.code === profile.code)!;
      const operator = createSimOperator(profile, 1, () => START_MS);
      expect(operator.adapter.supports, profile.code).to.deep.equal(capabilitiesOf(descriptor));
    }
    expect(operatorProfile('momo').supports.cancel).to.equal(false);
    expect(operatorProfile('card_gateway').supports.cancel).to.equal(true);
  });

  it('refuse a cancel with ProviderUnsupported where the provider has none, and cancel an open card payment', async () => {
    const clock = { ms: START_MS };
    const momo = createSimOperator(operatorProfile('momo'), 1, () => clock.ms, FAULTLESS);
    const sent = await momo.adapter.initiate(request('pay_m', 500));
    await momo.adapter.cancel(sent.providerReference).then(
      () => expect.fail('the MoMo simulator took a cancel'),
      (error: unknown) => expect(error).to.be.instanceOf(ProviderUnsupported),
    );
    const card = createSimOperator(operatorProfile('card_gateway'), 1, () => clock.ms, FAULTLESS);
    const intent = await card.adapter.initiate(request('pay_c', 500));
    expect(intent.providerReference).to.match(/^pi_/);
    expect(intent.nextAction).to.deep.equal({
      type: 'card_confirm',
      client_secret: `${intent.providerReference}_secret_sim`,
    });
    expect(intent.outcome.status).to.equal('pending');
    expect((await card.adapter.cancel(intent.providerReference)).outcome.status).to.equal('cancelled');
  });

  it("refuse Airtel's partial refund, and refund its whole payment", async () => {
    const clock = { ms: START_MS };
    const paid = await collectedPayment('mobile_money_b', clock);
    const airtel = paid.operator;
    const refund = { providerReference: paid.reference, paymentAmount: paid.amount, currency: 'RWF' as const };
    await airtel.adapter.refund({ ...refund, idempotencyKey: 'refund:ref_1', amount: 4_000 }).then(
      () => expect.fail('the Airtel simulator took a partial refund'),
      (error: unknown) => expect(error).to.be.instanceOf(ProviderRefusal),
    );
    expect(airtel.refunded(paid.id, clock.ms)).to.equal(0);
    const whole = await airtel.adapter.refund({ ...refund, idempotencyKey: 'refund:ref_2', amount: paid.amount });
    expect(whole.status).to.equal('succeeded');
    expect(airtel.refunded(paid.id, clock.ms)).to.equal(paid.amount);
  });

  it('shows a collection on its statement only once its lag passed, and explains the difference by the lag until then', async () => {
    const clock = { ms: START_MS };
    const paid = await collectedPayment('momo', clock);
    const window = { from: '2026-01-05T00:00:00.000Z', to: '2026-01-06T00:00:00.000Z' };
    const shown = async () =>
      (await paid.operator.statement.entries({ window })).filter((e) => e.providerReference === paid.reference);
    // The approval happened before the 29th minute; the statement shows it 1 minute to 4 hours after it.
    const settledAt = paid.operator.statementSettledAt(clock.ms);
    expect(settledAt).to.be.greaterThan(START_MS);
    clock.ms = settledAt - 1;
    expect(await shown()).to.deep.equal([]);
    expect(paid.operator.explain(paid.reference, clock.ms)).to.include('lag');
    // Its balance (how MoMo's account is reconciled) holds the collection from the moment it happened, lag or not.
    expect(paid.operator.balanceAt('RWF', START_MS)).to.equal(0);
    expect(paid.operator.balanceAt('RWF', clock.ms)).to.equal(paid.amount);
    expect(paid.operator.balanceAt('KES', clock.ms)).to.equal(0);
    clock.ms = settledAt;
    const [entry] = await shown();
    expect(entry).to.include({ kind: 'collection', amount: paid.amount, currency: 'RWF', status: 'settled' });
    // Once shown, the lag explains nothing: only the payment's injected faults do (none but its callbacks' plan here).
    expect(paid.operator.explain(paid.reference, clock.ms)).to.not.include('lag');
    expect(paid.operator.explain('sim_unknown', clock.ms)).to.equal(undefined);
  });

  it("answers M-Pesa's reversal pending, its result seconds later", async () => {
    const clock = { ms: START_MS };
    const paid = await collectedPayment('mpesa', clock);
    const mpesa = paid.operator;
    const refund = {
      providerReference: paid.reference,
      paymentAmount: paid.amount,
      amount: paid.amount,
      currency: 'KES' as const,
      idempotencyKey: 'refund:ref_9',
    };
    expect(await mpesa.adapter.refund(refund)).to.deep.equal({ status: 'pending' });
    clock.ms += 3 * 60_000;
    const decided = await mpesa.adapter.fetchRefund(refund);
    expect(decided.status).to.be.oneOf(['succeeded', 'failed']);
    expect(mpesa.refundedFor('ref_9', clock.ms)).to.equal(decided.status === 'succeeded' ? paid.amount : 0);
  });
});
