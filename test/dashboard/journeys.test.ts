/**
 * The merchant dashboard (README.md#dashboard) in a real browser against the real stack: one journey per screen,
 * as a merchant goes through it, and bad input in the forms showing the API's own message while
 * nothing changes. Each journey leaves screenshots of its screens in var/screenshots/.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { call, registerDeveloper, waitForPayment } from '../helpers/http';
import { runAdminProcess, VALID_REQUEST } from '../helpers/live-access-api';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { getStack } from '../helpers/stack';
import { PDF_BYTES, PNG_BYTES } from '../helpers/uploads';
import { axeFindings, closeBrowser, eventually, newPage, screenshot, signIn } from './browser';

const INSTANT = {
  amount: 1500,
  currency: 'RWF',
  payment_method: 'mobile_money',
  phone_number: '+250788000001',
  description: 'Basket order 17',
};
const DECLINED = { ...INSTANT, phone_number: '+250788000002', description: 'Declined order' };

async function completedPayment(key: string, body: object = INSTANT): Promise<any> {
  const created = await call('/v1/payments', { key, body });
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  return waitForPayment(key, created.body.data.id, (p) => p.status === 'completed' || p.status === 'failed');
}

/** Every form control of the screen has a label (its own `<label>` or an aria-label). */
async function expectLabelled(page: Page): Promise<void> {
  // Runs in the page (the test's own TypeScript has no DOM types).
  const unlabelled = await page.evaluate(() =>
    [...(globalThis as any).document.querySelectorAll('input, select, textarea')]
      .filter(
        (el: any) =>
          el.type !== 'hidden' &&
          !el.labels?.length &&
          !el.getAttribute('aria-label') &&
          !el.getAttribute('aria-labelledby'),
      )
      .map((el: any) => String(el.outerHTML)),
  );
  expect(unlabelled, 'form controls without a label').to.deep.equal([]);
}

/** The text of the API error box once it shows. */
async function apiError(page: Page, scope: Page | ReturnType<Page['locator']> = page): Promise<string> {
  const box = scope.getByTestId('api-error').first();
  await box.waitFor();
  return (await box.textContent()) ?? '';
}

