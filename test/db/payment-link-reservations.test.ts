/**
 * The reservations that hold a payment link's completion limit (docs/payment-links.md#limits), against the real
 * PostgreSQL: a place per attempt while the completed sessions plus the attempts in flight stay below the limit, a
 * repeat of the same attempt counted once, a stale place whose payment never came to exist no longer counting, an
 * inactive link refusing, and the settlement with a session's write moving reservations forward only: a retried
 * write counts a completion once, and a late success of an attempt that gave its place back still counts.
 */
import { expect } from 'chai';
import type { CheckoutSessionSnapshot } from '../../src/domain/checkout-table';
import {
  findPaymentLinkById,
  insertPaymentLink,
  releaseLinkReservation,
  reserveLinkAttempt,
  settleLinkReservations,
  STALE_RESERVATION_SECONDS,
} from '../../src/db/payment-links';
import { newId } from '../../src/lib/ids';
import { getStack } from '../helpers/stack';

async function newLink(limit: number | null, active = true) {
  const { db } = await getStack();
  const now = new Date().toISOString();
  return insertPaymentLink(db, {
    id: newId('plink_'),
    merchantId: 'mer_reservations',
    environment: 'sandbox',
    amount: 1_000,
    amountRange: null,
    currency: 'RWF',
    description: 'Seat',
    paymentMethods: ['mobile_money'],
    completedLimit: limit,
    completedCount: 0,
    afterCompletion: null,
    collect: [],
    active,
    createdAt: now,
    updatedAt: now,
  });
}

/** A link's session as its table left it: `attempts`, and `payment` when one completed it. */
function session(link: string, attempts: CheckoutSessionSnapshot['attempts'], payment: string | null) {
  return {
    id: 'cs_reservations',
    paymentLink: link,
    status: payment ? 'complete' : 'open',
    payment,
    attempts,
  } as CheckoutSessionSnapshot;
}

describe('payment link reservations (docs/payment-links.md#limits)', () => {
  it('admits attempts while completed plus in flight stay below the limit, once per payment', async () => {
    const { db } = await getStack();
    const link = await newLink(2);
    const reserve = (payment: string) => reserveLinkAttempt(db, { link: link.id, session: 'cs_a', payment });
    expect(await reserve('pay_a1')).to.equal('reserved');
    expect(await reserve('pay_a1')).to.equal('reserved');
    expect(await reserve('pay_a2')).to.equal('reserved');
    expect(await reserve('pay_a3')).to.equal('exhausted');
    await releaseLinkReservation(db, 'pay_a2');
    expect(await reserve('pay_a3')).to.equal('reserved');
    expect(await reserve('pay_a4')).to.equal('exhausted');
  });

  it('counts concurrent attempts one after another under the link’s lock: exactly the limit are admitted', async () => {
    const { db } = await getStack();
    const link = await newLink(2);
    const payments = ['pay_c1', 'pay_c2', 'pay_c3', 'pay_c4', 'pay_c5', 'pay_c6'];
    const results = await Promise.all(
      payments.map((payment) => reserveLinkAttempt(db, { link: link.id, session: `cs_${payment}`, payment })),
    );
    expect(results.filter((r) => r === 'reserved')).to.have.length(2);
    expect(await db('payment_link_reservations').where({ payment_link: link.id, status: 'held' })).to.have.length(2);
  });

  it('stops counting a place whose payment was never created after a while, and refuses on an inactive link', async () => {
    const { db } = await getStack();
    const link = await newLink(1);
    expect(await reserveLinkAttempt(db, { link: link.id, session: 'cs_b', payment: 'pay_lost' })).to.equal('reserved');
    expect(await reserveLinkAttempt(db, { link: link.id, session: 'cs_b', payment: 'pay_next' })).to.equal('exhausted');
    await db('payment_link_reservations')
      .where({ payment: 'pay_lost' })
      .update({ created_at: new Date(Date.now() - (STALE_RESERVATION_SECONDS + 5) * 1000) });
    expect(await reserveLinkAttempt(db, { link: link.id, session: 'cs_b', payment: 'pay_next' })).to.equal('reserved');
    const closed = await newLink(null, false);
    expect(await reserveLinkAttempt(db, { link: closed.id, session: 'cs_c', payment: 'pay_c' })).to.equal('inactive');
    expect(await db('payment_link_reservations').where({ payment: 'pay_c' }).first()).to.equal(undefined);
  });

  it('settles with the session’s write: failures give places back, a completion counts once, a late success counts', async () => {
    const { db } = await getStack();
    const link = await newLink(3);
    for (const payment of ['pay_s1', 'pay_s2'])
      await reserveLinkAttempt(db, { link: link.id, session: 'cs_reservations', payment });
    const failed = session(link.id, [{ payment: 'pay_s1', status: 'failed' }], null);
    await settleLinkReservations(db, failed);
    expect((await db('payment_link_reservations').where({ payment: 'pay_s1' }).first()).status).to.equal('released');
    const done = session(
      link.id,
      [
        { payment: 'pay_s1', status: 'failed' },
        { payment: 'pay_s2', status: 'succeeded' },
      ],
      'pay_s2',
    );
    await settleLinkReservations(db, done);
    await settleLinkReservations(db, done);
    expect((await findPaymentLinkById(db, link.id))?.completedCount).to.equal(1);
    // The first attempt's payment collected after all on an expired session of its own: it completes and counts.
    await settleLinkReservations(db, { ...session(link.id, [{ payment: 'pay_s1', status: 'succeeded' }], 'pay_s1') });
    expect((await findPaymentLinkById(db, link.id))?.completedCount).to.equal(2);
    expect((await db('payment_link_reservations').where({ payment: 'pay_s1' }).first()).status).to.equal('completed');
  });
});
