/**
 * Payouts and their rail's health under faults, against the real PostgreSQL and Temporal
 * (docs/availability.md#payouts, docs/payouts.md#rail-down), with a scripted MoMo rail that refuses as MoMo documents:
 * - the rail's own reasons decide whose a failure is: its internal error counts against it, our configuration's
 *   refusal is the platform's, an unknown wallet the payee's; each payout is recorded once;
 * - the read of the rail's status fails (PostgreSQL answers an error): the payout is neither sent nor lost, the read is
 *   retried, and the payout is sent and paid once it succeeds; a cancel meanwhile answers at once and nothing is sent.
 */
import { expect } from 'chai';
import type { PayoutRail, PayoutRequest, PayoutSendAnswer } from '../../src/providers/payout-rail';
import type { PayoutRailRegistry } from '../../src/providers/payout-registry';
import { call } from '../helpers/http';
import { activityRuns } from '../helpers/history';
import { ledgerProblems } from '../helpers/ledger';
import { fundedMerchant, startWithPayoutRails, waitForPayout } from '../helpers/payouts';
import { getStack } from '../helpers/stack';

/** What the scripted rail answers a send to a wallet ending in each of these (MoMo's documented reasons). */
const REFUSALS: Record<string, Pick<PayoutSendAnswer, 'failureCode' | 'providerReason'>> = {
  '0010': { failureCode: 'provider_error', providerReason: 'INTERNAL_PROCESSING_ERROR' },
  '0011': { failureCode: 'provider_error', providerReason: 'NOT_ALLOWED' },
  '0012': { failureCode: 'account_invalid', providerReason: 'PAYEE_NOT_FOUND' },
};

describe("payouts and their rail's health under faults (docs/availability.md#payouts)", function () {
  this.timeout(240_000);

  it("classifies the rail's refusals by its reasons, and rides out a failing read of the rail's status", async () => {
    const stack = await getStack();
    const sends: PayoutRequest[] = [];
    const rail: PayoutRail = {
      code: 'momo',
      async sendPayout(request) {
        sends.push(request);
        const providerReference = `scripted_${request.payoutId}`;
        const ending = request.destination.type === 'mobile_money' ? request.destination.phoneNumber.slice(-4) : '';
        const refusal = REFUSALS[ending];
        if (refusal) return { outcome: 'refused', providerReference, failureMessage: 'MoMo refused it', ...refusal };
        return { outcome: 'paid', providerReference };
      },
      async payoutStatus(providerReference) {
        return { outcome: 'paid', providerReference };
      },
    };
    const payoutRails: PayoutRailRegistry = {
      get: (_environment, provider) => (provider === 'momo' ? rail : undefined),
    };
    // The next `readsToFail` reads of a rail's status fail with PostgreSQL's own error (no such relation).
    let readsToFail = 0;
    let readsFailed = 0;
    const scripted = await startWithPayoutRails('payouts-health', payoutRails, (activities) => ({
      ...activities,
      async payoutRailHealth(environment, key) {
        if (readsToFail > 0) {
          readsToFail -= 1;
          readsFailed += 1;
          await stack.db.raw('select * from provider_health_gone');
        }
        return activities.payoutRailHealth(environment, key);
      },
    }));
    try {
      const merchant = await fundedMerchant(50_000);
      const key = merchant.key;
      const post = (path: string, body: unknown) =>
        fetch(scripted.baseUrl + path, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
      const payoutTo = async (ending: string) => {
        const destination = await post('/v1/payout_destinations', {
          type: 'mobile_money',
          phone_number: `+250788${ending.padStart(6, '0')}`,
        });
        expect(destination.status, JSON.stringify(destination.body)).to.equal(201);
        const created = await post('/v1/payouts', {
          amount: 1_000,
          currency: 'RWF',
          destination: destination.body.data.id,
        });
        expect(created.status, JSON.stringify(created.body)).to.equal(201);
        return created.body.data as { id: string; status: string; failure_code: string | null };
      };

      const refused = await Promise.all(Object.keys(REFUSALS).map(payoutTo));
      for (const payout of refused) expect(payout.status).to.equal('failed');
      const sides = (await stack.db('provider_outcomes').whereIn(
        'object_id',
        refused.map((p) => p.id),
      )) as { object_id: string; outcome: string; side: string }[];
      expect(
        refused.map((p) => sides.filter((o) => o.object_id === p.id).map((o) => [o.outcome, o.side])),
      ).to.deep.equal([[['failure', 'provider']], [['failure', 'platform']], [['failure', 'payer']]]);

      // The status read fails: no send meanwhile, retried, then sent once and paid.
      readsToFail = 3;
      const destination = await post('/v1/payout_destinations', {
        type: 'mobile_money',
        phone_number: '+250788000001',
      });
      const sentBefore = sends.length;
      const created = await post('/v1/payouts', {
        amount: 2_000,
        currency: 'RWF',
        destination: destination.body.data.id,
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const id = created.body.data.id as string;
      const paid = await waitForPayout(key, id, (p) => p.status === 'paid', 60_000);
      expect(paid.status).to.equal('paid');
      expect(readsFailed).to.equal(3);
      expect(sends.slice(sentBefore).map((s) => s.payoutId)).to.deep.equal([id]);
      const history = await stack.client.workflow.getHandle(`payout:${id}`).fetchHistory();
      const reads = activityRuns(history.events ?? []).filter((r) => r.type === 'payoutRailHealth');
      expect(reads.map((r) => r.attempt)).to.deep.equal([4]);
      const shown = await call(`/v1/payouts/${id}`, { key });
      expect(shown.body.data.status).to.equal('paid');

      // While the read keeps failing the payout waits pending, and a cancel does not wait for the read: it answers
      // `cancelled` at once, and the read that finally succeeds sends nothing.
      readsToFail = Number.MAX_SAFE_INTEGER;
      const held = await post('/v1/payouts', { amount: 2_000, currency: 'RWF', destination: destination.body.data.id });
      expect(held.body.data).to.include({ status: 'pending', pending_reason: null });
      const cancelled = await post(`/v1/payouts/${held.body.data.id}/cancel`, {});
      expect(cancelled.status, JSON.stringify(cancelled.body)).to.equal(200);
      expect(cancelled.body.data.status).to.equal('cancelled');
      readsToFail = 0;
      await stack.client.workflow.getHandle(`payout:${held.body.data.id}`).result();
      expect(sends.map((s) => s.payoutId)).to.not.include(held.body.data.id);
      expect(await ledgerProblems(stack.db, { merchantIds: [merchant.merchantId] })).to.deep.equal([]);
    } finally {
      await scripted.stop();
    }
  });
});
