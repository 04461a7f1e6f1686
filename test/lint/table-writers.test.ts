/**
 * One writer per money table (docs/architecture.md#one-writer): the payments, refunds, payouts, events and ledger
 * tables are written (insert, update, delete) by the modules declared below and by no other module of `src/`. A
 * payment's or refund's row, its event and its journals are written by `src/db/payments.ts`, from the effects its
 * table declared (`post` causes through `src/db/ledger.ts`, which holds the ledger's SQL). Read by text: knex builders
 * on a table (`db('payments')…update(…)`, a builder kept in a variable and written later, `.into('events')`) and raw
 * SQL (`insert into`, `update`, `delete from`), comments left out. The declared writers must be exactly the modules
 * found writing, so the list can neither hide a new writer nor keep a stale one; the first test proves the reader
 * finds each form of write and no read.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

const ROOT = path.resolve(__dirname, '../..');
const SRC = path.join(ROOT, 'src');

/** The guarded tables. */
const TABLES = [
  'payments',
  'refunds',
  'payouts',
  'checkout_sessions',
  'payment_links',
  'payment_link_reservations',
  'merchant_branding',
  'events',
  'ledger_accounts',
  'ledger_journals',
  'ledger_postings',
  'ledger_balance_transactions',
  'ledger_balance_rollups',
  'provider_outcomes',
  'provider_health',
  'provider_status_changes',
  'sandbox_provider_statuses',
] as const;

type Table = (typeof TABLES)[number];

const PAYMENT_WRITER = 'src/db/payments.ts';
const LEDGER_WRITER = 'src/db/ledger.ts';
/**
 * The payout's writer (its row, and the payout link of balance transactions), called only by the payout activities
 * on the payout run's orders (test/lint/payout-writers.test.ts keeps the callers).
 */
const PAYOUT_WRITER = 'src/db/payouts.ts';
/** The checkout session's writer: its row with its event, on the checkout run's orders. */
const CHECKOUT_WRITER = 'src/db/checkout-sessions.ts';
/**
 * The payment link's writer: its row (the API's create and change, the completed count on the checkout run's orders)
 * and the reservations that admit its attempts against its completion limit.
 */
const PAYMENT_LINK_WRITER = 'src/db/payment-links.ts';

/** Operator health's writer: the decided attempts, the measured statuses, overrides and changes. */
const HEALTH_WRITER = 'src/db/provider-health.ts';
/**
 * The decided attempts' writer: one row per decided collection, refund or payout, recorded with the write of the
 * object's own row (a payment's by src/db/payments.ts, in its statement).
 */
const OUTCOME_WRITER = 'src/db/provider-outcomes.ts';
/** A merchant's own sandbox statuses of providers: set by the merchant, each change with its event. */
const SANDBOX_STATUS_WRITER = 'src/db/sandbox-provider-statuses.ts';
/** A merchant's branding's writer: its row with the change's activity entries. */
const BRANDING_WRITER = 'src/db/branding.ts';

/** The modules that may write each table: the declared writers. */
const WRITERS: Record<Table, readonly string[]> = {
  payments: [PAYMENT_WRITER],
  refunds: [PAYMENT_WRITER],
  events: [PAYMENT_WRITER],
  payouts: [PAYOUT_WRITER],
  checkout_sessions: [CHECKOUT_WRITER],
  payment_links: [PAYMENT_LINK_WRITER],
  payment_link_reservations: [PAYMENT_LINK_WRITER],
  merchant_branding: [BRANDING_WRITER],
  ledger_accounts: [LEDGER_WRITER],
  ledger_journals: [LEDGER_WRITER],
  ledger_postings: [LEDGER_WRITER],
  ledger_balance_transactions: [LEDGER_WRITER, PAYOUT_WRITER],
  ledger_balance_rollups: [LEDGER_WRITER],
  provider_outcomes: [OUTCOME_WRITER],
  provider_health: [HEALTH_WRITER],
  provider_status_changes: [HEALTH_WRITER],
  sandbox_provider_statuses: [SANDBOX_STATUS_WRITER],
};

/** `source` without its comments; strings and template literals are kept as they are. */
function withoutComments(source: string): string {
  let out = '';
  let quote: string | undefined;
  for (let i = 0; i < source.length; i += 1) {
    const c = source[i] as string;
    if (quote) {
      out += c;
      if (c === '\\') out += source[++i] ?? '';
      else if (c === quote) quote = undefined;
    } else if (c === '/' && source[i + 1] === '/') {
      while (i < source.length && source[i] !== '\n') i += 1;
      out += '\n';
    } else if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end < 0 ? source.length : end + 1;
      out += ' ';
    } else {
      if (c === "'" || c === '"' || c === '`') quote = c;
      out += c;
    }
  }
  return out;
}

