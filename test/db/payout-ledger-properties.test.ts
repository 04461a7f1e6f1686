/**
 * The ledger's invariants (docs/ledger.md#invariants) under random payout histories, with fast-check, driven through
 * the payout table (docs/payouts.md#states): every step is a `PayoutEvent` given to `applyPayout`, and the row's
 * write is carried out as the payout workflow carries it out (src/workflows/payout-run.ts `commit` and `perform`), by
 * the real payout activity `recordPayout` against the real PostgreSQL. Events are random, so most are refused (a
 * rail's answer after `paid`, a cancel once `in_transit`, the same answer twice); a retry repeats the last write, as
 * Temporal retries an activity whose completion was lost.
 *
 * After every step: the journals the step wrote are exactly the `post` causes of the row it took; a refused event or
 * a retry changed nothing in the database; the ledger's invariants hold (`ledgerProblems`); the stored payout is the
 * table's; and the merchant's balance is what it was funded less amount + fee while the payout is held or paid, and
 * all of it once the payout failed, was cancelled or returned; its rail's decided outcome
 * (docs/availability.md#payouts) is recorded once from `paid` or `failed` on, and never for a cancel.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { createPayoutActivities, payoutEvent } from '../../src/activities/payout-activities';
import type { Db } from '../../src/db/knex';
import { writeJournal } from '../../src/db/ledger';
import { findPayoutById, insertDestination, insertPayoutReserved } from '../../src/db/payouts';
import { adjustmentJournal } from '../../src/domain/ledger';
import { acceptedPayoutState, type PayoutSnapshot } from '../../src/domain/payout';
import {
  applyPayout,
  PAYOUT_EVENT_TYPES,
  payoutWriteOrders,
  type PayoutEvent,
  type PayoutEventType,
} from '../../src/domain/payout-table';
import { newId } from '../../src/lib/ids';
import type { PayoutRecordInput } from '../../src/workflows/payout-messages';
import { insertMerchant } from '../helpers/fixtures';
import { ledgerProblems } from '../helpers/ledger';
import { getStack, testConfig } from '../helpers/stack';

const FUNDED = 1_000_000;

function eventOf(type: PayoutEventType, failure: 'account_invalid' | 'declined'): PayoutEvent {
  switch (type) {
    case 'rail_down':
      return { type, reason: 'the rail is down' };
    case 'rail_status':
      return { type, status: failure === 'declined' ? 'down' : 'operational', reason: 'the rail is down' };
    case 'provider_failed':
      return { type, providerReference: 'ref-1', failureCode: failure, message: 'refused' };
    case 'provider_not_received':
    case 'cancel':
      return { type };
    default:
      return { type, providerReference: 'ref-1' };
  }
}

type Step = { kind: 'event'; event: PayoutEvent } | { kind: 'retry' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .tuple(fc.constantFrom(...PAYOUT_EVENT_TYPES), fc.constantFrom('account_invalid' as const, 'declined' as const))
      .map(([type, failure]) => ({ kind: 'event' as const, event: eventOf(type, failure) })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'retry' as const }) },
);

/** The rows of every table a step may touch, of one merchant, as text: a refused step must leave them equal. */
async function fingerprint(db: Db, merchantId: string): Promise<string> {
  const { rows } = await db.raw<{ rows: { f: string }[] }>(
    `select concat_ws('|',
       (select string_agg(p::text, ',' order by id) from payouts p where merchant_id = :m),
       (select string_agg(j.cause, ',' order by j.cause) from ledger_journals j where split_part(j.cause, ':', 2) in
         (select id from payouts where merchant_id = :m)),
       (select string_agg(e.id, ',' order by e.id) from events e where merchant_id = :m),
       (select string_agg(d::text, ',' order by id) from payout_destinations d where merchant_id = :m)) as f`,
    { m: merchantId },
  );
  return rows[0].f;
}

async function payoutJournals(db: Db, payoutId: string): Promise<Set<string>> {
  const rows = (await db('ledger_journals').where('cause', 'like', `payout:${payoutId}:%`).select('cause')) as {
    cause: string;
  }[];
  return new Set(rows.map((r) => r.cause));
}

