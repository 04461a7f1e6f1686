/**
 * Operator health against the real PostgreSQL (docs/availability.md): decided attempts recorded once, the measurement
 * that judges every served provider, country and operation from them, its status changes, and operators' overrides.
 * Each test measures at its own moment far from the others', so their buckets never meet.
 */
import { expect } from 'chai';
import type { Db } from '../../src/db/knex';
import { purgeExpiredRows } from '../../src/db/maintenance';
import { readBuckets, recordProviderOutcome } from '../../src/db/provider-health';
import { BUCKET, servedHealthKeys, type DecidedAttempt, type HealthKey } from '../../src/domain/provider-health';
import { DomainError } from '../../src/domain/errors';
import { measureProviderHealth } from '../../src/activities/provider-health-activities';
import { availabilityOf, overrideProviderStatus } from '../../src/services/provider-health-service';
import { newId } from '../../src/lib/ids';
import { getStack } from '../helpers/stack';

const MINUTE = 60_000;
const MOMO_RW: HealthKey = { provider: 'momo', country: 'RW', operation: 'collection' };
let moment = Date.parse('2031-01-01T00:00:00Z');

/** A moment of its own for a test: a day after the previous test's. */
function freshMoment(): number {
  moment += 86_400_000;
  return moment;
}

/** Records `count` attempts of `key` decided one a second up to `at`; `side(i)` null for a success. */
async function record(db: Db, key: HealthKey, at: number, count: number, side: (i: number) => DecidedAttempt['side']) {
  for (let i = 0; i < count; i += 1) {
    const s = side(i);
    await recordProviderOutcome(db, {
      ...key,
      environment: 'sandbox',
      merchantId: 'mer_health',
      objectId: newId('pay_'),
      attempt: {
        decidedAt: at - i * 1000,
        seconds: 12,
        outcome: s ? 'failure' : 'success',
        side: s,
        neverReached: false,
      },
    });
  }
}

async function statusOf(db: Db, key: HealthKey) {
  const rows = await availabilityOf(db, 'sandbox');
  return rows.find(
    (row) => row.provider === key.provider && row.country === key.country && row.operation === key.operation,
  );
}

