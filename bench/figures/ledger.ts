/**
 * Figure (f), the ledger (docs/ledger.md#figures), in three parts joined into one figure:
 *
 * - **its share of a settled payment** ({@link settledPathFigure}): settled payments per second on the service's own
 *   path (`POST /v1/payments` with sandbox `0001`, which completes within the create, 32 connections, as figure a
 *   drives it) ÷ the same with the collection's journal left out. Both sides run on one service worker started with
 *   the bench's preload `bench/lib/journal-switch.ts`, which hands the payment writes a copy of the ledger module whose
 *   `collectionCtes` the bench switches off and on over IPC between the sides: the completed status, its event, its
 *   provider outcome and the webhook start stay; the journal, its three postings and the balance transaction go. A
 *   bench-only variant: the service has no setting that leaves its ledger out. Target ≥ 0.95.
 * - **one hot merchant** ({@link hotMerchantFigure}): 32 writers at once, a connection each, complete payments of one
 *   merchant through the repository's own `updatePaymentStatus` (the collected status with its journal, postings and
 *   balance transaction in one statement), against the same statements without the ledger (the payments moved to
 *   `processing`, which posts nothing), for information. Target: ≥ 1,000 settlements per second with the ledger on
 *   this machine.
 * - **the balance read** ({@link balanceReadFigure}): `GET /v1/balance` p99 over HTTP for a merchant with 10,000,000
 *   postings seeded by SQL ({@link seedPostings}), against the alternative the service's design was chosen over (a sum
 *   over every balance transaction of the merchant, by PostgreSQL with the same indexes). Target: p99 ≤ 20 ms.
 */
import { randomBytes } from 'node:crypto';
import { paymentEvent } from '../../src/activities/events';
import { insertPaymentWithCreatedEvent, statusWriteOf, updatePaymentStatus } from '../../src/db/payments';
import { createDb, type Db } from '../../src/db/knex';
import { readOwed, readOwedSql, type LedgerScope } from '../../src/db/ledger';
import { feeFor } from '../../src/domain/fees';
import type { PaymentSnapshot } from '../../src/domain/payment';
import { withStatusChange } from '../../test/helpers/status-change';
import { newId } from '../../src/lib/ids';
import { createPayment, paymentBody, PHONES, registerDeveloper, type Developer } from '../lib/api';
import { waitUntil, type BenchContext } from '../lib/context';
import { requestFrom } from '../lib/ipc';
import { runClosedLoop, steadyRate } from '../lib/load';
import type { Sample } from '../lib/diagnostics';
import { joinFigures, runRounds, type Figure, type FigureResult, type Values } from '../lib/rounds';
import { LatencyRecorder } from '../lib/stats';
import { paymentCollectedCause } from '../../src/domain/ledger';

/** Connections of the settled path's drive, as figure (a)'s. */
const SETTLED_CONCURRENCY = 32;

/** The node flags that start the service worker with the journal switch (see bench/lib/journal-switch.ts). */
export const JOURNAL_SWITCH_FLAGS = ['--import', './bench/lib/journal-switch-preload.mjs'];

/** Size of each part. */
export interface LedgerFigureOptions {
  /** How long each side of the settled path is driven, in ms (the first 2 s are ramp-up and not counted). */
  settledDurationMs: number;
  /** Writers at once on the hot merchant. */
  concurrency: number;
  /** Payments each side of the hot merchant completes. */
  settlements: number;
  /** Postings seeded for the balance read. */
  seededPostings: number;
  /** `GET /v1/balance` requests per round (after 5 unmeasured). */
  balanceReads: number;
  /** Sums of every balance transaction per round (after 1 unmeasured): each reads the whole history. */
  sumReads: number;
}

/** A pending 1,500 RWF momo payment of `merchantId`. */
function pendingPayment(merchantId: string): PaymentSnapshot {
  const now = new Date().toISOString();
  return {
    id: newId('pay_'),
    merchantId,
    environment: 'sandbox',
    family: 'generic',
    amount: 1500,
    amountRefunded: 0,
    currency: 'RWF',
    status: 'pending',
    paymentMethod: 'mobile_money',
    provider: 'momo',
    kind: 'mobile_money',
    description: 'benchmark',
    customerPhone: '+250788123456',
    customerEmail: null,
    metadata: {},
    feeAmount: feeFor(1500, 'momo'),
    failureCode: null,
    failureMessage: null,
    providerReference: null,
    nextAction: null,
    expiresAt: new Date(Date.now() + 600_000).toISOString(),
    createdAt: now,
    updatedAt: now,
  };
}

