/**
 * The dashboard on a phone first (docs/dashboard.md#phone), in Chromium at 390 × 844 against the real stack: the
 * navigation behind "Menu", the filters of every list (Payments, Balance, Activity, Checkout sessions) behind
 * "Filter" with the active ones as chips, three payments above the fold, ids (links or not) on one line with the
 * whole id as their title, the Balance table as cards that nothing cuts, and a refund that asks first; at 1280 px
 * the navigation and the filters are simply there. Each state is axe-clean and nothing scrolls sideways.
 */
import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { axeFindings, checkScreen, closeBrowser, newPage, signIn } from './browser';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

/**
 * The lists whose filters hide behind "Filter" on a phone, as Payments' do: a filter to set (its label and a value),
 * whether it applies with "Apply filters" or as soon as it is chosen, and the chip it then shows.
 */
const FILTERED_LISTS = [
  { name: 'balance', heading: 'Balance', field: 'Type', param: 'type', value: 'payment', apply: true },
  { name: 'activity', heading: 'Activity', field: 'Action', param: 'action', value: 'sign_in.succeeded', apply: true },
  {
    name: 'checkout-sessions',
    heading: 'Checkout sessions',
    field: 'Status',
    param: 'status',
    value: 'open',
    apply: false,
  },
] as const;

/** How many lines `element` takes (its height over its line height). */
async function linesOf(element: Locator): Promise<number> {
  return element.evaluate((node) => {
    const style = (globalThis as any).getComputedStyle(node);
    return node.getBoundingClientRect().height / parseFloat(style.lineHeight);
  });
}

