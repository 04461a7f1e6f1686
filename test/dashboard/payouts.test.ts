/**
 * Payouts in the dashboard, in a real browser against the real stack (docs/payouts.md): a wallet destination added
 * with its verification state, a payout to it followed to `paid` on its detail screen with the status timeline and its
 * balance transaction, a refused one with its reason, and the automatic payout setting saved. No payout leaves
 * without a confirmation showing amount, fee, what leaves the balance and the destination by operator and last digits
 * (docs/dashboard.md#confirmations); a double click, or the same payout confirmed in two tabs, creates one payout; a
 * session that ended while the dialog was open sends nothing and asks to sign in again. A new destination, and
 * automatic payouts to another destination, wait for a confirmation too. Destinations name their operator ("MTN
 * MoMo"), not the provider's code; the screen and its confirmation are axe-clean at 390 and 1280 px.
 */
import { expect } from 'chai';
import type { BrowserContext, Page } from 'playwright-core';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { getStack } from '../helpers/stack';
import { axeFindings, checkScreen, closeBrowser, eventually, newPage, screenshot, signIn } from './browser';

/** The widths each screen is checked at: a phone's and a desktop's. */
const WIDTHS = { phone: 390, desktop: 1280 } as const;

/** A developer with 19,700 RWF available in the sandbox (a completed payment of 20,000 RWF, settled). */
async function developerWithBalance(): Promise<TestDeveloper> {
  const developer = await registerDeveloper();
  const payment = await call('/v1/payments', {
    key: developer.key,
    body: { amount: 20_000, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' },
  });
  await waitForPayment(developer.key, payment.body.data.id, (p) => p.status === 'completed');
  await call('/v1/sandbox/balance/settle', { key: developer.key, method: 'POST' });
  return developer;
}

/** A developer with 19,700 RWF available in the sandbox and a verified wallet ending 0001. */
async function fundedDeveloper(): Promise<{ developer: TestDeveloper; destinationId: string }> {
  const developer = await developerWithBalance();
  const destination = await call('/v1/payout_destinations', {
    key: developer.key,
    body: { type: 'mobile_money', phone_number: '+250788000001' },
  });
  expect(destination.status, JSON.stringify(destination.body)).to.equal(201);
  return { developer, destinationId: destination.body.data.id as string };
}

/** Opens the payouts screen, fills a payout of `amount` RWF to the wallet ending 0001 and opens its confirmation. */
async function reviewPayout(page: Page, amount: string) {
  await page.goto('/dashboard/sandbox/payouts');
  await page.getByRole('heading', { level: 1, name: 'Payouts' }).waitFor();
  await page.locator('#payout-currency option[value="RWF"]').waitFor({ state: 'attached' });
  await page.locator('#payout-destination option', { hasText: '…0001' }).waitFor({ state: 'attached' });
  await page.getByLabel('Amount').fill(amount);
  await page.locator('#payout-destination').selectOption({ label: 'mobile money …0001 (verified)' });
  await page.getByRole('button', { name: 'Pay out', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Send this payout?' });
  await dialog.waitFor();
  return dialog;
}

/** A funded developer (see {@link fundedDeveloper}) signed in on a fresh page of `width` px. */
async function signedInWithFunds(width = 1280) {
  const { developer } = await fundedDeveloper();
  const { page, context, pageErrors } = await newPage();
  await page.setViewportSize({ width, height: 844 });
  await signIn(page, developer);
  return { developer, page, context, pageErrors };
}

async function payoutCount(developer: TestDeveloper): Promise<number> {
  const list = await call('/v1/payouts', { key: developer.key });
  expect(list.status).to.equal(200);
  return (list.body.data.payouts as unknown[]).length;
}

/** Ends a test: the developer has exactly `count` payouts, the page threw nothing; closes the browser context. */
async function expectPayouts(
  developer: TestDeveloper,
  count: number,
  { context, pageErrors }: { context: BrowserContext; pageErrors: Error[] },
): Promise<void> {
  expect(await payoutCount(developer)).to.equal(count);
  expect(pageErrors).to.deep.equal([]);
  await context.close();
}

describe('payouts in the dashboard (docs/payouts.md)', function () {
  this.timeout(180_000);

  after(closeBrowser);

  it('adds a destination, pays out to it, follows the payout to paid and saves a daily schedule', async () => {
    const developer = await developerWithBalance();

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

    // A new destination waits for its confirmation: going back adds nothing.
    const addition = page.getByRole('dialog', { name: 'Add this payout destination?' });
    await page.getByLabel('Phone number (E.164)').fill('+250788000001');
    await page.getByRole('button', { name: 'Add destination' }).click();
    expect(await addition.getByTestId('confirm-phone').textContent()).to.equal('+250788000001');
    await addition.getByRole('button', { name: 'Go back' }).click();
    await addition.waitFor({ state: 'detached' });
    expect(
      (await call('/v1/payout_destinations', { key: developer.key })).body.data.payout_destinations,
    ).to.have.length(0);
    await page.getByRole('button', { name: 'Add destination' }).click();
    await addition.getByRole('button', { name: 'Add destination' }).click();
    await page.getByTestId('destinations-table').getByText('verified').waitFor();
    await page.getByLabel('Phone number (E.164)').fill('+250788000002');
    await page.getByRole('button', { name: 'Add destination' }).click();
    await addition.getByRole('button', { name: 'Add destination' }).click();
    await page.getByTestId('destinations-table').getByText('unverified').waitFor();

    await page.getByLabel('Amount').fill('1000');
    await page.locator('#payout-destination').selectOption({ label: 'mobile money …0001 (verified)' });
    await page.getByRole('button', { name: 'Pay out', exact: true }).click();
    await page
      .getByRole('dialog', { name: 'Send this payout?' })
      .getByRole('button', { name: 'Pay out 1,000 RWF' })
      .click();
    await page.getByTestId('payouts-table').getByText('paid').waitFor();
    await page.getByLabel('Amount').fill('500');
    await page.locator('#payout-destination').selectOption({ label: 'mobile money …0002 (unverified)' });
    await page.getByRole('button', { name: 'Pay out', exact: true }).click();
    await page
      .getByRole('dialog', { name: 'Send this payout?' })
      .getByRole('button', { name: 'Pay out 500 RWF' })
      .click();
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
    // Automatic payouts going somewhere new wait for a confirmation naming where.
    const redirect = page.getByRole('dialog', { name: 'Change where automatic payouts go?' });
    expect(await redirect.getByTestId('confirm-schedule-to').textContent()).to.equal('MTN MoMo wallet ending 0001');
    await redirect.getByRole('button', { name: 'Save schedule' }).click();
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

  for (const [device, width] of Object.entries(WIDTHS)) {
    it(`names each destination's operator, not the provider's code, at ${width} px`, async () => {
      const { page, context, pageErrors } = await signedInWithFunds(width);
      await page.goto('/dashboard/sandbox/payouts');
      const operator = page.getByTestId('destinations-table').locator('td.col-provider');
      await operator.first().waitFor();
      expect(await operator.allTextContents()).to.deep.equal(['MTN MoMo']);
      expect(await operator.first().getAttribute('data-label')).to.equal('Operator');
      await checkScreen(page, `${device}-payouts-destinations`);
      expect(pageErrors).to.deep.equal([]);
      await context.close();
    });
  }

  for (const [device, width] of Object.entries(WIDTHS)) {
    it(`shows amount, fee, what leaves the balance and the destination by operator and last digits before sending, and sends nothing on Go back (${device})`, async () => {
      const { developer, page, context, pageErrors } = await signedInWithFunds(width);
      const dialog = await reviewPayout(page, '1000');
      expect(await page.locator('#payout-currency option').allTextContents()).to.deep.equal(['RWF']);
      expect(await dialog.getByTestId('confirm-amount').textContent()).to.equal('1,000 RWF');
      expect(await dialog.getByTestId('confirm-fee').textContent()).to.equal('10 RWF');
      expect(await dialog.getByTestId('confirm-net').textContent()).to.equal('1,010 RWF');
      expect(await dialog.getByTestId('confirm-destination').textContent()).to.match(/^MTN MoMo wallet ending 0001$/);
      expect(await axeFindings(page), 'axe-core on the confirmation').to.deep.equal([]);
      await screenshot(page, `${device}-payout-confirmation`);
      await dialog.getByRole('button', { name: 'Go back' }).click();
      await dialog.waitFor({ state: 'detached' });
      await expectPayouts(developer, 0, { context, pageErrors });
    });
  }

  it('creates one payout when the confirmation is double-clicked', async () => {
    const { developer, page, context, pageErrors } = await signedInWithFunds();
    const dialog = await reviewPayout(page, '1000');
    await dialog.getByRole('button', { name: 'Pay out 1,000 RWF' }).dblclick();
    await page.getByTestId('payouts-table').getByText('paid').waitFor();
    await expectPayouts(developer, 1, { context, pageErrors });
  });

  it('creates one payout when the same payout is confirmed in two tabs', async () => {
    const { developer, page, context, pageErrors } = await signedInWithFunds();
    const second = await context.newPage();
    await signIn(second, developer);
    const first = await reviewPayout(page, '2000');
    const other = await reviewPayout(second, '2000');
    await first.getByRole('button', { name: 'Pay out 2,000 RWF' }).click();
    await page.getByTestId('payouts-table').getByText('paid').waitFor();
    await other.getByRole('button', { name: 'Pay out 2,000 RWF' }).click();
    await other.waitFor({ state: 'detached' });
    expect(await second.getByTestId('api-error').count()).to.equal(0);
    expect(await payoutCount(developer)).to.equal(1);
    // Once answered, the next payout of the same figures is a new one.
    await (await reviewPayout(page, '2000')).getByRole('button', { name: 'Pay out 2,000 RWF' }).click();
    await eventually(
      () => payoutCount(developer),
      (count) => count === 2,
    );
    await expectPayouts(developer, 2, { context, pageErrors });
  });

  it('asks to sign in again and sends nothing when the session ends while the payout waits for confirmation', async () => {
    const { developer, page, context, pageErrors } = await signedInWithFunds();
    const dialog = await reviewPayout(page, '1000');
    // The session ends (as signing out everywhere ends it) while the dialog is open.
    const { db } = await getStack();
    await db('developers').where({ merchant_id: developer.merchantId }).increment('session_generation', 1);
    await dialog.getByRole('button', { name: 'Pay out 1,000 RWF' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.getByText('Your session has ended. Sign in again to go on.').waitFor();
    expect(new URL(page.url()).searchParams.get('next')).to.equal('/sandbox/payouts');
    await expectPayouts(developer, 0, { context, pageErrors });
  });
});
