/**
 * Branding and checkout sessions in the dashboard, in Chromium against the real stack, at a phone's width (390 px) and
 * a desktop's (1280 px): the branding screen previews the pay button with the text colour the service chooses
 * (docs/branding.md#colours), saves the name and colour, uploads an SVG logo and shows it, refuses an HTML page
 * renamed `.png` naming the problem with nothing stored, and removes the logo; a viewer sees it without the means to
 * change it. The checkout sessions screen lists a session with its status, amount and attempts, and shows its
 * attempts (docs/checkout.md#states). Neither screen scrolls sideways, and axe-core finds no fault on either.
 */
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { call, registerDeveloper, waitForPayment, type TestDeveloper } from '../helpers/http';
import { addMember } from '../helpers/security';
import { checkScreen, closeBrowser, eventually, newPage, signIn } from './browser';

const WIDTHS = { phone: 390, desktop: 1280 } as const;

const SVG_LOGO = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 40" onload="alert(1)"><circle cx="20" cy="20" r="18" fill="#0b6e4f"/></svg>',
);

/** The preview button's background and text colours, as the browser computed them. */
async function buttonColours(page: Page): Promise<{ background: string; color: string }> {
  return page.getByTestId('brand-preview-button').evaluate((el) => {
    const style = (globalThis as any).getComputedStyle(el);
    return { background: style.backgroundColor as string, color: style.color as string };
  });
}

/** A completed session of `dev` with two attempts: a decline, then a success. */
async function paidSession(dev: TestDeveloper): Promise<{ id: string; attempts: string[] }> {
  const created = await call('/v1/checkout/sessions', {
    key: dev.key,
    body: { amount: 4_500, currency: 'RWF', description: 'Two baskets', success_url: 'https://shop.example/paid' },
    headers: { 'idempotency-key': `dash-${Math.random()}` },
  });
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  const id = created.body.data.id as string;
  const attempt = async (phone: string) => {
    const started = await call(`/v1/checkout/sessions/${id}/attempts`, {
      body: { payment_method: 'mobile_money', phone_number: phone },
    });
    expect(started.status, JSON.stringify(started.body)).to.equal(201);
    return started.body.data.payment as string;
  };
  const declined = await attempt('+250788000002');
  await waitForPayment(dev.key, declined, (p) => p.status === 'failed');
  await eventually(
    () => call(`/v1/checkout/sessions/${id}/public`),
    (page) => page.body.data.attempt_in_progress === false,
  );
  const paid = await attempt('+250788000001');
  await eventually(
    () => call(`/v1/checkout/sessions/${id}`, { key: dev.key }),
    (read) => read.body.data.status === 'complete',
  );
  return { id, attempts: [paid, declined] };
}