const WRITE_CALL = /\.\s*(?:insert|update|upsert|del|delete|increment|decrement|truncate)\s*\(/;
const NAMES = TABLES.join('|');
/** A knex builder started on a table: `db('payments')`, `trx<Row>('refunds as r')`, `.from('events')`, … */
const BUILDER = new RegExp(
  `(?:\\b\\w+(?:<[^>()]*>)?|\\.\\s*(?:from|table|into))\\(\\s*'(${NAMES})(?:\\s+as\\s+\\w+)?'\\s*\\)`,
  'g',
);
/** Raw SQL that writes a table. */
const RAW_WRITE = new RegExp(
  `\\b(?:insert\\s+into|update|delete\\s+from|truncate(?:\\s+table)?)\\s+"?(${NAMES})\\b`,
  'gi',
);

/** The guarded tables `source` writes (see the module comment). */
function tablesWritten(source: string): Set<Table> {
  const text = withoutComments(source);
  const written = new Set<Table>();
  for (const match of text.matchAll(RAW_WRITE)) written.add((match[1] as string).toLowerCase() as Table);
  for (const match of text.matchAll(BUILDER)) {
    const table = match[1] as Table;
    const start = match.index ?? 0;
    const end = text.indexOf(';', start);
    const statement = text.slice(start, end < 0 ? undefined : end);
    if (match[0].replace(/\s/g, '').startsWith('.into(') || WRITE_CALL.test(statement)) {
      written.add(table);
      continue;
    }
    // A builder kept in a variable and written through it later in the module.
    const declared = /(?:const|let|var)\s+(\w+)\s*=\s*$/.exec(text.slice(Math.max(0, start - 200), start));
    if (declared && new RegExp(`\\b${declared[1]}\\s*${WRITE_CALL.source}`).test(text)) written.add(table);
  }
  return written;
}

/** Every `.ts` file under `dir`, relative to the repository. */
function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [path.relative(ROOT, full)] : [];
  });
}

describe('one writer per money table (docs/architecture.md#one-writer)', () => {
  it('finds each form of write, and no read', () => {
    const writes: [string, Table][] = [
      ["await db('payments').where({ id }).update({ status });", 'payments'],
      ["await trx<Row>('refunds')\n  .insert({ id })\n  .onConflict('id')\n  .ignore();", 'refunds'],
      ["const u = db('payouts').where({ id });\nawait db.with('u', u.update({ status: 'paid' }));", 'payouts'],
      ["await db.insert({ id }).into('events');", 'events'],
      ["await db('ledger_postings as p').where({ id }).del();", 'ledger_postings'],
      ['await db.raw(`insert into ledger_journals (id) values (?)`, [id]);', 'ledger_journals'],
      ["await db.raw('update ledger_balance_transactions set rolled_up = true');", 'ledger_balance_transactions'],
      ["await db.raw('DELETE FROM payments WHERE id = ?', [id]);", 'payments'],
    ];
    for (const [code, table] of writes) expect([...tablesWritten(code)], code).to.deep.equal([table]);
    const reads = [
      "const row = await db('payments').where({ id }).first();",
      "const rows = await db<Row>('refunds as r').join('payments as p', 'p.id', 'r.payment_id').select('r.id');",
      "// db('payments').update({ status })\nconst n = await db('events').count('id');",
      "/* insert into refunds */ await db('ledger_accounts').where({ id }).first('id');",
      "await db.raw('insert into other (id) select id from payments on conflict (id) do update set seen = true');",
      "program.command('payouts').action(() => undefined);",
    ];
    for (const code of reads) expect([...tablesWritten(code)], code).to.deep.equal([]);
  });

  it('each guarded table is written by its declared writers and by no other module of src/', () => {
    const found = new Map<Table, string[]>(TABLES.map((t) => [t, []]));
    for (const file of sourceFiles(SRC).sort())
      for (const table of tablesWritten(fs.readFileSync(path.join(ROOT, file), 'utf8'))) found.get(table)?.push(file);
    const declared = new Map(TABLES.map((t) => [t, [...WRITERS[t]].sort()]));
    expect(Object.fromEntries(found)).to.deep.equal(Object.fromEntries(declared));
  });
});
