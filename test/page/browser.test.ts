/**
 * The hosted payment page in a real browser on a phone (docs/hosted-page.md): Debian's Chromium at 390 × 844 against
 * the test stack, with JavaScript on and off. The first visit transfers at most {@link FIRST_VISIT_BUDGET_BYTES}
 * compressed (counted by Chromium itself); no screen scrolls sideways; axe-core finds nothing serious or critical on
 * any screen (form, waiting, receipt, failure, expired, not found); the browser reports no script error and no
 * Content-Security-Policy violation; and the whole mobile-money flow works both ways: a success (with the redirect to
 * `success_url` 5 s after the receipt), a decline then a success, and a session that expires under the payer. The time
 * until the amount and the phone field show at 400 kbit/s and 400 ms is printed (a figure, not asserted).
 */
import { AxeBuilder } from '@axe-core/playwright';
import { expect } from 'chai';
import type { BrowserContext, Page } from 'playwright-core';
import { call } from '../helpers/http';
import { getStack } from '../helpers/stack';
import { closeBrowser, countTransfers, getBrowser } from '../dashboard/browser';
import { formatMoney } from '../../src/page/i18n';
import { createSession, merchantOfSuite, SESSION } from './fixtures';

/** At most this many bytes (compressed, headers included) go over the wire on the first visit, logo aside. */
const FIRST_VISIT_BUDGET_BYTES = 60 * 1024;

const PHONE = { width: 390, height: 844 } as const;

const SUCCESS_URL = SESSION.success_url;

/** A number the sandbox prompts and then approves after 3 s (docs/payments.md#sandbox-scenarios), so the wait shows. */
const APPROVES_LATER = '0788 000 009';
const DECLINED = '0788 000 002';

interface Visit {
  context: BrowserContext;
  page: Page;
  /** Uncaught script errors and the console's errors (a CSP violation is one). */
  problems: string[];
}

/** A fresh phone-sized browser context with JavaScript on or off; `success_url` answers with a plain page. */
async function open(javaScriptEnabled: boolean): Promise<Visit> {
  const { baseUrl } = await getStack();
  const context = await (
    await getBrowser()
  ).newContext({ baseURL: baseUrl, viewport: PHONE, javaScriptEnabled, locale: 'en-US' });
  context.setDefaultTimeout(30_000);
  await context.route(`${SUCCESS_URL}**`, (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Paid</title><h1>Thanks</h1>' }),
  );
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`script error: ${error.message}`));
  page.on('console', (message) => {
    // The session's event stream is another part's (docs/checkout.md); where it is missing the page polls instead.
    if (message.type() === 'error' && !message.location().url.endsWith('/events'))
      problems.push(`console: ${message.text()}`);
  });
  return { context, page, problems };
}

/** The screen fits the phone: nothing scrolls sideways. */
async function expectNoSidewaysScroll(page: Page, screen: string): Promise<void> {
  const overflow = await page.evaluate(() => {
    const root = (globalThis as any).document.documentElement;
    return (root.scrollWidth as number) - (root.clientWidth as number);
  });
  expect(overflow, `${screen} scrolls sideways by ${overflow} px`).to.be.at.most(0);
}