/** A developer with three completed payments. */
async function developerWithPayments(): Promise<TestDeveloper> {
  const developer = await registerDeveloper();
  for (const amount of [1_500, 2_500, 3_500]) {
    const created = await call('/v1/payments', {
      key: developer.key,
      body: { amount, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    await waitForPayment(developer.key, created.body.data.id, (p) => p.status === 'completed');
  }
  return developer;
}

/** The payments table's rows once the three payments are listed. */
async function paymentRows(page: Page) {
  const rows = page.getByTestId('payments-table').locator('tbody tr');
  await rows.nth(2).waitFor();
  return rows;
}

describe('the dashboard on a phone first (docs/dashboard.md#phone)', function () {
  this.timeout(180_000);
  let developer: TestDeveloper;

  before(async () => {
    developer = await developerWithPayments();
  });
  after(closeBrowser);

  it('keeps the navigation behind a Menu button that opens it and closes once a screen opens', async () => {
    const { page, context, pageErrors } = await newPage();
    await page.setViewportSize(PHONE);
    await signIn(page, developer);
    const menu = page.getByRole('button', { name: 'Menu' });
    const navigation = page.getByRole('navigation', { name: 'Dashboard' });
    expect(await menu.getAttribute('aria-expanded')).to.equal('false');
    expect(await navigation.isVisible()).to.equal(false);
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).to.equal('true');
    await navigation.waitFor();
    await checkScreen(page, 'phone-menu-open');
    await page.keyboard.press('Escape');
    await navigation.waitFor({ state: 'hidden' });
    await menu.click();
    await navigation.getByRole('link', { name: 'Balance' }).click();
    await page.getByRole('heading', { level: 1, name: 'Balance' }).waitFor();
    expect(await navigation.isVisible()).to.equal(false);
    expect(await menu.getAttribute('aria-expanded')).to.equal('false');
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });

  it('shows three payments above the fold, ids on one line with the whole id as their title', async () => {
    const { page, context, pageErrors } = await newPage();
    await page.setViewportSize(PHONE);
    await signIn(page, developer);
    const rows = await paymentRows(page);
    const third = await rows.nth(2).boundingBox();
    expect(third, 'the third payment').not.to.equal(null);
    expect(third!.y + third!.height, 'the third payment ends above the fold').to.be.at.most(PHONE.height);
    const listed = await call('/v1/payments', { key: developer.key });
    const newest = listed.body.data.payments[0].id as string;
    const id = page.getByRole('link', { name: newest });
    expect(await id.getAttribute('title')).to.equal(newest);
    expect(await linesOf(id), 'the id takes one line').to.be.below(1.5);
    await checkScreen(page, 'phone-payments-first-screen');
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });

  it('keeps the filters behind Filter and shows the active ones as chips that remove them', async () => {
    const { page, context, pageErrors } = await newPage();
    await page.setViewportSize(PHONE);
    await signIn(page, developer);
    await paymentRows(page);
    const toggle = page.getByRole('button', { name: 'Filter', exact: true });
    const status = page.getByLabel('Status', { exact: true });
    expect(await status.isVisible()).to.equal(false);
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).to.equal('true');
    await status.selectOption('failed');
    await checkScreen(page, 'phone-filters-open');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const chip = page.getByRole('button', { name: 'Remove filter Status: failed' });
    await chip.waitFor();
    await page.getByText('No payments match these filters.').waitFor();
    expect(await status.isVisible()).to.equal(false);
    expect(await page.getByRole('button', { name: 'Filter (1)' }).isVisible()).to.equal(true);
    await checkScreen(page, 'phone-filter-chips');
    await chip.click();
    await chip.waitFor({ state: 'detached' });
    expect(new URL(page.url()).searchParams.get('status')).to.equal(null);
    expect(await (await paymentRows(page)).count()).to.equal(3);
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });

  for (const list of FILTERED_LISTS) {
    it(`keeps the ${list.heading} filters behind Filter and shows the active one as a chip that removes it`, async () => {
      const { page, context, pageErrors } = await newPage();
      await page.setViewportSize(PHONE);
      await signIn(page, developer);
      await page.goto(`/dashboard/sandbox/${list.name}`);
      await page.getByRole('heading', { level: 1, name: list.heading }).waitFor();
      const toggle = page.getByRole('button', { name: 'Filter', exact: true });
      const field = page.getByLabel(list.field, { exact: true });
      await toggle.waitFor();
      expect(await field.isVisible(), 'the filter before Filter is pressed').to.equal(false);
      await toggle.click();
      expect(await toggle.getAttribute('aria-expanded')).to.equal('true');
      await field.selectOption(list.value);
      if (list.apply) await page.getByRole('button', { name: 'Apply filters' }).click();
      const chip = page.getByRole('button', { name: `Remove filter ${list.field}: ${list.value}` });
      await chip.waitFor();
      expect(new URL(page.url()).searchParams.get(list.param)).to.equal(list.value);
      if (list.apply) expect(await field.isVisible(), 'the filter once applied').to.equal(false);
      expect(await page.getByRole('button', { name: 'Filter (1)' }).isVisible()).to.equal(true);
      await checkScreen(page, `phone-${list.name}-filter-chips`);
      await chip.click();
      await chip.waitFor({ state: 'detached' });
      expect(new URL(page.url()).search).to.equal('');
      expect(pageErrors).to.deep.equal([]);
      await context.close();
    });
  }

  for (const [device, size] of Object.entries({ phone: PHONE, desktop: DESKTOP })) {
    it(`keeps ids that are not links on one line with the whole id as their title (${device})`, async () => {
      const { page, context, pageErrors } = await newPage();
      await page.setViewportSize(size);
      await signIn(page, developer);
      await page.goto('/dashboard/sandbox/balance');
      const listed = await call('/v1/balance_transactions', { key: developer.key });
      const ids = (listed.body.data.balance_transactions as { id: string }[]).map((t) => t.id);
      const table = page.getByTestId('balance-transactions-table');
      const id = table.locator('td.col-id span').first();
      await id.waitFor();
      expect(await id.getAttribute('title')).to.be.oneOf(ids);
      expect(await id.textContent()).to.equal(await id.getAttribute('title'));
      expect(await linesOf(id), 'the id takes one line').to.be.below(1.5);
      // Nor is the table cut inside its box for ids that stay whole.
      const box = await table.evaluate((node) => {
        const wrap = node.parentElement!;
        return { scroll: wrap.scrollWidth, client: wrap.clientWidth };
      });
      expect(box.scroll, 'the table fits its box').to.be.at.most(box.client);
      await checkScreen(page, `${device}-balance-ids`);
      expect(pageErrors).to.deep.equal([]);
      await context.close();
    });
  }

  it('asks before refunding on a phone, in a dialog that is axe-clean in both colour schemes', async () => {
    const { page, context, pageErrors } = await newPage();
    await page.setViewportSize(PHONE);
    await signIn(page, developer);
    const listed = await call('/v1/payments', { key: developer.key });
    const payment = listed.body.data.payments[0] as { id: string };
    await page.goto(`/dashboard/sandbox/payments/${payment.id}`);
    await page.getByLabel(/^Amount in RWF/).fill('500');
    await page.getByRole('button', { name: 'Refund…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Refund this payment?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).to.include('Refund 500 RWF of');
    const box = await dialog.boundingBox();
    expect(box!.x >= 0 && box!.x + box!.width <= PHONE.width, 'the dialog fits the screen').to.equal(true);
    expect(await axeFindings(page), 'axe-core on the refund confirmation').to.deep.equal([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await axeFindings(page), 'axe-core on the refund confirmation, dark').to.deep.equal([]);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect((await call(`/v1/payments/${payment.id}`, { key: developer.key })).body.data.amount_refunded).to.equal(0);
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });

  it('shows the balance per currency as a card that nothing cuts', async () => {
    const { page, context, pageErrors } = await newPage();
    await page.setViewportSize(PHONE);
    await signIn(page, developer);
    await page.goto('/dashboard/sandbox/balance');
    const summary = page.getByTestId('balance-summary');
    await summary.locator('tbody tr').first().waitFor();
    const cut = await summary.evaluate((table) => {
      const region = table.closest('.scroll-x') as any;
      const cells = [...table.querySelectorAll('tbody td, tbody th')].map((cell) => cell.getBoundingClientRect());
      return {
        scrolls: region.scrollWidth > region.clientWidth,
        beyond: cells.filter((box) => box.right > region.getBoundingClientRect().right + 1).length,
      };
    });
    expect(cut).to.deep.equal({ scrolls: false, beyond: 0 });
    const reserved = summary.locator('tbody td').nth(2);
    expect(await reserved.getAttribute('data-label')).to.equal('Reserved by refunds');
    await checkScreen(page, 'phone-balance-first-screen');
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });

  it('shows the navigation and the filters without a Menu or Filter button at 1280 px', async () => {
    const { page, context, pageErrors } = await newPage();
    await signIn(page, developer);
    await paymentRows(page);
    expect(await page.getByRole('button', { name: 'Menu' }).isVisible()).to.equal(false);
    expect(await page.getByRole('button', { name: 'Filter', exact: true }).isVisible()).to.equal(false);
    expect(await page.getByRole('navigation', { name: 'Dashboard' }).isVisible()).to.equal(true);
    expect(await page.getByLabel('Status', { exact: true }).isVisible()).to.equal(true);
    for (const list of FILTERED_LISTS) {
      await page.goto(`/dashboard/sandbox/${list.name}`);
      await page.getByRole('heading', { level: 1, name: list.heading }).waitFor();
      await page.getByLabel(list.field, { exact: true }).waitFor();
      expect(await page.getByRole('button', { name: 'Filter', exact: true }).isVisible(), list.name).to.equal(false);
      await checkScreen(page, `desktop-${list.name}-filters`);
    }
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });
});