describe('operator health (PostgreSQL)', () => {
  let db: Db;
  before(async () => {
    db = (await getStack()).db;
  });
  beforeEach(async () => {
    await db('provider_health').del();
    await db('provider_status_changes').del();
  });

  it('lists every served provider, country and operation, operational and without figures before any traffic', async () => {
    const rows = await availabilityOf(db, 'sandbox');
    expect(rows).to.have.length(servedHealthKeys('sandbox').length);
    expect(rows.find((row) => row.provider === 'mpesa' && row.operation === 'payout')).to.deep.include({
      country: 'KE',
      status: 'operational',
      successRate: null,
      windowAttempts: 0,
    });
  });

  it('records an attempt once, however often it is told', async () => {
    const at = freshMoment();
    const attempt: DecidedAttempt = { decidedAt: at, seconds: 3, outcome: 'success', side: null, neverReached: false };
    const input = {
      ...MOMO_RW,
      environment: 'sandbox' as const,
      merchantId: 'mer_x',
      objectId: newId('pay_'),
      attempt,
    };
    await recordProviderOutcome(db, input);
    await recordProviderOutcome(db, input);
    const [row] = (await db('provider_outcomes').where({ object_id: input.objectId }).count({ n: '*' })) as {
      n: string;
    }[];
    expect(Number(row?.n)).to.equal(1);
  });

  it("deletes outcomes decided more than 7 days ago with the API's housekeeping, and keeps the rest", async () => {
    const { db } = await getStack();
    const now = Date.now();
    const ids = { old: newId('pay_'), kept: newId('pay_') };
    for (const [id, ageDays] of [
      [ids.old, 8],
      [ids.kept, 2],
    ] as const)
      await recordProviderOutcome(db, {
        ...MOMO_RW,
        environment: 'sandbox',
        merchantId: 'mer_health',
        objectId: id,
        attempt: {
          decidedAt: now - ageDays * 86_400_000,
          seconds: 12,
          outcome: 'success',
          side: null,
          neverReached: false,
        },
      });
    const deleted = await purgeExpiredRows(db, new Date(now));
    expect(deleted.providerOutcomes).to.be.at.least(1);
    expect(await db('provider_outcomes').whereIn('object_id', [ids.old, ids.kept]).pluck('object_id')).to.deep.equal([
      ids.kept,
    ]);
  });

  it('degrades an operator failing 30 % of attempts, once, and tells the change', async () => {
    const at = freshMoment();
    await measureProviderHealth(db, 'sandbox', at - 30 * MINUTE);
    await record(db, MOMO_RW, at, 50, (i) => (i % 10 < 3 ? 'provider' : null));
    const changes = await measureProviderHealth(db, 'sandbox', at);
    expect(changes).to.deep.equal([{ ...MOMO_RW, from: 'operational', to: 'degraded' }]);
    expect(await statusOf(db, MOMO_RW)).to.deep.include({ status: 'degraded', successRate: 0.7, windowAttempts: 50 });
    expect(await measureProviderHealth(db, 'sandbox', at)).to.deep.equal([]);
    const history = await db('provider_status_changes').where({ provider: 'momo', country: 'RW' });
    expect(history.map((row: { to_status: string }) => row.to_status)).to.deep.equal(['degraded']);
  });

  it("keeps one market's measured outage out of the same operator's other markets (Airtel Zambia down, Tanzania up)", async () => {
    const at = freshMoment();
    const zambia: HealthKey = { provider: 'mobile_money_b', country: 'ZM', operation: 'collection' };
    const tanzania: HealthKey = { ...zambia, country: 'TZ' };
    await measureProviderHealth(db, 'sandbox', at - 30 * MINUTE);
    await record(db, zambia, at, 40, () => 'provider');
    await record(db, tanzania, at, 40, () => null);
    const changes = await measureProviderHealth(db, 'sandbox', at);
    expect(changes).to.deep.equal([{ ...zambia, from: 'operational', to: 'down' }]);
    expect(await statusOf(db, zambia)).to.deep.include({ status: 'down', successRate: 0 });
    expect(await statusOf(db, tanzania)).to.deep.include({ status: 'operational', successRate: 1 });
    for (const country of ['MW', 'CD', 'KE', 'UG'])
      expect((await statusOf(db, { ...zambia, country }))?.status, country).to.equal('operational');
  });

  it('tells a change found by the first measurement of a key, which showed operational before it', async () => {
    const at = freshMoment();
    await record(db, MOMO_RW, at, 50, (i) => (i % 10 < 3 ? 'provider' : null));
    expect((await statusOf(db, MOMO_RW))?.status).to.equal('operational');
    const changes = await measureProviderHealth(db, 'sandbox', at);
    expect(changes).to.deep.equal([{ ...MOMO_RW, from: 'operational', to: 'degraded' }]);
    const history = await db('provider_status_changes').where({ provider: 'momo', country: 'RW' });
    expect(
      history.map((row: { from_status: string; to_status: string }) => [row.from_status, row.to_status]),
    ).to.deep.equal([['operational', 'degraded']]);
  });

  it("reads each key's most recent attempts, not the environment's history", async () => {
    const at = freshMoment();
    // A day of older outcomes of one key (5,000, all before the bucket's 10 minutes), then its 50 most recent.
    await db.raw(
      `INSERT INTO provider_outcomes (environment, provider, country, operation, merchant_id, object_id, decided_at,
         duration_ms, outcome, side, never_reached)
       SELECT 'sandbox', 'momo', 'RW', 'collection', 'mer_history', 'pay_history_' || ? || '_' || i,
              to_timestamp((?::bigint - 11 * 60000 - i * 17000) / 1000.0), 12000, 'success', null, false
         FROM generate_series(1, 5000) AS i`,
      [at, at],
    );
    await record(db, MOMO_RW, at, 50, () => null);
    await db.raw('ANALYZE provider_outcomes');
    // The counts of the transaction's view are the connection's not yet flushed ones (PostgreSQL flushes them at most
    // once a second, between transactions), so they may hold an earlier statement's reads: the read is the difference.
    const read = await db.transaction(async (trx) => {
      const rowsRead = async () =>
        Number(
          (
            await trx.raw<{ rows: { n: string }[] }>(
              `SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS n
                 FROM pg_stat_xact_user_tables WHERE relname = 'provider_outcomes'`,
            )
          ).rows[0]?.n ?? 0,
        );
      const before = await rowsRead();
      const buckets = await readBuckets(trx, 'sandbox', at);
      return { bucket: buckets.get('momo:RW:collection')?.length, rows: (await rowsRead()) - before };
    });
    expect(read.bucket).to.equal(50);
    expect(read.rows, 'rows of provider_outcomes read').to.be.at.most(servedHealthKeys('sandbox').length * BUCKET.size);
  });

  it("never degrades an operator for payers' declines", async () => {
    const at = freshMoment();
    await measureProviderHealth(db, 'sandbox', at - 30 * MINUTE);
    await record(db, MOMO_RW, at, 50, () => 'payer');
    expect(await measureProviderHealth(db, 'sandbox', at)).to.deep.equal([]);
    expect(await statusOf(db, MOMO_RW)).to.deep.include({ status: 'operational', successRate: 0 });
  });

  it('comes back to operational only after 5 minutes of good attempts', async () => {
    const at = freshMoment();
    await measureProviderHealth(db, 'sandbox', at - 30 * MINUTE);
    await record(db, MOMO_RW, at, 50, () => 'provider');
    await measureProviderHealth(db, 'sandbox', at);
    expect((await statusOf(db, MOMO_RW))?.status).to.equal('down');
    // Good attempts from a minute on: the bucket holds only them, and recovery waits its 5 minutes.
    for (let minute = 1; minute <= 7; minute += 1) {
      await record(db, MOMO_RW, at + minute * MINUTE, 50, () => null);
      await measureProviderHealth(db, 'sandbox', at + minute * MINUTE);
      expect((await statusOf(db, MOMO_RW))?.status, `minute ${minute}`).to.equal(minute >= 6 ? 'operational' : 'down');
    }
  });

  it("lets an operator's override win until cleared, and refuses what is not served naming the field", async () => {
    const at = freshMoment();
    const override = { status: 'down' as const, reason: 'MTN maintenance 02:00–04:00', by: 'ops@example.com' };
    expect(await overrideProviderStatus(db, 'sandbox', MOMO_RW, override, at)).to.deep.equal({
      before: 'operational',
      after: 'down',
    });
    await measureProviderHealth(db, 'sandbox', at + MINUTE);
    expect(await statusOf(db, MOMO_RW)).to.deep.include({ status: 'down', reason: override.reason });
    await overrideProviderStatus(db, 'sandbox', MOMO_RW, null, at + 2 * MINUTE);
    expect(await statusOf(db, MOMO_RW)).to.deep.include({ status: 'operational', reason: null });

    const refused = async (key: HealthKey, field: string) => {
      const error = await overrideProviderStatus(db, 'sandbox', key, override, at).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(DomainError);
      expect((error as DomainError).message).to.match(new RegExp(`^${field}:`));
    };
    await refused({ ...MOMO_RW, provider: 'nope' as HealthKey['provider'] }, 'provider');
    await refused({ ...MOMO_RW, country: 'KE' }, 'country');
    await refused({ provider: 'mobile_money_c', country: 'LR', operation: 'payout' }, 'operation');
    const empty = await overrideProviderStatus(db, 'sandbox', MOMO_RW, { ...override, reason: ' ' }, at).catch(
      (e) => e,
    );
    expect((empty as DomainError).message).to.match(/^reason:/);
  });
});