/** How many of `ids` have a balance transaction (the collection's journal was posted). */
async function postedCount(db: Db, ids: readonly string[]): Promise<number> {
  let posted = 0;
  for (let i = 0; i < ids.length; i += 1_000) {
    const [row] = (await db('ledger_balance_transactions')
      .whereIn('source', ids.slice(i, i + 1_000))
      .count('* as n')) as { n: string }[];
    posted += Number(row?.n);
  }
  return posted;
}

/**
 * Part one: settled payments per second on the service's path with the collection's journal ÷ without it. Restarts
 * the service worker with the journal switch in `prepare` (the next restart, figure d's, drops it) and leaves the
 * journal switched on when done.
 */
export function settledPathFigure(context: BenchContext, options: LedgerFigureOptions): Figure {
  let developer: Developer | undefined;
  const switchJournal = (kept: boolean) =>
    requestFrom<boolean>(context.stack.serviceWorker, kept ? 'journalKept' : 'journalLeftOut');

  /** One side: the drive, the wait for its payments to settle, and the check that the ledger did what it should. */
  async function side(withJournal: boolean): Promise<Values> {
    const merchant = developer as Developer;
    await switchJournal(withJournal);
    try {
      const ids: string[] = [];
      const run = await runClosedLoop(SETTLED_CONCURRENCY, { durationMs: options.settledDurationMs }, async () => {
        ids.push(await createPayment(context.dev.apiUrl, merchant, paymentBody(PHONES.instantSuccess)));
      });
      if (run.failed > 0) throw new Error(`(f) ${run.failed} creates failed: ${String(run.firstError)}`);
      const drainMs = await waitUntil(
        'the payments to settle',
        async () => {
          const [row] = (await context
            .db('payments')
            .whereIn('id', ids)
            .where('status', 'completed')
            .count('* as n')) as {
            n: string;
          }[];
          return Number(row?.n) === ids.length;
        },
        120_000,
        200,
      );
      const posted = await postedCount(context.db, ids);
      if (posted !== (withJournal ? ids.length : 0))
        throw new Error(
          `(f) ${ids.length} settled payments ${withJournal ? 'with' : 'without'} the journal posted ${posted}`,
        );
      context.say(
        `(f) ${ids.length} payments settled, the last ${(drainMs / 1000).toFixed(1)} s after the drive stopped`,
      );
      return { settledPerSecond: steadyRate(run.completedAtMs, options.settledDurationMs), items: ids.length };
    } finally {
      await switchJournal(true);
    }
  }

  return {
    id: 'f',
    title: 'Ledger: share of a settled payment',
    service: `POST /v1/payments (sandbox 0001, settled within the create), ${SETTLED_CONCURRENCY} connections, ${options.settledDurationMs / 1000} s, with the collection's journal`,
    baseline:
      "the same worker with the collection's journal, postings and balance transaction left out (bench/lib/journal-switch.ts)",
    metrics: [
      {
        key: 'settledPerSecond',
        label: 'settled payments per second (with ÷ without the journal)',
        unit: '/s',
        target: { atLeast: 0.95 },
      },
    ],
    async prepare() {
      developer = await registerDeveloper(context.dev.apiUrl, 'ledger-path');
      await context.stack.restartWorker('service', JOURNAL_SWITCH_FLAGS);
      // A few settlements each way before the rounds, so that neither side's first round pays for the JIT.
      for (const kept of [true, false]) {
        await switchJournal(kept);
        await runClosedLoop(8, { count: 64 }, async () => {
          await createPayment(context.dev.apiUrl, developer as Developer, paymentBody(PHONES.instantSuccess));
        });
      }
      await switchJournal(true);
      return 'the service worker restarted with the journal switch; 64 settlements each way to warm it';
    },
    measureService: () => side(true),
    measureBaseline: () => side(false),
  };
}

/** How often {@link sampleWaits} looks at the server's backends, in ms. */
const WAIT_SAMPLE_MS = 10;