describe('branding and checkout sessions in the dashboard (docs/branding.md, docs/checkout.md)', function () {
  this.timeout(240_000);
  let owner: TestDeveloper;
  before(async () => {
    owner = await registerDeveloper();
  });
  after(closeBrowser);

  for (const [device, width] of Object.entries(WIDTHS)) {
    it(`sets the name, colour and logo with a live preview, at ${width} px`, async () => {
      await call('/v1/developer/branding', { method: 'PUT', key: owner.key, body: { display_name: null } });
      const { page, context, pageErrors } = await newPage();
      await page.setViewportSize({ width, height: 844 });
      await signIn(page, owner);
      await page.goto('/dashboard/sandbox/branding');
      await page.getByRole('heading', { level: 1, name: 'Branding' }).waitFor();

      await page.getByLabel('Display name').fill('Kigali Crafts');
      await page.getByLabel('Brand colour as #rrggbb').fill('#ffd400');
      expect(await buttonColours(page)).to.deep.equal({ background: 'rgb(255, 212, 0)', color: 'rgb(0, 0, 0)' });
      expect(await page.getByTestId('brand-contrast').textContent()).to.include('black');
      await page.getByLabel('Brand colour as #rrggbb').fill('#0b6e4f');
      expect(await buttonColours(page)).to.deep.equal({ background: 'rgb(11, 110, 79)', color: 'rgb(255, 255, 255)' });
      expect(await page.getByTestId('brand-preview').textContent()).to.include('Kigali Crafts');
      await page.getByLabel('Brand colour as #rrggbb').fill('green');
      expect(await page.getByRole('button', { name: 'Save' }).isDisabled()).to.equal(true);
      await page.getByLabel('Brand colour as #rrggbb').fill('#0b6e4f');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved.').waitFor();
      const saved = await call('/v1/developer/branding', { key: owner.key });
      expect(saved.body.data).to.include({
        display_name: 'Kigali Crafts',
        brand_color: '#0b6e4f',
        text_color: '#ffffff',
      });

      // An HTML page called logo.png is refused by its bytes, and nothing is stored.
      await page.getByLabel('Choose a PNG, JPEG or SVG (at most 512 kB)').setInputFiles({
        name: 'logo.png',
        mimeType: 'image/png',
        buffer: Buffer.from('<!DOCTYPE html><html><body>not an image</body></html>'),
      });
      await page.getByRole('button', { name: 'Upload logo' }).click();
      const refusal = page.getByRole('alert').filter({ hasText: 'PNG, JPEG or SVG' });
      await refusal.waitFor();
      expect(await refusal.textContent())
        .to.include('400 unsupported_file_type')
        .and.include('logo');
      expect((await call('/v1/developer/branding', { key: owner.key })).body.data.logo).to.equal(null);

      await page.getByLabel('Choose a PNG, JPEG or SVG (at most 512 kB)').setInputFiles({
        name: 'logo.svg',
        mimeType: 'image/svg+xml',
        buffer: SVG_LOGO,
      });
      await page.getByRole('button', { name: 'Upload logo' }).click();
      await page.getByText('Logo uploaded.').waitFor();
      await page.getByTestId('logo-facts').getByText('image/svg+xml').waitFor();
      await page.locator('.brand-preview-logo').waitFor();
      expect(await page.locator('.brand-preview-logo').getAttribute('src')).to.match(/^blob:/);
      await checkScreen(page, `${device}-branding`);

      await page.getByRole('button', { name: 'Remove logo' }).click();
      await page.getByText('No logo yet').waitFor();
      expect((await call('/v1/developer/branding', { key: owner.key })).body.data.logo).to.equal(null);
      expect(pageErrors).to.deep.equal([]);
      await context.close();
    });
  }

  it('shows a viewer the branding without the means to change it', async () => {
    const viewer = await addMember(owner, 'viewer');
    const { page, context } = await newPage();
    await page.setViewportSize({ width: WIDTHS.phone, height: 844 });
    await signIn(page, viewer);
    await page.goto('/dashboard/sandbox/branding');
    await page.getByText('Only owners and admins can change the branding').waitFor();
    expect(await page.getByLabel('Display name').isDisabled()).to.equal(true);
    expect(await page.getByRole('button', { name: 'Save' }).count()).to.equal(0);
    expect(await page.getByRole('button', { name: 'Upload logo' }).count()).to.equal(0);
    await checkScreen(page, 'phone-branding-viewer');
    await context.close();
  });

  for (const [device, width] of Object.entries(WIDTHS)) {
    it(`lists checkout sessions with their attempts, at ${width} px`, async () => {
      const dev = await registerDeveloper();
      const session = await paidSession(dev);
      const { page, context, pageErrors } = await newPage();
      await page.setViewportSize({ width, height: 844 });
      await signIn(page, dev);
      await page.goto('/dashboard/sandbox/checkout-sessions');
      await page.getByRole('heading', { level: 1, name: 'Checkout sessions' }).waitFor();
      const table = page.getByTestId('checkout-sessions-table');
      await table.getByText(session.id).waitFor();
      const row = table.locator('tr', { hasText: session.id });
      const text = (await row.textContent()) ?? '';
      expect(text).to.include('complete');
      expect(text).to.match(/4,500 RWF/);
      expect(text).to.include('Two baskets');
      await row.getByRole('button', { name: `Show the attempts of ${session.id}` }).click();
      const attempts = page.getByTestId('attempts-table');
      await attempts.getByText(session.attempts[0] as string).waitFor();
      const rows = await attempts.locator('tbody tr').allTextContents();
      expect(rows).to.have.length(2);
      expect(rows[0]).to.include(session.attempts[0]).and.include('completed');
      expect(rows[1]).to.include(session.attempts[1]).and.include('failed');
      expect(page.url()).to.include(`session=${session.id}`);
      await checkScreen(page, `${device}-checkout-sessions`);

      // On a phone the status filter waits behind "Filter"; once chosen it shows as a chip.
      const toggle = page.getByRole('button', { name: 'Filter', exact: true });
      if (await toggle.isVisible()) await toggle.click();
      await page.locator('#cs-status').selectOption('open');
      await table.getByText('No checkout sessions yet.').waitFor();
      await page.getByRole('button', { name: 'Remove filter Status: open' }).waitFor();
      expect(pageErrors).to.deep.equal([]);
      await context.close();
    });
  }
});