describe('merchant dashboard in a browser (README.md#dashboard)', function () {
  this.timeout(180_000);
  let receiver: Receiver;

  before(async () => {
    await getStack();
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
    await closeBrowser();
  });

  it('signs up, sees a sandbox payment made through the API, refunds half, and sees the refund and its refund.completed delivery on the timeline', async () => {
    const { context, page, pageErrors } = await newPage();
    const email = `dash-${randomBytes(5).toString('hex')}@example.com`;
    await page.goto('/dashboard/');
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.getByRole('link', { name: 'Sign up' }).click();
    await page.getByLabel('Your name').fill('Ama Mensah');
    await page.getByLabel('Business name (optional)').fill('Kigali Crafts');
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill('correct horse battery');
    await expectLabelled(page);
    await screenshot(page, 'sign-up');
    await page.getByRole('button', { name: 'Sign up' }).click();
    const key = await page.getByLabel('Sandbox secret key').inputValue();
    expect(key).to.match(/^sk_sandbox_[A-Za-z0-9]{32}$/);
    await page.getByRole('button', { name: 'Continue to the dashboard' }).click();
    await page.getByText('No payments match these filters.').waitFor();

    // A webhook endpoint for refunds and a payment, both through the API with the key shown once.
    const hook = await call('/v1/developer/webhooks', {
      key,
      body: { url: `${receiver.origin}/refunds`, events: ['refund.completed'] },
    });
    expect(hook.status).to.equal(201);
    const payment = await completedPayment(key);
    const other = await completedPayment(key, {
      ...INSTANT,
      amount: 2500,
      currency: 'KES',
      phone_number: '+254700000001',
      description: 'Tea',
    });
    await page.reload();
    await page.getByRole('link', { name: payment.id }).waitFor();

    // Filters and search live in the URL; CSV export takes what they select.
    await page.getByLabel('Currency').selectOption('RWF');
    await page.getByLabel('Search').fill('basket');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/currency=RWF/);
    await page.getByRole('link', { name: other.id }).waitFor({ state: 'detached' });
    await page.getByRole('link', { name: payment.id }).waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    const csv = fs
      .readFileSync(await download.path(), 'utf8')
      .trim()
      .split('\r\n');
    expect(csv[0]).to.equal(
      'id,type,payment_id,created_at,status,payment_method,currency,amount,fee,net,amount_minor,customer,description',
    );
    expect(csv.slice(1).map((line) => line.split(',')[0])).to.deep.equal([payment.id]);
    await expectLabelled(page);
    await screenshot(page, 'payments');

    await page.getByRole('link', { name: payment.id }).click();
    await page.getByRole('heading', { level: 1, name: `Payment ${payment.id}` }).waitFor();
    await page.getByTestId('timeline-status').first().waitFor();
    expect(await page.getByTestId('timeline-status').first().textContent()).to.include(
      'source: created through the API',
    );

    // A confirmation dialog that Escape closes without refunding anything.
    await page.getByLabel(/^Amount in RWF/).fill('750');
    await page.getByRole('button', { name: 'Refund…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Refund this payment?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).to.include('Refund 750 RWF of 1,500 RWF');
    expect(await axeFindings(page), 'axe-core on the refund confirmation').to.deep.equal([]);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect((await call(`/v1/payments/${payment.id}`, { key })).body.data.amount_refunded).to.equal(0);

    await page.getByRole('button', { name: 'Refund…' }).click();
    await dialog.getByRole('button', { name: 'Refund' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /Refund ref_\w+ of 750 RWF: completed\./ })
      .waitFor();
    await page
      .getByTestId('timeline-refund')
      .filter({ hasText: /of 750 RWF completed$/ })
      .waitFor();
    // At its request the refund was pending, whatever it is now.
    expect(await page.getByTestId('timeline-refund').first().textContent()).to.match(/of 750 RWF requested pending$/);
    const delivered = page
      .getByTestId('timeline-event')
      .filter({ hasText: 'refund.completed' })
      .getByTestId('timeline-delivery');
    const deliveryText = await eventually(
      () => delivered.first().textContent(),
      (text) => Boolean(text?.includes('succeeded') && text.includes('Attempt 1')),
    );
    expect(deliveryText).to.include(hook.body.data.id).and.include('204');
    expect(await page.getByTestId('amount-refunded').textContent()).to.equal('750 RWF');
    // The provider's receipt number (the sandbox's simulated one), as the payment holds it.
    const { provider_receipt_number: receipt } = (await call(`/v1/payments/${payment.id}`, { key })).body.data;
    expect(receipt).to.match(/^SBX[0-9A-F]{7}$/);
    expect(await page.getByTestId('provider-receipt-number').textContent()).to.equal(receipt);
    await expectLabelled(page);
    await screenshot(page, 'payment-detail');

    // Bad input: more than the refundable rest. The API's message shows; nothing is refunded.
    await page.getByLabel(/^Amount in RWF/).fill('751');
    await page.getByRole('button', { name: 'Refund…' }).click();
    await dialog.getByRole('button', { name: 'Refund' }).click();
    const refused = await apiError(page);
    expect(refused).to.include('400 amount_exceeds_refundable');
    await screenshot(page, 'payment-refund-refused');
    expect((await call(`/v1/payments/${payment.id}`, { key })).body.data.amount_refunded).to.equal(750);
    expect(await page.getByTestId('amount-refunded').textContent()).to.equal('750 RWF');
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });

  it('registers a webhook endpoint, sees a delivery with its attempt, resends it, tests, rotates the secret, disables, edits and deletes it', async () => {
    const developer = await registerDeveloper();
    const { context, page, pageErrors } = await newPage();
    await signIn(page, developer);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByText('No webhook endpoint yet.').waitFor();
    await page.getByLabel('URL').fill(`${receiver.origin}/shop`);
    await page.getByLabel('Description (optional)').fill('Shop backend');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = await page.getByLabel('Signing secret').inputValue();
    expect(secret).to.match(/^whsec_/);
    await expectLabelled(page);
    await screenshot(page, 'webhooks');

    const received = receiver.requests.length;
    const payment = await completedPayment(developer.key);
    await page.getByRole('link', { name: `${receiver.origin}/shop` }).click();
    await page.getByRole('heading', { level: 1, name: /^Webhook whk_/ }).waitFor();
    const first = page.getByTestId('delivery').filter({ hasText: 'payment.completed' }).first();
    await eventually(
      () => first.textContent(),
      (text) => Boolean(text?.includes('succeeded')),
    );
    expect(await first.locator('tbody tr').first().textContent()).to.include('204');
    const deliveryId = await first.getAttribute('data-delivery-id');

    await page.getByRole('button', { name: `Resend delivery ${deliveryId}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /Resent as delivery/ })
      .waitFor();
    const resent = page.getByTestId('delivery').filter({ hasText: `resend of ${deliveryId}` });
    await eventually(
      () => resent.textContent(),
      (text) => Boolean(text?.includes('succeeded')),
    );
    await receiver.waitFor(received + 2);
    const bodies = receiver.requests
      .slice(received)
      .map((request) => JSON.parse(request.body) as { data?: { id?: string } });
    expect(bodies.every((body) => body.data?.id === payment.id)).to.equal(true);

    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByRole('status').filter({ hasText: 'Test event delivered: 204' }).waitFor();

    await page.getByRole('button', { name: 'Rotate secret…' }).click();
    await page
      .getByRole('dialog', { name: 'Rotate the signing secret?' })
      .getByRole('button', { name: 'Rotate secret' })
      .click();
    const rotated = await page.getByLabel('New signing secret').inputValue();
    expect(rotated)
      .to.match(/^whsec_/)
      .and.not.equal(secret);

    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('status').filter({ hasText: 'the endpoint is disabled' }).waitFor();
    const listed = await call('/v1/developer/webhooks', { key: developer.key });
    expect(listed.body.data.webhooks.map((w: any) => w.status)).to.deep.equal(['disabled']);
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByRole('status').filter({ hasText: 'the endpoint is enabled' }).waitFor();
    await page.getByLabel('Description', { exact: true }).fill('Shop backend (orders)');
    await page.getByLabel('payment.created').check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const edited = await eventually(
      async () => (await call('/v1/developer/webhooks', { key: developer.key })).body.data.webhooks[0],
      (webhook) => webhook.description === 'Shop backend (orders)',
    );
    expect(edited).to.include({ description: 'Shop backend (orders)' });
    expect(edited.events).to.include('payment.created');
    await expectLabelled(page);
    await screenshot(page, 'webhook-detail');

    await page.getByRole('button', { name: 'Delete…' }).click();
    await page
      .getByRole('dialog', { name: 'Delete this endpoint?' })
      .getByRole('button', { name: 'Delete endpoint' })
      .click();
    await page.getByText('No webhook endpoint yet.').waitFor();
    expect((await call('/v1/developer/webhooks', { key: developer.key })).body.data.webhooks).to.deep.equal([]);
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });

  for (const [device, width] of Object.entries({ phone: 390, desktop: 1280 })) {
    it(`rolls the sandbox keys with a grace period after asking, and shows the new key once, which works at once (${device})`, async () => {
      const developer = await registerDeveloper();
      const { context, page, pageErrors } = await newPage();
      await page.setViewportSize({ width, height: 844 });
      await signIn(page, developer);
      await page.goto('/dashboard/sandbox/keys');
      const table = page.getByTestId('keys-table');
      await table.getByText(`sk_sandbox_…${developer.key.slice(-4)}`).waitFor();
      await page.getByLabel(/^Grace period/).fill('24');
      await page.getByRole('button', { name: 'Roll keys…' }).click();
      const confirmation = page.getByRole('dialog', { name: 'Roll the sandbox keys?' });
      await confirmation.waitFor();
      expect(await axeFindings(page), 'axe-core on the confirmation').to.deep.equal([]);
      await screenshot(page, `${device}-keys-roll-confirmation`);
      await confirmation.getByRole('button', { name: 'Roll keys' }).click();
      const newKey = await page.getByLabel('New sandbox secret key').inputValue();
      expect(newKey)
        .to.match(/^sk_sandbox_/)
        .and.not.equal(developer.key);
      await table.getByText(`sk_sandbox_…${newKey.slice(-4)}`).waitFor();
      await table.getByText('expiring').waitFor();
      expect((await call('/v1/developer/profile', { key: newKey })).status).to.equal(200);
      expect((await call('/v1/developer/profile', { key: developer.key })).status).to.equal(200);
      await expectLabelled(page);
      await screenshot(page, width === 1280 ? 'keys' : `${device}-keys`);
      expect(pageErrors).to.deep.equal([]);
      await context.close();
    });
  }

  it('uploads documents, requests live access, answers the reviewer, is approved by the admin command and sees the live switch', async () => {
    const developer = await registerDeveloper();
    const { context, page, pageErrors } = await newPage();
    await signIn(page, developer);
    expect(await page.getByTestId('env-switch').count()).to.equal(0);
    await page.getByRole('link', { name: 'Go live' }).click();
    await page.getByRole('heading', { level: 1, name: 'Go live' }).waitFor();

    // Bad input: a 12 MB file. The API's 413 shows; nothing is stored.
    const identity = page.getByTestId('upload-kyc');
    await identity.getByLabel('Document type').selectOption('passport');
    const big = Buffer.concat([PDF_BYTES, Buffer.alloc(12 * 1024 * 1024 - PDF_BYTES.length, 0x20)]);
    await identity
      .getByLabel(/^File/)
      .setInputFiles({ name: 'passport-scan.pdf', mimeType: 'application/pdf', buffer: big });
    await identity.getByRole('button', { name: 'Upload' }).click();
    expect(await apiError(page, identity)).to.include('413 file_too_large');
    await screenshot(page, 'go-live-upload-refused');
    expect(
      (await call('/v1/documents', { headers: { authorization: `Bearer ${developer.token}` } })).body.data.documents,
    ).to.deep.equal([]);

    await identity
      .getByLabel(/^File/)
      .setInputFiles({ name: 'passport.pdf', mimeType: 'application/pdf', buffer: PDF_BYTES });
    await identity.getByRole('button', { name: 'Upload' }).click();
    await identity.getByRole('status').filter({ hasText: 'passport.pdf uploaded as passport' }).waitFor();
    const business = page.getByTestId('upload-business');
    await business
      .getByLabel(/^File/)
      .setInputFiles({ name: 'registration.png', mimeType: 'image/png', buffer: PNG_BYTES });
    await business.getByRole('button', { name: 'Upload' }).click();
    await business
      .getByRole('status')
      .filter({ hasText: 'registration.png uploaded as business_registration' })
      .waitFor();
    const checklist = page.getByTestId('checklist');
    await checklist.getByText(/Identity document.*uploaded/).waitFor();
    await checklist.getByText(/Business registration certificate: uploaded/).waitFor();

    await page.getByLabel('Business name').fill(VALID_REQUEST.business_name);
    await page.getByLabel('Business type').selectOption(VALID_REQUEST.business_type);
    await page.getByLabel('Website').fill(VALID_REQUEST.business_website);
    await page.getByLabel('Expected monthly volume').fill(String(VALID_REQUEST.expected_monthly_volume));
    await page.getByLabel(/^What will you collect/).fill(VALID_REQUEST.use_case);
    await page.getByLabel('I acknowledge the compliance terms').check();
    await expectLabelled(page);
    await page.getByRole('button', { name: 'Send the request' }).click();
    const status = page.getByTestId('request-status');
    await status.getByText('under review').waitFor();
    const requestId = (await status.locator('dd.mono').textContent()) ?? '';
    expect(requestId).to.match(/^req_/);

    // The reviewer asks a question; the page follows the review and shows it, and the answer goes back.
    const asked = await runAdminProcess([
      'live-access',
      'request-info',
      requestId,
      '--message',
      'Please tell us which countries you sell to.',
      '--reviewer',
      'ann',
    ]);
    expect(asked.code, asked.stderr).to.equal(0);
    await page
      .getByTestId('reviewer-message')
      .filter({ hasText: 'Please tell us which countries you sell to.' })
      .waitFor({ timeout: 30_000 });
    await page.getByLabel('Your answer').fill('Rwanda and Kenya, online only.');
    await page.getByRole('button', { name: 'Send the answer' }).click();
    await status.getByText('under review').waitFor();
    await screenshot(page, 'go-live');

    const approved = await runAdminProcess(['live-access', 'approve', requestId, '--reviewer', 'ann']);
    expect(approved.code, approved.stderr).to.equal(0);
    const liveSwitch = page.getByTestId('env-switch');
    await liveSwitch.waitFor({ timeout: 30_000 });
    await screenshot(page, 'go-live-approved');
    await liveSwitch.getByRole('link', { name: 'Live' }).click();
    await page.waitForURL(/\/dashboard\/live\/go-live$/);

    // Live: the first live key, once; then bad input, a plain-http live webhook URL.
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('button', { name: 'Reveal the first live key' }).click();
    expect(await page.getByLabel('Live secret key').inputValue()).to.match(/^sk_live_/);
    await screenshot(page, 'keys-live');
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL(/\/dashboard\/live\/webhooks$/);
    await page.getByLabel('URL').fill('http://shop.example.com/hooks');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    expect(await apiError(page))
      .to.include('400 validation_error')
      .and.include('url must use https in live mode');
    await page.getByText('No webhook endpoint yet.').waitFor();
    await screenshot(page, 'webhooks-live-refused');
    const live = await call('/v1/developer/webhooks?environment=live', {
      headers: { authorization: `Bearer ${developer.token}` },
    });
    expect(live.body.data.webhooks).to.deep.equal([]);
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });

  it("shows analytics of one currency at a time, the activity log and the profile; a bad phone number shows the API's message", async () => {
    const developer = await registerDeveloper();
    await completedPayment(developer.key);
    const declined = await completedPayment(developer.key, DECLINED);
    // A completed M-Pesa payment in KES: never counted with the RWF ones.
    await completedPayment(developer.key, {
      amount: 150_000,
      currency: 'KES',
      payment_method: 'mobile_money',
      phone_number: '+254712000001',
    });
    const { context, page, pageErrors } = await newPage();
    await signIn(page, developer);

    // The declined payment moved no money: its CSV row has fee 0 and net 0 (docs/limits.md#lists).
    await page.getByLabel('Status').selectOption('failed');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/status=failed/);
    await page.getByRole('link', { name: declined.id }).waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV' }).click(),
    ]);
    const [header = '', ...lines] = fs
      .readFileSync(await download.path(), 'utf8')
      .trim()
      .split('\r\n');
    expect(lines).to.have.length(1);
    const cells = (lines[0] as string).split(',');
    expect(Object.fromEntries(header.split(',').map((name, index) => [name, cells[index]]))).to.include({
      id: declined.id,
      status: 'failed',
      amount: '1500',
      fee: '0',
      net: '0',
    });

    await page.getByRole('link', { name: 'Analytics' }).click();
    // One currency at a time, chosen among the balance's (docs/limits.md#lists): the first by code, then RWF.
    await page.getByTestId('chart-KES').waitFor();
    const currency = page.getByLabel('Currency', { exact: true });
    expect(await currency.locator('option').allTextContents()).to.deep.equal(['KES', 'RWF']);
    expect(await page.getByTestId('success-rate').textContent()).to.equal('100.0 %');
    expect(await page.getByTestId('chart-RWF').count()).to.equal(0);
    await currency.selectOption('RWF');
    await page.waitForURL(/currency=RWF/);
    await page.getByTestId('chart-RWF').waitFor();
    expect(await page.getByTestId('chart-KES').count()).to.equal(0);
    expect(await page.getByTestId('success-rate').textContent()).to.equal('50.0 %');
    expect(await page.getByTestId('by-method').locator('table').textContent()).to.include('Mobile money2');
    expect(await page.getByTestId('by-status').locator('table').textContent())
      .to.include('completed1')
      .and.include('failed1');
    await page.getByTestId('chart-RWF').locator('svg.recharts-surface').first().waitFor();
    await expectLabelled(page);
    await screenshot(page, 'analytics');

    await page.getByRole('link', { name: 'Activity' }).click();
    await page.getByTestId('activity-table').getByText('payment.created').first().waitFor();
    await screenshot(page, 'activity');

    await page.getByRole('link', { name: 'Profile' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Kwame Boateng');
    await page.getByLabel(/^Phone/).fill('12');
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await apiError(page))
      .to.include('400 validation_error')
      .and.include('phone must be a valid international (E.164) number');
    expect((await call('/v1/developer/profile', { key: developer.key })).body.data.name).to.equal('Test Developer');
    await page.getByLabel(/^Phone/).fill('+250788123456');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.locator('.who').getByText('Kwame Boateng').waitFor();
    await expectLabelled(page);
    await screenshot(page, 'profile');
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });

  it("signs out; a wrong password shows the API's message; an expired session sends you to sign in and back", async () => {
    const developer = await registerDeveloper();
    const { context, page, pageErrors } = await newPage();
    await signIn(page, developer);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem('paycollect.session'))).to.equal(null);

    // Bad input: a wrong password. Keyboard only: Tab from the heading to the fields, Enter submits.
    await page.getByLabel('E-mail').focus();
    await page.keyboard.type(developer.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type('not the password');
    await page.keyboard.press('Enter');
    expect(await apiError(page)).to.include('401 unauthorized');
    await expectLabelled(page);
    await screenshot(page, 'sign-in-refused');
    expect(new URL(page.url()).pathname).to.equal('/dashboard/sign-in');

    // A token the API no longer takes: the next screen sends you to sign in, then back there.
    await page.evaluate(() =>
      (globalThis as any).sessionStorage.setItem(
        'paycollect.session',
        JSON.stringify({
          token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJub2JvZHkifQ.x',
          expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
        }),
      ),
    );
    await page.goto('/dashboard/sandbox/activity');
    await page.getByText('Your session has ended. Sign in again to go on.').waitFor();
    await page.getByLabel('E-mail').fill(developer.email);
    await page.getByLabel('Password').fill(developer.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Activity' }).waitFor();
    expect(new URL(page.url()).pathname).to.equal('/dashboard/sandbox/activity');
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });
});
