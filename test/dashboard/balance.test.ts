/**
 * The dashboard's Balance screen (docs/ledger.md#balance) and the payment detail's postings in a real browser against
 * the real stack: a completed payment and a partial refund show as pending and available funds per currency, the
 * available balance below zero is explained (why, and what happens next), their balance transactions filter by type
 * and export as CSV, and the payment's detail lists its double-entry postings. The screen, the explanation with it,
 * is axe-clean at 1280 and at 390 px, where the balance is a card and the filters wait behind "Filter".
 */
import fs from 'node:fs';
import { expect } from 'chai';
import { call, registerDeveloper, waitForPayment } from '../helpers/http';
import { getStack } from '../helpers/stack';
import { checkScreen, closeBrowser, newPage, screenshot, signIn } from './browser';

const INSTANT = { amount: 1500, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' };

describe('dashboard balance screen in a browser (docs/ledger.md#balance)', function () {
  this.timeout(180_000);

  before(async () => {
    await getStack();
  });
  after(async () => {
    await closeBrowser();
  });

  it('shows available, pending and reserved per currency, filters and exports balance transactions, and a payment’s postings', async () => {
    const developer = await registerDeveloper();
    const created = await call('/v1/payments', { key: developer.key, body: INSTANT });
    const payment = await waitForPayment(developer.key, created.body.data.id, (p) => p.status === 'completed');
    const refund = await call(`/v1/payments/${payment.id}/refund`, { key: developer.key, body: { amount: 500 } });
    expect(refund.status).to.equal(201);

    const { context, page, pageErrors } = await newPage();
    await signIn(page, developer);
    await page.getByRole('link', { name: 'Balance' }).click();
    await page.getByRole('heading', { level: 1, name: 'Balance' }).waitFor();
    // 1,500 less the 23 fee is pending until momo's settlement day; the refund of 500 was taken at once.
    const row = page.getByTestId('balance-summary').getByRole('row', { name: /RWF/ });
    await row.waitFor();
    expect((await row.locator('td').allTextContents()).map((t) => t.trim())).to.deep.equal(['−500', '1,477', '0']);
    // Below zero: why, and what happens next (docs/ledger.md#negative-balance), for that currency alone.
    const note = page.getByTestId('negative-balance');
    expect(await note.getByRole('heading').allTextContents()).to.deep.equal(['Your available RWF balance is −500 RWF']);
    const explained = await note.getByTestId('negative-balance-RWF').textContent();
    expect(explained).to.include('Why: refunds, the fees of refunded payments');
    expect(explained).to.include(
      'Payouts in RWF, manual and automatic, wait until the available balance is above zero',
    );
    expect(explained).to.include('1,477 RWF pending becomes available on its day');
    const table = page.getByTestId('balance-transactions-table');
    await table.getByText(refund.body.data.id).waitFor();
    await table.getByRole('link', { name: payment.id }).waitFor();
    await checkScreen(page, 'balance');

    await page.getByLabel('Type').selectOption('refund');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/type=refund/);
    await table.getByRole('link', { name: payment.id }).waitFor({ state: 'detached' });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    const csv = fs
      .readFileSync(await download.path(), 'utf8')
      .trim()
      .split('\r\n');
    expect(csv[0]).to.equal('id,type,source,created_at,available_on,status,currency,amount,fee,net');
    expect(csv).to.have.length(2);
    const cells = (csv[1] as string).split(',');
    expect([cells[1], cells[2], cells[6], cells[7], cells[8], cells[9]]).to.deep.equal([
      'refund',
      refund.body.data.id,
      'RWF',
      '-500',
      '0',
      '-500',
    ]);

    // On a phone: the same figures and explanation, the filter behind "Filter" showing the one applied as a chip.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await row.waitFor();
    expect((await row.locator('td').allTextContents()).map((t) => t.trim())).to.deep.equal(['−500', '1,477', '0']);
    await note.getByTestId('negative-balance-RWF').waitFor();
    expect(await page.getByLabel('Type', { exact: true }).isVisible()).to.equal(false);
    await page.getByRole('button', { name: 'Remove filter Type: refund' }).waitFor();
    await checkScreen(page, 'phone-balance-negative');
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.goto(`/dashboard/sandbox/payments/${payment.id}`);
    const postings = page.getByTestId('postings-table');
    await postings.waitFor();
    const lines = await postings.locator('tbody tr').allTextContents();
    // The collection's three lines, the refund's reservation and its payment by the provider, two lines each.
    expect(lines).to.have.length(7);
    expect(lines.join('\n'))
      .to.include(`payment:${payment.id}:completed`)
      .and.include('provider_clearing:momo')
      .and.include(`merchant_balance:${developer.merchantId}`)
      .and.include(`refund:${refund.body.data.id}:reserved`)
      .and.include(`refund:${refund.body.data.id}:completed`);
    await screenshot(page, 'payment-postings');
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });
});
