/**
 * Payment links in the dashboard, in a real browser at a phone's width (390 × 844) against the real stack
 * (docs/payment-links.md): a link with a fixed amount and a limit and one whose customer chooses the amount created
 * from the form, a bad range refused naming the field, the address copied, the WhatsApp share link, the QR code
 * downloaded as a PNG that decodes to the link's address, and the link deactivated (its address then shows a closed
 * page). The screen's layout and accessibility at 390 px are checked with every screen (every-screen.test.ts).
 */
import fs from 'node:fs';
import { expect } from 'chai';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { call, registerDeveloper } from '../helpers/http';
import { closeBrowser, eventually, newPage, screenshot, signIn } from './browser';

describe('payment links in the dashboard (docs/payment-links.md)', function () {
  this.timeout(180_000);

  after(closeBrowser);

  it('creates, shares, downloads the QR code of and deactivates a link on a 390 px phone', async () => {
    const developer = await registerDeveloper();
    const { page, context, pageErrors, baseUrl } = await newPage();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, developer);
    await page.goto('/dashboard/sandbox/payment-links');
    await page.getByRole('heading', { level: 1, name: 'Payment links' }).waitFor();
    await page.getByText('No payment link yet.').waitFor();

    await page.getByLabel('What the customer pays for').fill('Kitenge dress, size M');
    await page.getByLabel('Amount (RWF)').fill('15,000');
    await page.getByLabel('Most payments (optional)').fill('20');
    await page.getByLabel('After payment').selectOption('message');
    await page.getByLabel('Message').fill('Murakoze! We deliver tomorrow.');
    await page.getByRole('button', { name: 'Create link' }).click();
    const card = page.getByTestId('payment-link').filter({ hasText: 'Kitenge dress, size M' });
    await card.waitFor();
    expect(await card.textContent())
      .to.include('15,000 RWF')
      .and.include('0 of 20 paid');

    // A range the API refuses: the field is named, nothing is created.
    await page.getByLabel('What the customer pays for').fill('Library donation');
    await page.getByLabel('The customer chooses').check();
    await page.getByLabel('Minimum (RWF)').fill('5000');
    await page.getByLabel('Maximum (RWF)').fill('1000');
    await page.getByRole('button', { name: 'Create link' }).click();
    expect(await page.getByTestId('api-error').textContent()).to.include('amount_range.max');
    await page.getByLabel('Maximum (RWF)').fill('50000');
    await page.getByLabel('E-mail').check();
    await page.getByRole('button', { name: 'Create link' }).click();
    const donation = page.getByTestId('payment-link').filter({ hasText: 'Library donation' });
    await donation.waitFor();
    expect(await donation.textContent()).to.include('5,000 RWF – 50,000 RWF, the customer chooses');

    const listed = (await call('/v1/payment_links', { key: developer.key })).body.data.payment_links;
    expect(listed).to.have.length(2);
    const dress = listed.find((l: any) => l.description === 'Kitenge dress, size M');
    expect(dress).to.include({ amount: 15_000, completed_limit: 20, active: true });
    expect(dress.after_completion).to.deep.equal({ type: 'message', message: 'Murakoze! We deliver tomorrow.' });
    expect(listed.find((l: any) => l.description === 'Library donation').collect).to.deep.equal(['email']);

    await card.getByRole('button', { name: 'Copy link' }).click();
    await card.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText() as Promise<string>)).to.equal(
      dress.url,
    );
    const share = await card.getByRole('link', { name: 'Share on WhatsApp' }).getAttribute('href');
    expect(share).to.equal(`https://wa.me/?text=${encodeURIComponent(`Kitenge dress, size M: ${dress.url}`)}`);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      card.getByRole('button', { name: 'QR code (PNG)' }).click(),
    ]);
    expect(download.suggestedFilename()).to.equal(`${dress.id}.png`);
    const png = PNG.sync.read(fs.readFileSync(await download.path()));
    expect([png.width, png.height]).to.deep.equal([512, 512]);
    expect(jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data).to.equal(dress.url);
    const [svg] = await Promise.all([
      page.waitForEvent('download'),
      card.getByRole('button', { name: 'QR code (SVG)' }).click(),
    ]);
    expect(fs.readFileSync(await svg.path(), 'utf8')).to.match(/^<svg/);
    await screenshot(page, 'phone-payment-links-created');

    await card.getByRole('button', { name: 'Deactivate' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Deactivate' }).click();
    await card.getByText('inactive').waitFor();
    const after = await eventually(
      () => call(`/v1/payment_links/${dress.id}`, { key: developer.key }),
      (r) => r.body.data.active === false,
    );
    expect(after.body.data.active).to.equal(false);
    const closed = await fetch(`${baseUrl}/l/${dress.id}`, { redirect: 'manual' });
    expect(closed.status).to.equal(410);
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });
});