async function merchantNet(db: Db, merchantId: string): Promise<number> {
  const row = (await db('ledger_balance_transactions')
    .where({ merchant_id: merchantId, environment: 'sandbox', currency: 'RWF' })
    .sum({ net: 'net' })
    .first()) as { net: string | null };
  return Number(row.net ?? 0);
}

async function runHistory(db: Db, activities: ReturnType<typeof createPayoutActivities>, steps: Step[]) {
  const merchantId = await insertMerchant(db);
  const scope = { merchantId, environment: 'sandbox' as const };
  await writeJournal(
    db,
    adjustmentJournal({
      id: newId('adj_'),
      ...scope,
      currency: 'RWF',
      amount: FUNDED,
      operator: 'test',
      reason: 'funds',
    }),
    new Date(Date.now() - 1000),
  );
  const destinationId = newId('dst_');
  const created = new Date().toISOString();
  await insertDestination(db, {
    id: destinationId,
    ...scope,
    type: 'mobile_money',
    provider: 'momo',
    phoneNumber: '+250788000001',
    bankCode: null,
    accountNumber: null,
    accountHolderName: null,
    last4: '0001',
    status: 'pending_verification',
    usableFrom: created,
    createdAt: created,
  });
  let payout: PayoutSnapshot = {
    id: newId('po_'),
    ...scope,
    amount: 50_000,
    fee: 500,
    currency: 'RWF',
    destinationId,
    provider: 'momo',
    description: null,
    automatic: false,
    ...acceptedPayoutState(created),
  };
  await insertPayoutReserved(db, payout, (p) => payoutEvent(p, 'payout.created'));
  let clock = Date.parse(created);
  let last: PayoutRecordInput | undefined;
  for (const s of steps) {
    const before = await fingerprint(db, merchantId);
    const journalsBefore = await payoutJournals(db, payout.id);
    let declared: string[] = [];
    let changes = false;
    if (s.kind === 'retry') {
      if (last) await activities.recordPayout(last);
    } else {
      clock += 1000;
      const applied = applyPayout(payout, s.event, new Date(clock).toISOString());
      if (applied.ok) {
        payout = applied.payout;
        declared = applied.effects.flatMap((e) => (e.do === 'post' ? [e.cause] : []));
        if (applied.effects.some((e) => e.do === 'write')) {
          last = { payout: applied.payout, orders: payoutWriteOrders(applied) };
          await activities.recordPayout(last);
          changes = true;
        }
      }
    }
    const label = JSON.stringify(s);
    const journals = await payoutJournals(db, payout.id);
    const added = [...journals].filter((c) => !journalsBefore.has(c));
    expect(added, `journals of ${label}`).to.deep.equal(declared);
    if (!changes) expect(await fingerprint(db, merchantId), `changed by ${label}`).to.equal(before);
    expect(await ledgerProblems(db, { merchantIds: [merchantId] }), `after ${label}`).to.deep.equal([]);
    const stored = await findPayoutById(db, payout.id);
    expect(stored, `stored after ${label}`).to.deep.equal(payout);
    // The decided outcome its rail's health counts (docs/availability.md#payouts): once, from paid or failed on, never
    // for a cancel, whatever the retries.
    const decided = payout.paidAt !== null || payout.failedAt !== null;
    const outcomes = (await db('provider_outcomes').where({ object_id: payout.id })) as { outcome: string }[];
    expect(
      outcomes.map((o) => o.outcome),
      `outcomes after ${label}`,
    ).to.deep.equal(decided ? [payout.failedAt ? 'failure' : 'success'] : []);
    const givenBack = ['failed', 'cancelled', 'returned'].includes(payout.status);
    expect(await merchantNet(db, merchantId), `balance after ${label}`).to.equal(
      givenBack ? FUNDED : FUNDED - payout.amount - payout.fee,
    );
  }
}

describe('ledger invariants under random payout histories through the payout table (docs/payouts.md#states)', function () {
  this.timeout(600_000);

  it('hold after every step of 30 random histories of answers, cancels, refusals and retries', async () => {
    const { db, client } = await getStack();
    const config = testConfig();
    const activities = createPayoutActivities({ db, temporal: client, config });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), (steps) => runHistory(db, activities, steps)),
      { numRuns: 30 },
    );
  });
});