/**
 * A profile of PostgreSQL while `work` runs: every {@link WAIT_SAMPLE_MS} ms, on a connection of its own, what each
 * other client backend of the database is doing (running on a CPU, waiting on a lock, on I/O, on the client, idle);
 * answers the shares of the active backends' samples by wait, largest first, and how many backends were active on
 * average, to print.
 */
async function sampleWaits<T>(databaseUrl: string, work: () => Promise<T>): Promise<{ result: T; profile: string }> {
  const probe = createDb(databaseUrl, 1);
  const counts = new Map<string, number>();
  let samples = 0;
  let active = 0;
  let done = false;
  const sampling = (async () => {
    while (!done) {
      const { rows } = await probe.raw<{ rows: { wait: string; n: number }[] }>(
        `select coalesce(wait_event_type || ':' || wait_event, 'CPU') as wait, count(*)::int as n
           from pg_stat_activity
          where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()
            and state = 'active'
          group by 1`,
      );
      samples += 1;
      for (const row of rows) {
        counts.set(row.wait, (counts.get(row.wait) ?? 0) + row.n);
        active += row.n;
      }
      await new Promise((resolve) => setTimeout(resolve, WAIT_SAMPLE_MS));
    }
  })();
  try {
    const result = await work();
    return {
      result,
      profile: `${(active / Math.max(samples, 1)).toFixed(1)} backends active on average over ${samples} samples; ${[
        ...counts,
      ]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 6)
        .map(([wait, n]) => `${wait} ${((100 * n) / Math.max(active, 1)).toFixed(0)} %`)
        .join(', ')}`,
    };
  } finally {
    done = true;
    await sampling.catch(() => undefined);
    await probe.destroy();
  }
}

/** PostgreSQL's WAL counters since its start (`pg_stat_wal`): records, full-page images, bytes and syncs to disk. */
async function walCounters(db: Db): Promise<{ records: number; fpi: number; bytes: number; syncs: number }> {
  const { rows } = await db.raw<{ rows: { records: string; fpi: string; bytes: string; syncs: string }[] }>(
    'select wal_records as records, wal_fpi as fpi, wal_bytes as bytes, wal_sync as syncs from pg_stat_wal',
  );
  const row = rows[0] as { records: string; fpi: string; bytes: string; syncs: string };
  return { records: Number(row.records), fpi: Number(row.fpi), bytes: Number(row.bytes), syncs: Number(row.syncs) };
}

