/**
 * Settlement reports over HTTP against the real stack (docs/ledger.md#reports): an automatic payout's report itemizes
 * the payment and refund it covers and its lines add up to the payout's amount, in JSON and in CSV; a manual payout's
 * report itemizes the balance transactions it drew on, first in first out; a day's report lists the day's payments
 * and refunds per currency with opening and closing balances, in one section per currency in CSV, or one currency
 * alone; CSV amounts are decimals in the currency's exponent and cells a spreadsheet would run as
 * formulas are defused (docs/ledger.md#csv); bad input is 400 naming the parameter and a foreign payout 404.
 */
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { getStack } from '../helpers/stack';

const FORMULA_DESCRIPTION = '=HYPERLINK("http://evil.example","click")';

/** A completed payment of `body`, returned as the API shows it. */
async function collect(key: string, body: Record<string, unknown>): Promise<{ id: string; fee: number }> {
  const created = await call('/v1/payments', { key, body });
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  return waitForPayment(key, created.body.data.id, (p) => p.status === 'completed');
}

/** A refund of `amount` minor units of `paymentId`, accepted. */
async function refund(key: string, paymentId: string, amount: number): Promise<void> {
  const refunded = await call(`/v1/payments/${paymentId}/refund`, { key, body: { amount } });
  expect(refunded.status, JSON.stringify(refunded.body)).to.equal(201);
}

/** The CSV answer of `path`: its headers, its raw bytes and its records (header row first). */
async function csvOf(path: string, key: string) {
  const { baseUrl } = await getStack();
  const response = await fetch(baseUrl + path, { headers: { authorization: `Bearer ${key}` } });
  const bytes = Buffer.from(await response.arrayBuffer());
  const records = parse(bytes, { bom: true }) as string[][];
  return { response, bytes, records };
}

/** The records of a CSV as objects keyed by the header. */
function rowsOf(records: string[][]): Record<string, string>[] {
  const [header, ...rows] = records;
  return rows.map((row) => Object.fromEntries(header!.map((name, i) => [name, row[i] ?? ''])));
}

/** A decimal cell as integer minor units, read digit by digit (`-1477.50` with exponent 2 → −147750). */
function minorOf(cell: string, exponent: number): number {
  const match = /^(-?)([0-9]+)(?:\.([0-9]+))?$/.exec(cell);
  if (!match) throw new Error(`not a decimal: ${cell}`);
  expect((match[3] ?? '').length, cell).to.equal(exponent);
  const value = Number(match[2]! + (match[3] ?? ''));
  return match[1] ? -value : value;
}

