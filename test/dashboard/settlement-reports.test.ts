/**
 * Settlement reports in the dashboard, in a real browser against the real stack (docs/ledger.md#reports): the Balance
 * screen downloads a UTC day's report and the payout detail its payout's report, each the API's CSV file as it came
 * (byte-order mark, formula cells defused, amounts in the currency's unit), under the name the API suggests; the
 * same files on a phone (390 px) as on a desktop (1280 px), both screens axe-clean at both widths.
 */
import fs from 'node:fs';
import { expect } from 'chai';
import { parse } from 'csv-parse/sync';
import type { Page } from 'playwright-core';
import { call, registerDeveloper, waitForPayment } from '../helpers/http';
import { checkScreen, closeBrowser, newPage, signIn } from './browser';

/** Clicks `button` and reads the file the browser saves: its suggested name, bytes and rows keyed by the header. */
async function downloaded(page: Page, button: string) {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: button }).click(),
  ]);
  const bytes = fs.readFileSync(await download.path());
  const [header, ...records] = parse(bytes, { bom: true }) as string[][];
  const rows = records.map((r) => Object.fromEntries(header!.map((name, i) => [name, r[i] ?? ''])));
  return { name: download.suggestedFilename(), bytes, rows };
}

describe('settlement reports in the dashboard (docs/ledger.md#reports)', function () {
  this.timeout(180_000);

  after(closeBrowser);

  it("downloads a day's report from the Balance screen and a payout's from its detail, as the API's CSV", async () => {
    const developer = await registerDeveloper();
    const key = developer.key;
    const created = await call('/v1/payments', {
      key,
      body: {
        amount: 20_000,
        currency: 'RWF',
        payment_method: 'mobile_money',
        phone_number: '+250788000001',
        description: '=1+2',
      },
    });
    const payment = await waitForPayment(key, created.body.data.id, (p) => p.status === 'completed');
    expect((await call(`/v1/payments/${payment.id}/refund`, { key, body: { amount: 500 } })).status).to.equal(201);
    await call('/v1/sandbox/balance/settle', { key, method: 'POST' });
    const destination = await call('/v1/payout_destinations', {
      key,
      body: { type: 'mobile_money', phone_number: '+250788000001' },
    });
    const payout = await call('/v1/payouts', {
      key,
      headers: { 'idempotency-key': 'dashboard-report' },
      body: { amount: 5_000, currency: 'RWF', destination: destination.body.data.id },
    });
    expect(payout.status, JSON.stringify(payout.body)).to.equal(201);
    const today = new Date().toISOString().slice(0, 10);

    const { page, context, pageErrors } = await newPage();
    await signIn(page, developer);
    await page.getByRole('link', { name: 'Balance' }).click();
    await page.getByRole('heading', { level: 2, name: 'Settlement report per day' }).waitFor();
    expect(await page.getByLabel('Day (UTC)').inputValue()).to.equal(today);
    const day = await downloaded(page, 'Download day report (CSV)');
    expect(day.name).to.equal(`settlement-report-sandbox-${today}.csv`);
    expect([...day.bytes.subarray(0, 3)]).to.deep.equal([0xef, 0xbb, 0xbf]);
    // One section per currency: opening balance, the lines, their total, the closing balance (docs/ledger.md#csv).
    expect(day.rows.map((r) => [r.category, r.currency, r.gross, r.fee, r.net])).to.deep.equal([
      ['opening_balance', 'RWF', '', '', '0'],
      ['payment', 'RWF', '20000', '300', '19700'],
      ['refund', 'RWF', '-500', '0', '-500'],
      ['payout', 'RWF', '-5000', '50', '-5050'],
      ['total', 'RWF', '14500', '350', '14150'],
      ['closing_balance', 'RWF', '', '', '14150'],
    ]);
    expect(day.rows[1]!.merchant_description).to.equal("'=1+2");
    // The currency picker offers the balance's currencies; one currency downloads its own section.
    await page.getByTestId('balance-summary').waitFor();
    expect(await page.getByLabel('Currency', { exact: true }).locator('option').allTextContents()).to.deep.equal([
      'Every currency, one section each',
      'RWF',
    ]);
    await page.getByLabel('Currency', { exact: true }).selectOption('RWF');
    const rwf = await downloaded(page, 'Download day report (CSV)');
    expect(rwf.name).to.equal(`settlement-report-sandbox-${today}-RWF.csv`);
    expect(rwf.rows).to.deep.equal(day.rows);
    await checkScreen(page, 'desktop-balance-day-report');

    await page.goto(`/dashboard/sandbox/payouts/${payout.body.data.id}`);
    await page.getByRole('heading', { level: 1, name: 'Payout' }).waitFor();
    const report = await downloaded(page, 'Download settlement report (CSV)');
    expect(report.name).to.equal(`settlement-report-${payout.body.data.id}.csv`);
    // A manual payout itemizes what it drew on, first in first out (docs/payouts.md#manual-payout-report): the refund
    // (available at once) and the payment, whose rest stays in the balance, listed oldest first; all add up to what it
    // paid out.
    expect(report.rows.map((r) => [r.category, r.net])).to.deep.equal([
      ['payment', '19700'],
      ['refund', '-500'],
      ['payout_fee', '-50'],
      ['balance_carried', '-14150'],
    ]);
    expect(report.rows[0]!.source).to.equal(payment.id);
    expect(report.rows[1]!.source).to.match(/^ref_/);
    expect(report.rows.reduce((sum, r) => sum + Number(r.net), 0)).to.equal(5_000);
    await checkScreen(page, 'desktop-payout-report');

    // The same downloads on a phone.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto('/dashboard/sandbox/balance');
    await page.getByTestId('balance-summary').waitFor();
    const phoneDay = await downloaded(page, 'Download day report (CSV)');
    expect([phoneDay.name, phoneDay.rows]).to.deep.equal([day.name, day.rows]);
    await checkScreen(page, 'phone-balance-day-report');
    await page.goto(`/dashboard/sandbox/payouts/${payout.body.data.id}`);
    await page.getByRole('heading', { level: 1, name: 'Payout' }).waitFor();
    const phoneReport = await downloaded(page, 'Download settlement report (CSV)');
    expect([phoneReport.name, phoneReport.rows]).to.deep.equal([report.name, report.rows]);
    await checkScreen(page, 'phone-payout-report');
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });
});
