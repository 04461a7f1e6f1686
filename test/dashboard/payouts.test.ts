/**
 * Payouts in the dashboard, in a real browser against the real stack (docs/payouts.md): a wallet destination added
 * with its verification state, a payout to it followed to `paid` on its detail screen with the status timeline and its
 * balance transaction, a refused one with its reason, and the automatic payout setting saved.
 */
import { expect } from 'chai';
import { call, registerDeveloper, waitForPayment } from '../helpers/http';
import { closeBrowser, eventually, newPage, screenshot, signIn } from './browser';

describe('payouts in the dashboard (docs/payouts.md)', function () {
  this.timeout(180_000);

  after(closeBrowser);

  it('adds a destination, pays out to it, follows the payout to paid and saves a daily schedule', async () => {
    const developer = await registerDeveloper();
    const payment = await call('/v1/payments', {
      key: developer.key,
      body: { amount: 20_000, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' },
    });
    await waitForPayment(developer.key, payment.body.data.id, (p) => p.status === 'completed');
    await call('/v1/sandbox/balance/settle', { key: developer.key, method: 'POST' });

    const { page, context, pageErrors } = await newPage();
    await signIn(page, developer);
    await page.getByRole('link', { name: 'Payouts' }).click();
    await page.getByRole('heading', { level: 1, name: 'Payouts' }).waitFor();
    // The screen answers before its balance query does: wait for the figure.
    const available = await eventually(
      () => page.getByTestId('available-balance').textContent(),
      (text) => /19,700|19700/.test(text ?? ''),
    );
    expect(available).to.match(/19,700|19700/);

    await page.getByLabel('Phone number (E.164)').fill('+250788000001');
    await page.getByRole('button', { name: 'Add destination' }).click();
    await page.getByTestId('destinations-table').getByText('verified').waitFor();
    await page.getByLabel('Phone number (E.164)').fill('+250788000002');
    await page.getByRole('button', { name: 'Add destination' }).click();
    await page.getByTestId('destinations-table').getByText('unverified').waitFor();

    await page.getByLabel('Amount').fill('1000');
    await page.locator('#payout-destination').selectOption({ label: 'mobile money …0001 (verified)' });
    await page.getByRole('button', { name: 'Pay out' }).click();
    await page.getByTestId('payouts-table').getByText('paid').waitFor();
    await page.getByLabel('Amount').fill('500');
    await page.locator('#payout-destination').selectOption({ label: 'mobile money …0002 (unverified)' });
    await page.getByRole('button', { name: 'Pay out' }).click();
    await page.getByTestId('payouts-table').getByText('failed').waitFor();
    await screenshot(page, 'payouts');

    const list = await call('/v1/payouts?status=paid', { key: developer.key });
    const paidId = list.body.data.payouts[0].id as string;
    await page.getByRole('link', { name: paidId }).click();
    await page.getByRole('heading', { level: 1, name: 'Payout' }).waitFor();
    expect(await page.getByTestId('payout-status').textContent()).to.equal('paid');
    const timeline = await page.getByTestId('payout-timeline').locator('li').allTextContents();
    expect(timeline.map((line) => line.split(' ')[0])).to.deep.equal(['pending', 'in', 'paid']);
    await eventually(
      () => page.getByTestId('payout-own-transactions').textContent(),
      (text) => (text ?? '').includes('payout of'),
    );
    await screenshot(page, 'payout-detail');

    await page.goBack();
    await page.locator('#schedule-kind').selectOption('daily');
    await page.locator('#schedule-destination').selectOption({ label: 'mobile money …0001' });
    await page.getByLabel('Minimum kept in the balance (minor units)').fill('5000');
    await page.getByRole('button', { name: 'Save schedule' }).click();
    await eventually(
      () => page.getByTestId('schedule-now').textContent(),
      (text) => (text ?? '').includes('daily'),
    );
    const saved = await call('/v1/payout_schedule', { key: developer.key });
    expect(saved.body.data).to.include({ schedule: 'daily', minimum: 5000, currency: 'RWF' });
    await call('/v1/payout_schedule', { key: developer.key, method: 'PUT', body: { schedule: 'manual' } });
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });
});
