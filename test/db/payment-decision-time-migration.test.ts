/**
 * The migration that adds why an open payment waits and until when (docs/payments.md#decision-time) fills both in for
 * the open payments written before it, as the payment's table would decide them, and leaves final payments without.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createDb, migrateLatest, type Db } from '../../src/db/knex';
import {
  findPaymentById,
  insertPaymentWithCreatedEvent,
  statusWriteOf,
  updatePaymentStatus,
} from '../../src/db/payments';
import type { PaymentSnapshot } from '../../src/domain/payment';
import { PROVIDER_WORD_WITHIN_MS } from '../../src/domain/payment-table';
import { paymentEvent } from '../../src/activities/events';
import { down, up } from '../../migrations/20261129000700_payment_decision_time';
import { insertMerchant, mobileMoneyPayment } from '../helpers/fixtures';
import { testConfig } from '../helpers/stack';

describe('migration 20261129000700: decision time of the open payments written before it', function () {
  this.timeout(60_000);
  const name = `decision_time_${randomBytes(4).toString('hex')}`;
  const adminUrl = testConfig().DATABASE_URL;
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let db: Db;

  before(async () => {
    const admin = createDb(adminUrl, 1);
    await admin.raw(`CREATE DATABASE ${name}`);
    await admin.destroy();
    db = createDb(url.toString(), 2);
    await migrateLatest(db);
  });

  after(async () => {
    await db?.destroy();
    const admin = createDb(adminUrl, 1);
    await admin.raw(`DROP DATABASE IF EXISTS ${name}`);
    await admin.destroy();
  });

  /** Writes `payment` as it stands (inserted pending, then its state written). */
  async function write(payment: PaymentSnapshot): Promise<string> {
    const created = { ...payment, status: 'pending' as const, version: 0 };
    await insertPaymentWithCreatedEvent(db, created, paymentEvent(created, 'payment.created'));
    if (payment.status !== 'pending' || payment.providerReference !== null)
      await updatePaymentStatus(db, statusWriteOf({ ...payment, version: 1 }, []));
    return payment.id;
  }

  it('fills in the reason and the deadline of every open payment, and nothing for a final one', async () => {
    const merchantId = await insertMerchant(db);
    const base = (overrides: Partial<PaymentSnapshot>) => ({
      ...mobileMoneyPayment(merchantId, '+250788000003', { nowMs: Date.parse('2026-11-20T10:00:00.000Z') }),
      ...overrides,
    });
    const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
    const unanswered = base({});
    const prompted = base({ providerReference: 'momo_1' });
    const settling = base({ providerReference: 'momo_2', status: 'processing' });
    const transfer = base({
      providerReference: 'bt_1',
      provider: 'bank_transfer',
      kind: 'bank_transfer',
      paymentMethod: 'bank_transfer',
      customerPhone: null,
    });
    const shortLived = base({ expiresAt: plus(base({}).createdAt, 60_000) });
    const done = base({ providerReference: 'momo_3', status: 'completed' });
    for (const p of [unanswered, prompted, settling, transfer, shortLived, done]) await write(p);

    await down(db);
    await up(db);

    const read = async (p: PaymentSnapshot) => {
      const stored = await findPaymentById(db, p.id);
      return [stored?.pendingReason, stored?.decisionExpectedBy];
    };
    const afterExpiry = plus(unanswered.expiresAt, PROVIDER_WORD_WITHIN_MS);
    expect(await read(unanswered)).to.deep.equal(['provider_unreachable', afterExpiry]);
    expect(await read(prompted)).to.deep.equal(['awaiting_customer', afterExpiry]);
    expect(await read(settling)).to.deep.equal(['awaiting_provider', afterExpiry]);
    expect(await read(transfer)).to.deep.equal(['awaiting_callback', afterExpiry]);
    expect(await read(shortLived)).to.deep.equal([
      'provider_unreachable',
      plus(shortLived.createdAt, 2 * PROVIDER_WORD_WITHIN_MS),
    ]);
    expect(await read(done)).to.deep.equal([null, null]);
    const refused = await db('payments')
      .where({ id: done.id })
      .update({ pending_reason: 'waiting' })
      .then(
        () => 'stored',
        (error: Error) => error.message,
      );
    expect(refused).to.match(/payments_pending_reason_check/);
  });
});
