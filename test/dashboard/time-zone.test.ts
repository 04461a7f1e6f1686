/**
 * Times in the merchant's time zone (docs/dashboard.md#time-zone), in Chromium against the real stack: with none
 * chosen a browser in Nairobi shows East Africa's time; the zone chosen on the Profile screen (Africa/Kigali) is used
 * by every screen, each time with its offset and the same time in UTC on hover, on a phone (390 px) as on a desktop
 * (1280 px). The Profile screen and the list of times are axe-clean at both widths.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { getStack } from '../helpers/stack';
import { checkScreen, closeBrowser, getBrowser, signIn } from './browser';

/** `hh:mm` of an ISO instant moved by `hours`. */
function clock(iso: string, hours: number): string {
  return new Date(Date.parse(iso) + hours * 3_600_000).toISOString().slice(11, 16);
}

const WIDTHS = { phone: 390, desktop: 1280 } as const;

/** A page `width` px wide in a browser whose own time zone is `timezoneId`. */
async function pageIn(timezoneId: string, width: number) {
  const { baseUrl } = await getStack();
  const context = await (
    await getBrowser()
  ).newContext({ baseURL: baseUrl, timezoneId, viewport: { width, height: 900 } });
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  const pageErrors: Error[] = [];
  page.on('pageerror', (error) => pageErrors.push(error));
  return { context, page, pageErrors };
}

/** The first time of the payments list: what it shows and its title. */
async function firstListedTime(page: Page): Promise<{ shown: string; title: string }> {
  const time = page.getByTestId('payments-table').locator('time').first();
  await time.waitFor();
  return { shown: (await time.textContent()) ?? '', title: (await time.getAttribute('title')) ?? '' };
}

/** The payments list shows the payment created at `createdAt` in Kigali's time, and in UTC on hover. */
async function expectKigaliTimes(page: Page, createdAt: string): Promise<void> {
  await page.goto('/dashboard/sandbox/payments');
  const { shown, title } = await firstListedTime(page);
  expect(shown)
    .to.include(clock(createdAt, 2))
    .and.match(/GMT\+2$/);
  expect(title).to.include(clock(createdAt, 0)).and.match(/UTC$/);
}

describe("times in the merchant's time zone (docs/dashboard.md#time-zone)", function () {
  this.timeout(120_000);
  let developer: TestDeveloper;
  let createdAt: string;

  before(async () => {
    developer = await registerDeveloper();
    const created = await call('/v1/payments', {
      key: developer.key,
      body: { amount: 1_500, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' },
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    createdAt = (await waitForPayment(developer.key, created.body.data.id, (p) => p.status === 'completed'))
      .created_at as string;
  });
  after(closeBrowser);

  for (const [device, width] of Object.entries(WIDTHS)) {
    it(`shows the browser's own zone while none is chosen, with UTC on hover (${device})`, async () => {
      const { context, page, pageErrors } = await pageIn('Africa/Nairobi', width);
      await signIn(page, developer);
      const { shown, title } = await firstListedTime(page);
      expect(shown)
        .to.include(clock(createdAt, 3))
        .and.match(/GMT\+3$/);
      expect(title).to.include(clock(createdAt, 0)).and.match(/UTC$/);
      await checkScreen(page, `${device}-payments-time-zone`);
      expect(pageErrors).to.deep.equal([]);
      await context.close();
    });
  }

  it('shows every time in the zone chosen on the Profile screen', async () => {
    const { context, page, pageErrors } = await pageIn('Africa/Nairobi', WIDTHS.desktop);
    await signIn(page, developer);
    await page.goto('/dashboard/sandbox/profile');
    await page.getByRole('heading', { level: 1, name: 'Profile' }).waitFor();
    expect(await page.getByLabel('Show times in').inputValue()).to.equal('');
    await page.getByLabel('Show times in').selectOption('Africa/Kigali');
    await page.getByRole('button', { name: 'Use this time zone' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await checkScreen(page, 'desktop-profile-time-zone');
    const saved = await call('/v1/developer/profile', { key: developer.key });
    expect(saved.body.data.time_zone).to.equal('Africa/Kigali');

    await expectKigaliTimes(page, createdAt);
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });

  it('offers the time zone on the Profile screen and uses it on a phone', async () => {
    const chosen = await call('/v1/developer/profile', {
      method: 'PUT',
      key: developer.token,
      body: { time_zone: 'Africa/Kigali' },
    });
    expect(chosen.status, JSON.stringify(chosen.body)).to.equal(200);
    const { context, page, pageErrors } = await pageIn('Africa/Nairobi', WIDTHS.phone);
    await signIn(page, developer);
    await page.goto('/dashboard/sandbox/profile');
    await page.getByRole('heading', { level: 1, name: 'Profile' }).waitFor();
    expect(await page.getByLabel('Show times in').inputValue()).to.equal('Africa/Kigali');
    await checkScreen(page, 'phone-profile-time-zone');
    await expectKigaliTimes(page, createdAt);
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });
});