/** Part two: one hot merchant's settlements per second with the ledger, beside the bare status write. */
export function hotMerchantFigure(context: BenchContext, options: LedgerFigureOptions): Figure {
  const db = context.db;
  let hot: Developer | undefined;

  /**
   * Completes `settlements` fresh payments of the hot merchant with `concurrency` writers, each on a connection of its
   * own; answers per second, and prints what PostgreSQL's backends waited on and the WAL a settlement wrote.
   */
  async function settle(withLedger: boolean): Promise<Values> {
    const merchant = hot as Developer;
    const payments = Array.from({ length: options.settlements }, () => pendingPayment(merchant.merchantId));
    for (let i = 0; i < payments.length; i += 64) {
      await Promise.all(
        payments.slice(i, i + 64).map((p) => insertPaymentWithCreatedEvent(db, p, paymentEvent(p, 'payment.created'))),
      );
    }
    // The writers' own connections, one each, all open before the clock starts: through the bench's pool of 8, 32
    // writers were 8 transactions at once, and PostgreSQL's group commit had at most 8 commits to join in one sync.
    const writers = createDb(context.stack.databaseUrl, options.concurrency);
    await Promise.all(Array.from({ length: options.concurrency }, () => writers.raw('select 1')));
    let next = 0;
    let failures = 0;
    const walBefore = await walCounters(db);
    const started = performance.now();
    const { profile } = await sampleWaits(context.stack.databaseUrl, () =>
      Promise.all(
        Array.from({ length: options.concurrency }, async () => {
          for (let i = next++; i < payments.length; i = next++) {
            const payment = payments[i] as PaymentSnapshot;
            const settled = withStatusChange(
              payment,
              { status: withLedger ? 'completed' : 'processing' },
              new Date().toISOString(),
            );
            try {
              const post = withLedger ? [paymentCollectedCause(settled.id)] : [];
              await updatePaymentStatus(
                writers,
                statusWriteOf(settled, post),
                paymentEvent(settled, 'payment.completed'),
              );
            } catch (error) {
              failures += 1;
              context.say(`(f) settlement failed: ${error instanceof Error ? error.message : String(error)}`);
            }
          }
        }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    await writers.destroy();
    const walAfter = await walCounters(db);
    const perSettlement = (key: keyof typeof walAfter) => (walAfter[key] - walBefore[key]) / options.settlements;
    context.say(
      `(f) hot merchant ${withLedger ? 'with' : 'without'} the ledger, PostgreSQL's backends: ${profile}; WAL per settlement ${perSettlement('records').toFixed(1)} records, ${perSettlement('fpi').toFixed(2)} full-page images, ${perSettlement('bytes').toFixed(0)} bytes, ${perSettlement('syncs').toFixed(2)} syncs to disk`,
    );
    if (failures > 0)
      throw new Error(`(f) ${failures} settlements ${withLedger ? 'with' : 'without'} the ledger failed`);
    const posted = await postedCount(
      db,
      payments.map((p) => p.id),
    );
    if (posted !== (withLedger ? payments.length : 0))
      throw new Error(`(f) ${payments.length} settlements posted ${posted} balance transactions`);
    return { perSecond: options.settlements / seconds, items: options.settlements };
  }

  return {
    id: 'f',
    title: 'Ledger on one hot merchant',
    service: `${options.settlements} settlements of one merchant, ${options.concurrency} writers at once, with the ledger (updatePaymentStatus)`,
    baseline: 'the same status writes without the ledger (to processing, which posts nothing), for information',
    metrics: [
      {
        key: 'perSecond',
        label: 'one hot merchant: settlements/s (÷ the bare status write)',
        unit: '/s',
        serviceAtLeast: 1_000,
      },
    ],
    async prepare() {
      hot = await registerDeveloper(context.dev.apiUrl, 'ledger-hot');
      return `hot merchant ${hot.merchantId}`;
    },
    measureService: () => settle(true),
    measureBaseline: () => settle(false),
  };
}

/**
 * Seeded balance transactions left out of the rollup: the most a balance read finds before it rolls them up
 * (docs/ledger.md#balance-read).
 */
const SEED_TAIL = 500;

/**
 * Seconds between two seeded payments: as at a million postings, so that the pending day a read sums stays the same
 * size (about 900 rows) and the figure shows what ten times the history costs.
 */
const SEED_SPACING_S = 95;

/** What {@link seedPostings} did and how long it took, in seconds. */
export interface SeedReport {
  journals: number;
  postings: number;
  /** The inserts and the rebuild of the indexes. */
  insertSeconds: number;
  /** The vacuum and analysis of the seeded tables and the checkpoint after them. */
  settleSeconds: number;
}

/** The tables {@link seedPostings} fills. */
const SEEDED_TABLES = ['ledger_journals', 'ledger_postings', 'ledger_balance_transactions'] as const;

/**
 * Drops every index of the seeded tables that no foreign key leans on (the ledger's tables have no foreign keys among
 * them now, docs/ledger.md#layout, so all of them): the plain ones, and the primary keys and unique constraints with
 * their constraints. Answers the rebuild: each index and constraint created again from its own
 * definition (`pg_get_indexdef`, `pg_get_constraintdef`) under its own name, all at once, so that PostgreSQL builds
 * each in one sorted pass over the table instead of ten million single inserts, and checks each unique constraint as
 * it builds it. What a read sees after is the same schema; the indexes are as compact as ones grown at their right
 * edge (both leave leaves 90 % full).
 */
async function dropSeededIndexes(db: Db): Promise<() => Promise<void>> {
  const { rows } = await db.raw<{
    rows: {
      tableName: string;
      indexName: string;
      indexDef: string;
      constraintName: string | null;
      constraintDef: string | null;
    }[];
  }>(
    `select t.relname as "tableName", x.relname as "indexName", pg_get_indexdef(i.indexrelid) as "indexDef",
            k.conname as "constraintName", pg_get_constraintdef(k.oid) as "constraintDef"
       from pg_index i
       join pg_class t on t.oid = i.indrelid
       join pg_class x on x.oid = i.indexrelid
       left join pg_constraint k on k.conindid = i.indexrelid and k.conrelid = i.indrelid and k.contype in ('p', 'u')
      where i.indrelid in (${SEEDED_TABLES.map(() => '?::regclass').join(', ')})
        and not exists (select 1 from pg_constraint f where f.contype = 'f' and f.conindid = i.indexrelid)`,
    [...SEEDED_TABLES],
  );
  const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;
  for (const index of rows)
    await db.raw(
      index.constraintName
        ? `alter table ${quoted(index.tableName)} drop constraint ${quoted(index.constraintName)}`
        : `drop index ${quoted(index.indexName)}`,
    );
  return async () => {
    await Promise.all(
      rows.map((index) =>
        db.raw(
          index.constraintName
            ? `alter table ${quoted(index.tableName)} add constraint ${quoted(index.constraintName)} ${index.constraintDef as string}`
            : index.indexDef,
        ),
      ),
    );
  };
}

/**
 * Seeds `postings` postings (rounded up to whole journals of three) of `merchantId`'s sandbox RWF balance, set-based:
 * one collected 1,500 RWF momo payment every {@link SEED_SPACING_S} seconds up to now, each a journal of three
 * postings (provider clearing +1,500, the merchant −1,477, platform fees −23) and its balance transaction, all but the
 * newest {@link SEED_TAIL} rolled up into the merchant's rollup, as balance reads leave them
 * (docs/ledger.md#balance-read). Four `insert … select … from generate_series` statements on four connections at once
 * into the tables without their indexes ({@link dropSeededIndexes}; they are built again after, in one sorted pass
 * each: about half the seed's wall time and a fifth of its CPU at ten million postings), with row triggers (the
 * ledger's checks) off for the seed's own transactions (`session_replication_role = replica`: a check per row of ten
 * million postings would take many minutes) and checkpoints spaced out while it runs (`max_wal_size`, restored
 * after). The journals keep the ledger's invariants by construction (test/lib/bench-ledger-seed.test.ts checks a
 * small seed of the same statements against all of them, and that the tables keep their indexes and constraints);
 * here the row counts are checked, and the rebuilt unique constraints check the keys. Then the seeded tables are
 * vacuumed and analysed (all four, so that no autovacuum of them follows) and a checkpoint is taken, so that the
 * reads measured after do not pay for the seed.
 * @param inserted called once the rows and their indexes are written, before the vacuum, analysis and checkpoint (work
 *   that waits for the inserts' load to end, e.g. figure (d)'s open payments, starts then)
 * @throws Error when a statement wrote another number of rows than it should
 */
export async function seedPostings(
  db: Db,
  merchantId: string,
  postings: number,
  inserted?: () => void,
): Promise<SeedReport> {
  const journals = Math.ceil(postings / 3);
  const tag = randomBytes(4).toString('hex');
  // Accounts are append-only (an upsert's update is refused): inserted when missing, then read.
  const account = async (kind: string, owner: string) => {
    const key = { environment: 'sandbox', currency: 'RWF', kind, owner };
    await db('ledger_accounts').insert(key).onConflict(['environment', 'currency', 'kind', 'owner']).ignore();
    return ((await db('ledger_accounts').where(key).first('id')) as { id: number }).id;
  };
  const merchantAccount = await account('merchant_balance', merchantId);
  const clearing = await account('provider_clearing', 'momo');
  const fees = await account('platform_fees', '');
  // Key g (1 … journals, oldest first) as text that sorts as the number does.
  const key = `lpad(g::text, 8, '0')`;
  const journalId = `'jrn_seed_${tag}_' || ${key}`;
  const createdAt = `now() - make_interval(secs => ${SEED_SPACING_S} * (${journals} + 1 - g))`;
  const seeding = async (what: string, rows: number, sql: string, bindings: readonly (string | number)[]) =>
    db.transaction(async (trx) => {
      await trx.raw('set local session_replication_role = replica');
      await trx.raw('set local synchronous_commit = off');
      const written = (await trx.raw(sql, bindings)) as { rowCount: number };
      if (written.rowCount !== rows) throw new Error(`(f) the seed wrote ${written.rowCount} ${what}, not ${rows}`);
    });
  const postingsOf = (from: number, to: number) =>
    seeding(
      'postings',
      3 * (to - from + 1),
      `insert into ledger_postings (journal_id, line, account_id, currency, amount)
         select ${journalId}, a.line, a.account, 'RWF', a.amount
           from generate_series(?::int, ?::int) g
           cross join (values (1::smallint, ?::bigint, 1500::bigint), (2::smallint, ?::bigint, -1477::bigint),
                              (3::smallint, ?::bigint, -23::bigint)) as a(line, account, amount)`,
      [from, to, clearing, merchantAccount, fees],
    );
  const half = Math.floor(journals / 2);
  const rolledUp = Math.max(0, journals - SEED_TAIL);
  const spacedCheckpoints = await db
    .raw(`alter system set max_wal_size = '16GB'`)
    .then(() => db.raw('select pg_reload_conf()'))
    .then(
      () => true,
      () => false, // not a superuser of an external DATABASE_URL: the seed pays for its checkpoints
    );
  let started = performance.now();
  const rebuild = await dropSeededIndexes(db);
  try {
    await Promise.all([
      seeding(
        'journals',
        journals,
        `insert into ledger_journals (id, cause, environment, description, created_at)
           select ${journalId}, 'seed:${tag}:' || ${key}, 'sandbox', 'seeded', ${createdAt}
             from generate_series(1, ?::int) g`,
        [journals],
      ),
      postingsOf(1, half),
      postingsOf(half + 1, journals),
      seeding(
        'balance transactions',
        journals,
        `insert into ledger_balance_transactions
           (id, journal_id, merchant_id, environment, type, source, amount, fee, net, currency, description, available_on, created_at, rolled_up)
           select 'txn_seed_${tag}_' || ${key}, ${journalId}, ?, 'sandbox', 'payment', 'pay_seed_${tag}_' || ${key},
                  1500, 23, 1477, 'RWF', 'seeded', ${createdAt} + interval '1 day', ${createdAt}, g <= ?::int
             from generate_series(1, ?::int) g`,
        [merchantId, rolledUp, journals],
      ),
      db('ledger_balance_rollups').insert({
        merchant_id: merchantId,
        environment: 'sandbox',
        currency: 'RWF',
        total: 1477 * rolledUp,
      }),
    ]);
  } finally {
    try {
      await rebuild();
    } finally {
      if (spacedCheckpoints) {
        await db.raw('alter system reset max_wal_size');
        await db.raw('select pg_reload_conf()');
      }
    }
  }
  const insertSeconds = (performance.now() - started) / 1000;
  inserted?.();
  started = performance.now();
  // All four tables: postings and journals too, whose ten million inserts would otherwise start autovacuum on them
  // later (PostgreSQL vacuums a table after inserts), while a figure measures.
  await db.raw('vacuum analyze ledger_postings, ledger_journals, ledger_balance_transactions, ledger_balance_rollups');
  if (spacedCheckpoints) await db.raw('checkpoint');
  return { journals, postings: journals * 3, insertSeconds, settleSeconds: (performance.now() - started) / 1000 };
}

/** The balance read the service does not use: every balance transaction of the merchant summed. */
const SUM_EVERYTHING = `
  select currency, sum(net)::bigint as owed, sum(net) filter (where available_on > now())::bigint as pending
    from ledger_balance_transactions where merchant_id = ? and environment = 'sandbox' group by currency`;

/** A merchant seeded by {@link seedPostings}, and what the seed printed. */
interface SeededMerchant {
  developer: Developer;
  report: string;
}

/** Registers a merchant and seeds its `seededPostings` postings; `inserted` as {@link seedPostings}'. */
async function seededMerchant(
  context: BenchContext,
  options: LedgerFigureOptions,
  inserted?: () => void,
): Promise<SeededMerchant> {
  const developer = await registerDeveloper(context.dev.apiUrl, 'ledger-seeded');
  const seed = await seedPostings(context.db, developer.merchantId, options.seededPostings, inserted);
  return {
    developer,
    report: `seeded ${seed.postings.toLocaleString('en')} postings (${seed.journals.toLocaleString('en')} journals and balance transactions) for one merchant in ${seed.insertSeconds.toFixed(1)} s, then vacuumed, analysed and checkpointed in ${seed.settleSeconds.toFixed(1)} s`,
  };
}

/** Longest {@link quietDatabase} waits for PostgreSQL's background work to end, in ms. */
const QUIET_WAIT_MS = 60_000;

/**
 * Waits until no autovacuum worker runs on the database server (at most {@link QUIET_WAIT_MS}), then takes a
 * checkpoint: the balance read is measured on a server that is not vacuuming or writing out what the figures before
 * it left ((d)'s thousand payments, (h)'s outcomes on its database, the seed), so that its p99 is the read's own.
 * @returns what it waited for and how long, to print
 */
async function quietDatabase(db: Db): Promise<string> {
  const started = performance.now();
  const seen = new Set<string>();
  await waitUntil(
    'no autovacuum worker to run',
    async () => {
      const { rows } = await db.raw<{ rows: { query: string }[] }>(
        `select query from pg_stat_activity where backend_type = 'autovacuum worker'`,
      );
      for (const row of rows) seen.add(row.query);
      return rows.length === 0;
    },
    QUIET_WAIT_MS,
    250,
  ).catch(() => undefined); // still vacuuming after a minute: measured anyway, and printed
  await db.raw('checkpoint');
  const waited = ((performance.now() - started) / 1000).toFixed(1);
  return `${seen.size ? `waited for autovacuum (${[...seen].join('; ')}) and` : 'no autovacuum running;'} a checkpoint, ${waited} s, before the reads`;
}

/** The balance read's plan with buffers: its execution time and what it read, one line. */
async function planOf(db: Db, scope: LedgerScope): Promise<string> {
  const statement = readOwedSql(scope, new Date());
  const { rows } = await db.raw<{ rows: { 'QUERY PLAN': string }[] }>(
    `explain (analyze, buffers, format text) ${statement.sql}`,
    statement.bindings,
  );
  const lines = rows.map((row) => row['QUERY PLAN'].trim());
  const scans = lines.filter((line) => /Scan/.test(line)).map((line) => line.replace(/^->\s*/, '').split('  (')[0]);
  const buffers = lines.find((line) => line.startsWith('Buffers:')) ?? '';
  const timing = lines.filter((line) => /^(Planning|Execution) Time/.test(line)).join(', ');
  return `${scans.join('; ')}; ${buffers}; ${timing}`;
}

/**
 * Part three: `GET /v1/balance` p99 for a merchant with `seededPostings` postings ÷ a sum of its whole history.
 * @param seeding the seed when already started, else the figure seeds in its preparation
 */
export function balanceReadFigure(
  context: BenchContext,
  options: LedgerFigureOptions,
  seeding?: Promise<SeededMerchant>,
): Figure {
  let seeded: Developer | undefined;

  /** p50 and p99 of `reads` calls of `read`, after `warm` unmeasured ones, in ms. */
  async function readLatency(read: () => Promise<unknown>, warm: number, reads: number) {
    for (let i = 0; i < warm; i += 1) await read();
    const latencies = new LatencyRecorder();
    for (let i = 0; i < reads; i += 1) {
      const started = performance.now();
      await read();
      latencies.record(performance.now() - started);
    }
    return latencies.summary();
  }

  /**
   * The service's side: `GET /v1/balance` over HTTP, then, for where its time goes, the read's one statement alone
   * (`readOwed`, as the API runs it, from the bench's own connection) and its plan with buffers.
   */
  async function serviceReads(): Promise<Values> {
    const http = await readLatency(httpBalance, 5, options.balanceReads);
    const scope = { merchantId: (seeded as Developer).merchantId, environment: 'sandbox' as const };
    const sql = await readLatency(() => readOwed(context.db, scope, new Date()), 5, options.balanceReads);
    context.say(
      `(f) balance read: HTTP p50 ${http.p50Ms.toFixed(1)} ms, p99 ${http.p99Ms.toFixed(1)} ms, max ${http.maxMs.toFixed(1)} ms; its statement alone p50 ${sql.p50Ms.toFixed(1)} ms, p99 ${sql.p99Ms.toFixed(1)} ms, max ${sql.maxMs.toFixed(1)} ms`,
    );
    context.say(`(f) balance read's plan: ${await planOf(context.db, scope)}`);
    return {
      balanceP99Ms: http.p99Ms,
      balanceP50Ms: http.p50Ms,
      balanceMaxMs: http.maxMs,
      statementP50Ms: sql.p50Ms,
      statementP99Ms: sql.p99Ms,
      items: options.balanceReads,
    };
  }

  const httpBalance = async () => {
    const response = await fetch(`${context.dev.apiUrl}/v1/balance`, {
      headers: { authorization: `Bearer ${(seeded as Developer).key}` },
    });
    if (response.status !== 200) throw new Error(`(f) GET /v1/balance answered ${response.status}`);
    await response.arrayBuffer();
  };

  return {
    id: 'f',
    title: 'Ledger: balance read',
    service: `GET /v1/balance over HTTP, ${options.balanceReads} reads, a merchant with ${options.seededPostings.toLocaleString('en')} postings (rollup + tail)`,
    baseline: `the balance as a sum of every balance transaction of that merchant (SQL), ${options.sumReads} reads`,
    metrics: [{ key: 'balanceP99Ms', label: 'GET /v1/balance p99', unit: 'ms', serviceAtMost: 20 }],
    async prepare() {
      const merchant = await (seeding ?? seededMerchant(context, options));
      seeded = merchant.developer;
      return `${merchant.report}; ${await quietDatabase(context.db)}`;
    },
    measureService: serviceReads,
    measureBaseline: async () => ({
      balanceP99Ms: (
        await readLatency(() => context.db.raw(SUM_EVERYTHING, [(seeded as Developer).merchantId]), 1, options.sumReads)
      ).p99Ms,
      items: options.sumReads,
    }),
  };
}

/**
 * Figure (f): its three parts, each for its rounds of alternating sides (the settled path first, on a worker of its
 * own; the seed last, so that the parts before it run on the database the other figures left), joined into one figure
 * whose rounds are the settled path's (its CPU per settled payment with and without the journal).
 * @param rounds rounds of each part: the settled path's, the hot merchant's and the balance read's
 * @param besideSeed work that measures nothing on the wall clock, run while the seed runs (figure h's simulated runs,
 *   figure d's memory), given the seed's end to wait for before anything it times, and the end of the seed's inserts
 *   (its rows and indexes written; its vacuum, analysis and checkpoint follow); the balance read starts once both are
 *   done
 */
export async function measureLedger(
  context: BenchContext,
  options: LedgerFigureOptions,
  rounds: { settled: number; hot: number; balance: number },
  sample: () => Promise<Sample>,
  besideSeed?: (seeded: Promise<unknown>, inserted: Promise<void>) => Promise<unknown>,
): Promise<FigureResult> {
  const parts: FigureResult[] = [];
  const run = async (figure: Figure, count: number) => {
    context.say(`(f) ${figure.title}: ${count} alternating round(s)`);
    parts.push(await runRounds(figure, count, context.say, sample));
  };
  await run(settledPathFigure(context, options), rounds.settled);
  await run(hotMerchantFigure(context, options), rounds.hot);
  let insertsDone = () => undefined as void;
  const inserted = new Promise<void>((resolve) => {
    insertsDone = resolve;
  });
  const seeding = seededMerchant(context, options, () => {
    context.say('(f) the seed has written its rows and indexes; its vacuum, analysis and checkpoint follow');
    insertsDone();
  });
  // A failed seed ends the inserts' wait too: what waits on them then meets the failure through `seeding`.
  seeding.catch(() => undefined).finally(insertsDone);
  if (besideSeed) {
    context.say('(f) seeding the balance read while what measures nothing on the wall clock runs beside it');
    await Promise.all([seeding, besideSeed(seeding, inserted)]);
  }
  await run(balanceReadFigure(context, options, seeding), rounds.balance);
  const [settled] = parts as [FigureResult];
  return {
    ...joinFigures(
      {
        id: 'f',
        title: 'Ledger',
        service: parts.map((part) => part.service).join('; '),
        baseline: parts.map((part) => part.baseline).join('; '),
      },
      parts,
    ),
    prepared: parts.flatMap((part) => (part.prepared ? [part.prepared] : [])).join('; '),
    rounds: settled.rounds,
  };
}