async function waitForPayout(key: string, id: string, done: (p: any) => boolean): Promise<any> {
  const until = Date.now() + 90_000;
  for (;;) {
    const shown = await call(`/v1/payouts/${id}`, { key });
    if (done(shown.body.data)) return shown.body.data;
    if (Date.now() > until) throw new Error(`payout ${id} is still ${JSON.stringify(shown.body.data)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The automatic payout the merchant's Schedule makes when triggered now (docs/payouts.md#automatic-payouts). */
async function automaticPayout(merchant: TestDeveloper, destination: string, minimum: number): Promise<any> {
  const key = merchant.key;
  const set = await call('/v1/payout_schedule', {
    key,
    method: 'PUT',
    body: { schedule: 'daily', destination, currency: 'RWF', minimum },
  });
  expect(set.status, JSON.stringify(set.body)).to.equal(200);
  const { client } = await getStack();
  await client.schedule.getHandle(`payout-schedule:${merchant.merchantId}:sandbox`).trigger();
  const until = Date.now() + 60_000;
  for (;;) {
    const found = (await call('/v1/payouts', { key })).body.data.payouts.find((p: any) => p.automatic);
    if (found) {
      await call('/v1/payout_schedule', { key, method: 'PUT', body: { schedule: 'manual' } });
      return waitForPayout(key, found.id, (p) => p.status === 'paid');
    }
    if (Date.now() > until) throw new Error('no automatic payout');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

describe('settlement reports (docs/ledger.md#reports)', function () {
  this.timeout(180_000);

  it("itemizes an automatic payout's payment and refund, lines adding up to the payout, in JSON and CSV", async () => {
    const merchant = await registerDeveloper();
    const key = merchant.key;
    const metadata = { order: '=1+1', note: '@SUM(A1:A9)', plain: 'box 7' };
    const payment = await collect(key, {
      amount: 100_000,
      currency: 'RWF',
      payment_method: 'mobile_money',
      phone_number: '+250788000001',
      description: FORMULA_DESCRIPTION,
      metadata,
    });
    await refund(key, payment.id, 5_000);
    expect((await call('/v1/sandbox/balance/settle', { key, method: 'POST' })).status).to.equal(200);
    const destination = await call('/v1/payout_destinations', {
      key,
      body: { type: 'mobile_money', phone_number: '+250788000001' },
    });
    const payout = await automaticPayout(merchant, destination.body.data.id, 1_000);

    const answer = await call(`/v1/payouts/${payout.id}/settlement_report`, { key });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    const report = answer.body.data;
    expect(report.payout).to.include({ id: payout.id, amount: payout.amount, fee: payout.fee, automatic: true });
    expect(report.lines.map((l: any) => l.category)).to.deep.equal([
      'payment',
      'refund',
      'payout_fee',
      'balance_carried',
    ]);
    const [paymentLine, refundLine] = report.lines;
    // momo's fee is 1.5 %: 1,500 of 100,000; a refund keeps no fee back.
    expect(paymentLine).to.include({ gross: 100_000, fee: 1_500, net: 98_500, payment: payment.id });
    expect(paymentLine.merchant_description).to.equal(FORMULA_DESCRIPTION);
    expect(paymentLine.payment_metadata).to.deep.equal(metadata);
    expect(refundLine).to.include({ gross: -5_000, fee: 0, net: -5_000, payment: payment.id });
    const sum = report.lines.reduce((total: number, line: any) => total + line.net, 0);
    expect(sum).to.equal(payout.amount);
    expect(report.activity).to.deep.equal({ count: 2, gross: 95_000, fee: 1_500, net: 93_500 });
    expect(report.activity.net - report.payout_fee + report.balance_carried).to.equal(payout.amount);
    // The schedule kept 1,000 (and what the fee's rounding leaves) in the balance.
    expect(report.balance_carried).to.be.at.most(-1_000);

    const csv = await csvOf(`/v1/payouts/${payout.id}/settlement_report?format=csv`, key);
    expect(csv.response.status).to.equal(200);
    expect(csv.response.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
    expect(csv.response.headers.get('content-disposition')).to.equal(
      `attachment; filename="settlement-report-${payout.id}.csv"`,
    );
    expect([...csv.bytes.subarray(0, 3)]).to.deep.equal([0xef, 0xbb, 0xbf]);
    expect(csv.bytes.toString('utf8')).to.include('\r\n');
    const rows = rowsOf(csv.records);
    expect(csv.records[0]).to.include.members([
      'balance_transaction',
      'gross',
      'fee',
      'net',
      'payment_metadata[note]',
      'payment_metadata[order]',
      'payment_metadata[plain]',
    ]);
    expect(rows.map((r) => r.category)).to.deep.equal(['payment', 'refund', 'payout_fee', 'balance_carried']);
    expect(rows[0]).to.include({ gross: '100000', fee: '1500', net: '98500', currency: 'RWF' });
    expect(rows[1]).to.include({ gross: '-5000', fee: '0', net: '-5000' });
    // Cells a spreadsheet would run as formulas start with a single quote (OWASP's CSV injection guidance).
    expect(rows[0]!.merchant_description).to.equal(`'${FORMULA_DESCRIPTION}`);
    expect(rows[0]!['payment_metadata[order]']).to.equal("'=1+1");
    expect(rows[0]!['payment_metadata[note]']).to.equal("'@SUM(A1:A9)");
    expect(rows[0]!['payment_metadata[plain]']).to.equal('box 7');
    expect(rows.reduce((total, r) => total + minorOf(r.net!, 0), 0)).to.equal(payout.amount);

    // Another merchant's payout, and one that does not exist, are not found.
    const other = await registerDeveloper();
    expect((await call(`/v1/payouts/${payout.id}/settlement_report`, { key: other.key })).status).to.equal(404);
    expect((await call(`/v1/payouts/${payout.id}/settlement_report?format=csv`, { key: other.key })).status).to.equal(
      404,
    );
    expect((await call('/v1/payouts/po_3Lm5Np7Qr9St1Uv3Wx5Yz7Ab/settlement_report', { key })).status).to.equal(404);
    const badFormat = await call(`/v1/payouts/${payout.id}/settlement_report?format=xlsx`, { key });
    expect(badFormat.status).to.equal(400);
    expect(badFormat.body.error.details[0].field).to.equal('format');
  });

  it('itemizes the balance transactions a manual payout drew on, first in first out, adding up to its amount', async () => {
    const merchant = await registerDeveloper();
    const key = merchant.key;
    const payment = (amount: number) =>
      collect(key, { amount, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' });
    const first = await payment(6_000);
    const second = await payment(8_000);
    const third = await payment(20_000);
    await call('/v1/sandbox/balance/settle', { key, method: 'POST' });
    const destination = await call('/v1/payout_destinations', {
      key,
      body: { type: 'mobile_money', phone_number: '+250788000001' },
    });
    const payOut = async (amount: number, idempotencyKey: string) => {
      const created = await call('/v1/payouts', {
        key,
        headers: { 'idempotency-key': idempotencyKey },
        body: { amount, currency: 'RWF', destination: destination.body.data.id },
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const report = (await call(`/v1/payouts/${created.body.data.id}/settlement_report`, { key })).body.data;
      const sum = report.lines.reduce((total: number, line: any) => total + line.net, 0);
      expect(sum, 'the lines add up to the payout').to.equal(amount);
      return { payout: created.body.data, report };
    };

    // 10,000 + fee: the oldest payment is not enough, the second crosses it; the third stays for later.
    const one = await payOut(10_000, 'manual-fifo-1');
    expect(one.report.lines.map((l: any) => [l.category, l.source])).to.deep.equal([
      ['payment', first.id],
      ['payment', second.id],
      ['payout_fee', one.payout.id],
      ['balance_carried', one.payout.id],
    ]);
    const [firstNet, secondNet] = one.report.lines.map((l: any) => l.net);
    expect(firstNet).to.be.below(10_000 + one.payout.fee);
    expect(one.report.activity).to.deep.include({ count: 2, net: firstNet + secondNet });
    expect(one.report.balance_carried, 'the rest of the second payment stays in the balance').to.equal(
      10_000 + one.payout.fee - firstNet - secondNet,
    );
    expect(one.report.balance_carried).to.be.below(0);
    const listed = (await call(`/v1/balance_transactions?payout=${one.payout.id}`, { key })).body.data;
    expect(listed.balance_transactions.map((t: any) => t.source).sort()).to.deep.equal(
      [first.id, second.id, one.payout.id].sort(),
    );

    // The next payout draws on the next transaction no payout named yet: the third payment, never the first two again.
    const two = await payOut(1_000, 'manual-fifo-2');
    expect(two.report.lines.map((l: any) => [l.category, l.source])).to.deep.equal([
      ['payment', third.id],
      ['payout_fee', two.payout.id],
      ['balance_carried', two.payout.id],
    ]);
  });

  it("lists a day's payments and refunds per currency with opening and closing balances, KES and RWF in their own exponent", async () => {
    const merchant = await registerDeveloper();
    const key = merchant.key;
    const rwf = await collect(key, {
      amount: 1_500,
      currency: 'RWF',
      payment_method: 'mobile_money',
      phone_number: '+250788000001',
    });
    await refund(key, rwf.id, 500);
    // M-Pesa takes whole shillings; its fee is 1.5 %: KES 22.50 of KES 1,500.00.
    const kes = await collect(key, {
      amount: 150_000,
      currency: 'KES',
      payment_method: 'mobile_money',
      phone_number: '+254712000001',
      description: '-2+3',
    });
    // M-Pesa gives back whole payments only, in sandbox as in live (docs/providers.md#m-pesa).
    await refund(key, kes.id, 150_000);
    const today = new Date().toISOString().slice(0, 10);

    const answer = await call(`/v1/balance/settlement_report?date=${today}`, { key });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    const report = answer.body.data;
    expect(report).to.include({ date: today, environment: 'sandbox', complete: false });
    expect(report.interval_start).to.equal(`${today}T00:00:00.000Z`);
    expect(report.currencies).to.deep.equal([
      {
        currency: 'KES',
        opening_balance: 0,
        count: 2,
        gross: 0,
        fee: 2_250,
        net: -2_250,
        closing_balance: -2_250,
      },
      { currency: 'RWF', opening_balance: 0, count: 2, gross: 1_000, fee: 23, net: 977, closing_balance: 977 },
    ]);
    expect(report.lines.map((l: any) => [l.currency, l.category])).to.deep.equal([
      ['RWF', 'payment'],
      ['RWF', 'refund'],
      ['KES', 'payment'],
      ['KES', 'refund'],
    ]);

    const csv = await csvOf(`/v1/balance/settlement_report?date=${today}&format=csv`, key);
    expect(csv.response.headers.get('content-disposition')).to.equal(
      `attachment; filename="settlement-report-sandbox-${today}.csv"`,
    );
    const rows = rowsOf(csv.records);
    // One section per currency, sorted by code: opening balance, the lines, their total, the closing balance; no
    // figure is added across currencies (docs/ledger.md#csv).
    expect(rows.map((r) => [r.category, r.currency, r.gross, r.fee, r.net])).to.deep.equal([
      ['opening_balance', 'KES', '', '', '0.00'],
      ['payment', 'KES', '1500.00', '22.50', '1477.50'],
      ['refund', 'KES', '-1500.00', '0.00', '-1500.00'],
      ['total', 'KES', '0.00', '22.50', '-22.50'],
      ['closing_balance', 'KES', '', '', '-22.50'],
      ['opening_balance', 'RWF', '', '', '0'],
      ['payment', 'RWF', '1500', '23', '1477'],
      ['refund', 'RWF', '-500', '0', '-500'],
      ['total', 'RWF', '1000', '23', '977'],
      ['closing_balance', 'RWF', '', '', '977'],
    ]);
    expect(rows[0]).to.include({ balance_transaction: '', created_at: `${today}T00:00:00.000Z` });
    expect(rows[3]!.description).to.equal('The day in this currency: 2 lines');
    expect(rows[4]!.created_at, 'today has not ended').to.equal('');
    // A leading minus that is not a plain number is defused too.
    expect(rows[1]!.merchant_description).to.equal("'-2+3");

    // One currency alone, in JSON and CSV.
    const kesOnly = (await call(`/v1/balance/settlement_report?date=${today}&currency=KES`, { key })).body.data;
    expect(kesOnly.currencies).to.deep.equal([report.currencies[0]]);
    expect(kesOnly.lines).to.deep.equal(report.lines.filter((l: any) => l.currency === 'KES'));
    const rwfCsv = await csvOf(`/v1/balance/settlement_report?date=${today}&format=csv&currency=RWF`, key);
    expect(rwfCsv.response.headers.get('content-disposition')).to.equal(
      `attachment; filename="settlement-report-sandbox-${today}-RWF.csv"`,
    );
    expect(rowsOf(rwfCsv.records).map((r) => [r.category, r.net])).to.deep.equal([
      ['opening_balance', '0'],
      ['payment', '1477'],
      ['refund', '-500'],
      ['total', '977'],
      ['closing_balance', '977'],
    ]);
    // A currency the merchant holds none of: its section, all zeros.
    const xof = (await call(`/v1/balance/settlement_report?date=${today}&currency=XOF`, { key })).body.data;
    expect(xof).to.deep.include({
      lines: [],
      currencies: [{ currency: 'XOF', opening_balance: 0, count: 0, gross: 0, fee: 0, net: 0, closing_balance: 0 }],
    });

    // Yesterday the merchant had nothing yet: the same currencies, opening and closing at 0.
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const before = (await call(`/v1/balance/settlement_report?date=${yesterday}`, { key })).body.data;
    expect(before.complete).to.equal(true);
    expect(before.lines).to.deep.equal([]);
    expect(before.currencies.map((c: any) => [c.currency, c.opening_balance, c.closing_balance])).to.deep.equal([
      ['KES', 0, 0],
      ['RWF', 0, 0],
    ]);
    // Another merchant's day holds none of it.
    const other = await registerDeveloper();
    const foreign = (await call(`/v1/balance/settlement_report?date=${today}`, { key: other.key })).body.data;
    expect(foreign).to.deep.include({ lines: [], currencies: [] });
  });

  it('answers 400 naming the parameter for a missing, malformed, future or too old date, an unknown currency and a bad format', async () => {
    const { key } = await registerDeveloper();
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const tooOld = new Date(Date.now() - 731 * 86_400_000).toISOString().slice(0, 10);
    const today = new Date().toISOString().slice(0, 10);
    for (const [query, field] of [
      ['', 'date'],
      ['date=yesterday', 'date'],
      ['date=2026-02-30', 'date'],
      ['date=2026-1-5', 'date'],
      [`date=${tomorrow}`, 'date'],
      [`date=${tooOld}`, 'date'],
      [`date=${today}&format=pdf`, 'format'],
      [`date=${today}&currency=EURO`, 'currency'],
      [`date=${today}&currency=kes`, 'currency'],
      [`date=${today}&currency=`, 'currency'],
      [`date=${today}&currency=KES&currency=RWF`, 'currency'],
      [`date=${today}&colour=blue`, 'colour'],
    ]) {
      const answer = await call(`/v1/balance/settlement_report?${query}`, { key });
      expect(answer.status, query).to.equal(400);
      expect(answer.body.error.code, query).to.equal('validation_error');
      expect(answer.body.error.details[0].field, query).to.equal(field);
    }
  });
});