/** axe-core's serious and critical findings on the screen showing (WCAG 2.1 A and AA, best practices). */
async function expectAxeClean(page: Page, screen: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((node) => node.target.join(' ')).join(' | ')}`);
  expect(serious, `${screen}: axe-core`).to.deep.equal([]);
}

/**
 * Checks the screen that shows: fits the phone, axe-clean. With JavaScript off axe-core cannot run in the page (its
 * timers never fire), so the page's HTML as the browser holds it is checked in a page of its own with scripts on, the
 * scriptless parts (`<noscript>`) unwrapped so they are checked too. Only the scriptless wait screen's own refresh is
 * left out: it refreshes itself every 3 s by design (docs/hosted-page.md#what-the-payer-sees), which axe-core's
 * `meta-refresh` rule would report.
 */
async function checkScreen(visit: Visit, screen: string, javaScript: boolean): Promise<void> {
  await visit.page.waitForLoadState('load');
  if (javaScript) {
    await expectNoSidewaysScroll(visit.page, screen);
    await expectAxeClean(visit.page, screen);
    return;
  }
  const html = (await visit.page.content())
    .replace(/<noscript><meta http-equiv="refresh"[^>]*><\/noscript>/g, '')
    .replace(/<\/?noscript>/g, '');
  const checker = await (await getBrowser()).newContext({ viewport: PHONE });
  // Nothing loads in the checker (its script would only run where the payer has none).
  await checker.route('**/*', (route) => route.abort());
  const page = await checker.newPage();
  await page.setContent(html);
  await expectNoSidewaysScroll(page, screen);
  await expectAxeClean(page, screen);
  await checker.close();
}

/** Types `phone` into the form and pays. */
async function pay(page: Page, phone: string): Promise<void> {
  await page.getByLabel('Mobile money number').fill(phone);
  await page.getByRole('button', { name: /^Pay / }).click();
}

describe('the hosted payment page in a browser at 390 × 844 (docs/hosted-page.md)', function () {
  this.timeout(240_000);
  const merchant = merchantOfSuite();
  after(() => closeBrowser());

  it(`transfers at most ${FIRST_VISIT_BUDGET_BYTES / 1024} kB compressed on the first visit`, async () => {
    const { id } = await createSession(merchant());
    const { context, page, problems } = await open(true);
    const transferred = await countTransfers(await context.newCDPSession(page));
    await page.goto(`/pay/${id}`);
    await page.getByLabel('Mobile money number').waitFor();
    await page.waitForLoadState('networkidle');
    const { bytes, files } = transferred();
    console.log(`      first visit: ${(bytes / 1024).toFixed(1)} kB transferred\n        ${files.join('\n        ')}`);
    expect(
      files.some((file) => /\/pay\/assets\/pay-[0-9a-f]+\.js /.test(file)),
      'the script was loaded',
    ).to.equal(true);
    expect(bytes, files.join('\n')).to.be.at.most(FIRST_VISIT_BUDGET_BYTES);
    expect(problems).to.deep.equal([]);
    await context.close();
  });

  it('shows the amount and the phone field at 400 kbit/s and 400 ms round trip (the time is printed, not asserted)', async () => {
    const { id } = await createSession(merchant());
    const { context, page, problems } = await open(true);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 400,
      downloadThroughput: 400_000 / 8,
      uploadThroughput: 400_000 / 8,
    });
    const started = Date.now();
    await page.goto(`/pay/${id}`, { waitUntil: 'commit' });
    await page.getByLabel('Mobile money number').waitFor({ state: 'visible', timeout: 60_000 });
    await page.getByText('RWF', { exact: false }).first().waitFor({ state: 'visible' });
    console.log(`      amount and phone field at 400 kbit/s, 400 ms: ${((Date.now() - started) / 1000).toFixed(2)} s`);
    expect(problems).to.deep.equal([]);
    await context.close();
  });

  it('pays by the sandbox card form where the currency is one cards take (JavaScript on)', async () => {
    const { id } = await createSession(merchant(), { currency: 'USD', amount: 2_500 });
    const visit = await open(true);
    const { context, page, problems } = visit;
    await page.goto(`/pay/${id}`);
    await page.getByText('4242 4242 4242 4242', { exact: false }).waitFor();
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByLabel('Expiry month (MM)').fill('12');
    await page.getByLabel('Expiry year (YYYY)').fill('2030');
    await page.getByLabel('Security code (CVC)').fill('123');
    await checkScreen(visit, 'card form (JavaScript on)', true);
    await page.getByRole('button', { name: 'Pay $25.00' }).click();
    await page.getByRole('heading', { level: 1, name: 'Payment received' }).waitFor();
    const session = await call(`/v1/checkout/sessions/${id}`, { key: merchant().key });
    expect(session.body.data).to.include({ status: 'complete', attempts_count: 1 });
    expect(problems).to.deep.equal([]);
    await context.close();
  });

  it('pays a payment link with a chosen amount, a name and an email, ending on the merchant’s message (JavaScript on)', async () => {
    const link = await call('/v1/payment_links', {
      key: merchant().key,
      body: {
        amount_range: { min: 500, max: 50_000 },
        currency: 'RWF',
        description: 'Donation to the school library',
        collect: ['name', 'email'],
        after_completion: { type: 'message', message: 'Murakoze! The library thanks you.' },
      },
      headers: { 'idempotency-key': `browser-link-${Math.random()}` },
    });
    expect(link.status, JSON.stringify(link.body)).to.equal(201);
    const visit = await open(true);
    const { context, page, problems } = visit;
    // `/l/{id}` answers 303 to the session's page at the service's public address; here, the test server's.
    const { baseUrl } = await getStack();
    const opened = await fetch(`${baseUrl}/l/${link.body.data.id}`, { redirect: 'manual' });
    expect(opened.status).to.equal(303);
    await page.goto(new URL(opened.headers.get('location') as string).pathname);
    await page.getByRole('heading', { level: 1, name: 'Payment to Test Developer' }).waitFor();
    expect(await page.getByText('from RWF 500 to RWF 50,000').first().isVisible()).to.equal(true);
    await checkScreen(visit, 'link form (JavaScript on)', true);
    await page.getByLabel('Amount to pay (RWF)').fill('12ab');
    await page.getByLabel('Your name').fill('Aline Uwase');
    await page.getByLabel('Your email address').fill('aline@example.rw');
    await page.getByLabel('Mobile money number').fill('0788 000 001');
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.getByText('Enter an amount from RWF 500 to RWF 50,000', { exact: false }).waitFor();
    await checkScreen(visit, 'link form with an amount error (JavaScript on)', true);
    expect(await page.getByLabel('Your name').inputValue()).to.equal('Aline Uwase');
    await page.getByLabel('Amount to pay (RWF)').fill('2,500');
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Payment received' }).waitFor();
    expect(await page.locator('.receipt .amount').textContent()).to.equal(formatMoney('en', 2_500, 'RWF'));
    expect(await page.getByText('Murakoze! The library thanks you.').isVisible()).to.equal(true);
    await checkScreen(visit, 'link receipt with the merchant’s message (JavaScript on)', true);
    // No redirect: the receipt stays.
    const here = page.url();
    await page.waitForTimeout(5_500);
    expect(page.url()).to.equal(here);
    expect(problems.filter((p) => !/status of 400/.test(p))).to.deep.equal([]);
    await context.close();
  });

  for (const javaScript of [true, false]) {
    const how = javaScript ? 'JavaScript on' : 'JavaScript off';

    it(`pays by mobile money: form, wait, receipt, then success_url after 5 s (${how})`, async () => {
      const { id } = await createSession(merchant());
      const visit = await open(javaScript);
      const { context, page, problems } = visit;
      await page.goto(`/pay/${id}`);
      await page.getByRole('heading', { level: 1, name: 'Payment to Test Developer' }).waitFor();
      expect(await page.getByText('Sandbox: no real money moves.').isVisible()).to.equal(true);
      await checkScreen(visit, `form (${how})`, javaScript);
      if (javaScript) {
        // The operator is predicted as the number is typed, by name; the payer may change it.
        await page.getByLabel('Mobile money number').fill('0788');
        await page.getByText('This number is on MTN MoMo.', { exact: false }).waitFor();
        expect(await page.getByLabel('Operator').inputValue()).to.equal('momo');
        await page.getByLabel('Mobile money number').fill('0732');
        await page.getByText('This number is on Airtel Money.', { exact: false }).waitFor();
      }
      // The live status is held back until the wait screen is checked, so it does not move on under axe-core.
      let release = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      await context.route(/\/v1\/checkout\/sessions\/[^/]+\/(events|public)$/, async (route) => {
        await held;
        await route.continue().catch(() => undefined);
      });
      await pay(page, APPROVES_LATER);
      await page.getByRole('heading', { level: 1, name: 'Approve the payment on your phone' }).waitFor();
      expect(
        await page.getByText('MTN MoMo has sent a request to 0788 000 009', { exact: false }).isVisible(),
      ).to.equal(true);
      await checkScreen(visit, `waiting (${how})`, javaScript);
      release();
      await page.getByRole('heading', { level: 1, name: 'Payment received' }).waitFor();
      await checkScreen(visit, `receipt (${how})`, javaScript);
      const paymentId = page.url().match(/attempts\/(pay_[A-Za-z0-9]+)/)?.[1] as string;
      expect(await page.getByText(paymentId).isVisible()).to.equal(true);
      if (!javaScript) await page.getByRole('link', { name: 'Go back to Test Developer now' }).click();
      await page.waitForURL(SUCCESS_URL, { timeout: 15_000 });
      expect(problems).to.deep.equal([]);
      await context.close();
    });

    it(`says a decline in plain words, and "Try again" pays (${how})`, async () => {
      const { id } = await createSession(merchant());
      const visit = await open(javaScript);
      const { context, page, problems } = visit;
      await page.goto(`/pay/${id}`);
      await pay(page, DECLINED);
      await page.getByRole('heading', { level: 1, name: 'The payment did not go through' }).waitFor();
      expect(await page.getByText('The payment was declined on the phone.').isVisible()).to.equal(true);
      expect(await page.getByLabel('Mobile money number').inputValue()).to.equal('0788 000 002');
      await checkScreen(visit, `failure (${how})`, javaScript);
      await pay(page, '0788 000 001');
      await page.getByRole('heading', { level: 1, name: 'Payment received' }).waitFor();
      const session = await call(`/v1/checkout/sessions/${id}`, { key: merchant().key });
      expect(session.body.data).to.include({ status: 'complete', attempts_count: 2 });
      expect(problems).to.deep.equal([]);
      await context.close();
    });

    it(`shows a session that expired under the payer as expired (410), and an unknown page as not found (${how})`, async () => {
      const { id } = await createSession(merchant());
      const visit = await open(javaScript);
      const { context, page, problems } = visit;
      await page.goto(`/pay/${id}`);
      await page.getByLabel('Mobile money number').waitFor();
      const expired = await call(`/v1/checkout/sessions/${id}/expire`, { key: merchant().key, method: 'POST' });
      expect(expired.status).to.equal(200);
      await pay(page, '0788 000 001');
      await page.getByRole('heading', { level: 1, name: 'This payment page has expired' }).waitFor();
      await checkScreen(visit, `expired (${how})`, javaScript);
      const reloaded = await page.reload();
      expect(reloaded?.status()).to.equal(410);
      const unknown = await page.goto('/pay/cs_000000000000000000000000');
      expect(unknown?.status()).to.equal(404);
      await page.getByRole('heading', { level: 1, name: 'Payment page not found' }).waitFor();
      await checkScreen(visit, `not found (${how})`, javaScript);
      // The 404 and 410 are answers the page gives on purpose; Chromium logs each as a failed resource.
      expect(problems.filter((p) => !/status of 4(04|10)/.test(p))).to.deep.equal([]);
      const session = await call(`/v1/checkout/sessions/${id}`, { key: merchant().key });
      expect(session.body.data).to.include({ status: 'expired', attempts_count: 0 });
      await context.close();
    });
  }
});
