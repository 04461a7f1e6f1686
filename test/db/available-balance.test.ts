/**
 * What a merchant is owed is read in one place (docs/ledger.md#balance-read) for both of its uses: the available
 * balance `GET /v1/balance` shows (`readBalance`) is exactly what a payout may take (docs/payouts.md#money,
 * `insertPayoutReserved` under the balance account's lock): a payout of amount + fee equal to it is accepted, one more
 * minor unit is refused `insufficient_balance`. Checked with fast-check over random histories of balance transactions
 * against the real PostgreSQL: credits and debits, available already, pending for hours or days, and dated a little
 * ahead (a debit written by a clock ahead of the reader's), with roll-ups between them, in one currency or two; and
 * against a model: owed = Σ net, pending = Σ net of the credits not yet available, available = owed − pending.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import type { Db } from '../../src/db/knex';
import { readBalance, rollUpBalance, writeJournal } from '../../src/db/ledger';
import { insertDestination, insertPayoutReserved } from '../../src/db/payouts';
import { adjustmentJournal } from '../../src/domain/ledger';
import type { Currency } from '../../src/domain/money';
import { acceptedPayoutState, type PayoutSnapshot } from '../../src/domain/payout';
import { newId } from '../../src/lib/ids';
import { insertMerchant } from '../helpers/fixtures';
import { getStack } from '../helpers/stack';

const HOUR_MS = 3_600_000;
/** When a balance transaction becomes available, relative to the read: past, a little or much ahead. */
const OFFSETS_MS = [-2 * 24 * HOUR_MS, -HOUR_MS, HOUR_MS, 26 * HOUR_MS] as const;

type Step = { kind: 'post'; currency: Currency; amount: number; offsetMs: number } | { kind: 'rollup' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('post' as const),
      currency: fc.constantFrom<Currency>('RWF', 'KES'),
      amount: fc.integer({ min: -3_000, max: 5_000 }).filter((amount) => amount !== 0),
      offsetMs: fc.constantFrom(...OFFSETS_MS),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'rollup' as const }) },
);

/** The model's available balance in `currency` after `steps`, at `now`. */
function modelAvailable(steps: Step[], currency: Currency): number {
  let owed = 0;
  let pending = 0;
  for (const s of steps) {
    if (s.kind !== 'post' || s.currency !== currency) continue;
    owed += s.amount;
    if (s.amount > 0 && s.offsetMs > 0) pending += s.amount;
  }
  return owed - pending;
}

/**
 * Whether a payout of `total` (amount, fee 0) in `currency` is accepted now; rolled back either way, so the
 * balance stays as it was.
 */
async function payoutAccepted(
  db: Db,
  merchantId: string,
  destinationId: string,
  currency: Currency,
  total: number,
): Promise<boolean> {
  const at = new Date().toISOString();
  const payout: PayoutSnapshot = {
    id: newId('po_'),
    merchantId,
    environment: 'sandbox',
    amount: total,
    fee: 0,
    currency,
    destinationId,
    provider: 'momo',
    description: null,
    automatic: false,
    ...acceptedPayoutState(at),
  };
  const rollback = new Error('rollback');
  try {
    await db.transaction(async (trx) => {
      await insertPayoutReserved(trx, payout, (p) => ({
        id: newId('evt_'),
        merchantId,
        environment: 'sandbox',
        type: 'payout.created',
        objectId: p.id,
        data: {},
        createdAt: at,
      }));
      throw rollback;
    });
  } catch (error) {
    if (error === rollback) return true;
    if ((error as { code?: string }).code === 'insufficient_balance') return false;
    throw error;
  }
  throw new Error('the payout transaction committed');
}

describe('available balance: GET /v1/balance and payouts read it in one place (docs/ledger.md#balance-read)', function () {
  this.timeout(180_000);

  it('a payout may take exactly the available balance the balance read shows, in every currency', async () => {
    const { db } = await getStack();
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        const merchantId = await insertMerchant(db);
        const scope = { merchantId, environment: 'sandbox' as const };
        const destinationId = newId('dst_');
        const created = new Date(Date.now() - 2 * 24 * HOUR_MS).toISOString();
        await insertDestination(db, {
          id: destinationId,
          merchantId,
          environment: 'sandbox',
          type: 'mobile_money',
          provider: 'momo',
          phoneNumber: '+250788000001',
          bankCode: null,
          accountNumber: null,
          accountHolderName: null,
          last4: '0001',
          status: 'verified',
          usableFrom: created,
          createdAt: created,
        });
        const now = Date.now();
        for (const s of steps) {
          if (s.kind === 'rollup') {
            await rollUpBalance(db, scope);
            continue;
          }
          const adjustment = adjustmentJournal({
            id: newId('adj_'),
            merchantId,
            environment: 'sandbox',
            currency: s.currency,
            amount: s.amount,
            operator: 'test',
            reason: 'history',
          });
          // An adjustment is available at once: its time is its `available_on`.
          await writeJournal(db, adjustment, new Date(now + s.offsetMs));
        }
        const balance = await readBalance(db, scope, new Date());
        for (const currency of ['RWF', 'KES'] as const) {
          const shown = balance.available.find((b) => b.currency === currency)?.amount ?? 0;
          expect(shown, `${currency} available after ${JSON.stringify(steps)}`).to.equal(
            modelAvailable(steps, currency),
          );
          if (shown > 0) {
            expect(await payoutAccepted(db, merchantId, destinationId, currency, shown), 'all of it').to.equal(true);
          }
          expect(
            await payoutAccepted(db, merchantId, destinationId, currency, Math.max(shown, 0) + 1),
            `one more than ${shown}`,
          ).to.equal(false);
        }
      }),
      { numRuns: 40 },
    );
  });
});
