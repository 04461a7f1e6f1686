/**
 * The hosted page of a payment link's session over HTTP against the real stack (docs/hosted-page.md#chosen-amount,
 * docs/hosted-page.md#receipt), as a browser without JavaScript uses it: the amount field in major units as people
 * type them with the link's range in the locale's format, the collected name and email, each refused in plain words
 * naming the field with nothing started; the chosen amount carried in minor units and shown on the wait screen and
 * the receipt; the merchant's completion message (escaped) instead of a redirect; and the merchant's branding set over
 * the API. The ledger invariants hold after.
 */
import { expect } from 'chai';
import { call, type TestDeveloper } from '../helpers/http';
import { getStack } from '../helpers/stack';
import { PNG_BYTES } from '../helpers/uploads';
import { formatMoney } from '../../src/page/i18n';
import {
  attemptPath,
  createSession,
  expectSecurityHeaders,
  follow,
  merchantOfSuite,
  page,
  postForm,
  type PageAnswer,
} from './fixtures';

/** Creates a payment link of `dev` and opens it: the id of the session `/l/{id}` started. */
async function linkSession(dev: TestDeveloper, body: object): Promise<string> {
  const created = await call('/v1/payment_links', {
    key: dev.key,
    body,
    headers: { 'idempotency-key': `page-link-${Math.random()}` },
  });
  expect(created.status, JSON.stringify(created.body)).to.equal(201);
  const opened = await page(`/l/${created.body.data.id}`);
  expect(opened.status, opened.html).to.equal(303);
  return /\/pay\/(cs_[0-9A-Za-z]+)$/.exec((opened.headers as Headers).get('location') ?? '')?.[1] as string;
}

/** The payments a session started, amounts in minor units. */
async function paymentsOf(session: string): Promise<{ id: string; amount: number }[]> {
  const { db } = await getStack();
  const rows = await db('payments').where({ checkout_session: session }).select('id', 'amount');
  return rows.map((row: { id: string; amount: string }) => ({ id: row.id, amount: Number(row.amount) }));
}

const DONATION = {
  amount_range: { min: 500, max: 50_000 },
  currency: 'RWF',
  description: 'Donation to the school library',
  collect: ['name', 'email'],
  after_completion: { type: 'message', message: 'Murakoze <b>cyane</b> & see you soon!' },
};

const WHO = { name: 'Aline Uwase', email: 'aline@example.rw' };

function expectRefused(answer: PageAnswer, field: string, text: string): void {
  expect(answer.status, answer.html).to.equal(400);
  expect(answer.html).to.include(text);
  expect(answer.html).to.match(new RegExp(`id="${field}"[^>]*aria-invalid="true"`));
  expect(answer.html).to.include(`id="${field}-error"`);
  expectSecurityHeaders(answer);
}

describe('hosted payment page of a payment link (docs/hosted-page.md#chosen-amount)', function () {
  this.timeout(120_000);
  const merchant = merchantOfSuite();

  it('asks the amount in the link’s range, the name and the email, and never shows a zero amount', async () => {
    const id = await linkSession(merchant(), DONATION);
    const form = await page(`/pay/${id}`);
    expect(form.status).to.equal(200);
    expectSecurityHeaders(form);
    expect(form.html).to.match(/<label for="amount">Amount to pay \(RWF\)<\/label>/);
    expect(form.html).to.match(/<input id="amount" name="amount" type="text" inputmode="decimal"[^>]*required/);
    expect(form.html).to.include(`from ${formatMoney('en', 500, 'RWF')} to ${formatMoney('en', 50_000, 'RWF')}`);
    expect(form.html).to.match(
      /<label for="name">Your name<\/label><input id="name" name="name"[^>]*autocomplete="name"/,
    );
    expect(form.html).to.match(/<input id="email" name="email" type="email"[^>]*autocomplete="email" required/);
    expect(form.html).to.include('<button type="submit">Pay</button>');
    expect(form.html).to.not.include(formatMoney('en', 0, 'RWF'));
    // A link takes mobile money only: no card form to carry the amount and fields around.
    expect(form.html).to.not.include('data-card=');
    const french = await page(`/pay/${id}?lang=fr`);
    expect(french.html).to.include(`de ${formatMoney('fr', 500, 'RWF')} à ${formatMoney('fr', 50_000, 'RWF')}`);
  });

  it('refuses a malformed or out-of-range amount, a missing name and a bad email, naming the field, starting nothing', async () => {
    const id = await linkSession(merchant(), DONATION);
    const phone = '0788 000 001';
    for (const amount of ['', '12ab', '499', '50,001', '2500.5', '-600', '1e3', '2,50,0']) {
      const refused = await postForm(id, { phone, amount, ...WHO });
      expectRefused(refused, 'amount', `Enter an amount from ${formatMoney('en', 500, 'RWF')}`);
      // What the payer typed comes back to be corrected, the other fields too.
      expect(refused.html).to.include(`value="${amount}"`);
      expect(refused.html).to.include(`value="${WHO.name}"`);
    }
    expectRefused(await postForm(id, { phone, amount: '2,500', email: WHO.email }), 'name', 'Enter your name.');
    expectRefused(await postForm(id, { phone, amount: '2,500', ...WHO, name: '   ' }), 'name', 'Enter your name.');
    const email = await postForm(id, { phone, amount: '2,500', ...WHO, email: 'not-an-email' });
    expectRefused(email, 'email', 'Enter your email address');
    expectRefused(await postForm(id, { phone, amount: '2,500', name: WHO.name }), 'email', 'Enter your email');
    const french = await postForm(id, { phone, amount: '49 999,5', ...WHO, lang: 'fr' });
    expectRefused(french, 'amount', 'Indiquez un montant de');
    expect(await paymentsOf(id)).to.deep.equal([]);
    const read = await call(`/v1/checkout/sessions/${id}/public`);
    expect(read.body.data).to.include({ amount: null, attempts_left: 10 });
  });

  it('carries the typed amount in minor units with the name and email; the wait and the receipt show it, then the merchant’s message', async () => {
    const id = await linkSession(merchant(), DONATION);
    // A number the sandbox approves after 3 s (docs/payments.md#sandbox-scenarios), so the wait screen shows first.
    const posted = await postForm(id, { phone: '0788 000 009', operator: '', amount: ' 2,500 ', ...WHO });
    const path = attemptPath(posted);
    const [payment] = await paymentsOf(id);
    expect(payment?.amount).to.equal(2_500);
    const first = await page(path);
    expect(first.html).to.include('Approve the payment on your phone');
    expect(first.html).to.include(`<p class="amount">${formatMoney('en', 2_500, 'RWF')}</p>`);
    expect(first.html).to.include(`to approve ${formatMoney('en', 2_500, 'RWF')}`);
    const receipt = await follow(path, (a) => a.html.includes('Payment received'));
    expect(receipt.status).to.equal(200);
    expectSecurityHeaders(receipt);
    expect(receipt.html).to.include(`<dd class="amount">${formatMoney('en', 2_500, 'RWF')}</dd>`);
    expect(receipt.html).to.include(
      '<p class="completion-message">Murakoze &lt;b&gt;cyane&lt;/b&gt; &amp; see you soon!</p>',
    );
    expect(receipt.html).to.not.include('data-redirect');
    expect(receipt.html).to.not.include('Go back to');
    const read = await call(`/v1/checkout/sessions/${id}`, { key: merchant().key });
    expect(read.body.data).to.include({ status: 'complete', amount: 2_500 });
  });

  it('reads a two-decimal currency’s amount as typed (25.50 KES is 2550 cents)', async () => {
    const id = await linkSession(merchant(), {
      amount_range: { min: 1_000, max: 500_000 },
      currency: 'KES',
      description: 'Tip jar',
    });
    const form = await page(`/pay/${id}`);
    expect(form.html).to.include(`from ${formatMoney('en', 1_000, 'KES')} to ${formatMoney('en', 500_000, 'KES')}`);
    expect(form.html).to.not.include('id="name"');
    expectRefused(await postForm(id, { phone: '0730 000 001', amount: '25.505' }), 'amount', 'Enter an amount');
    expectRefused(await postForm(id, { phone: '0730 000 001', amount: '9.99' }), 'amount', 'Enter an amount');
    attemptPath(await postForm(id, { phone: '0730 000 001', amount: '25.50' }));
    expect((await paymentsOf(id)).map((p) => p.amount)).to.deep.equal([2_550]);
  });

  it('ends on the receipt alone when the link neither redirects nor says anything', async () => {
    const id = await linkSession(merchant(), { amount: 1_500, currency: 'RWF', description: 'Chapati' });
    const form = await page(`/pay/${id}`);
    expect(form.html).to.include(`Pay ${formatMoney('en', 1_500, 'RWF')}`);
    expect(form.html).to.not.include('id="amount"');
    const path = attemptPath(await postForm(id, { phone: '0788 000 001' }));
    const receipt = await follow(path, (a) => a.html.includes('Payment received'));
    expect(receipt.html).to.include(formatMoney('en', 1_500, 'RWF'));
    expect(receipt.html).to.not.include('data-redirect');
    expect(receipt.html).to.not.include('completion-message');
    expect(receipt.html).to.not.include('Go back to');
  });

  it('renders a closed or unknown link’s page with the page’s own look, catalogues and security headers', async () => {
    const created = await call('/v1/payment_links', {
      key: merchant().key,
      body: { amount: 1_500, currency: 'RWF', description: 'Chapati', active: false },
      headers: { 'idempotency-key': `page-link-${Math.random()}` },
    });
    expect(created.status).to.equal(201);
    for (const [language, words] of [
      ['en', 'This payment link is closed'],
      ['fr', 'Ce lien de paiement est fermé'],
      ['sw', 'Kiungo hiki cha malipo kimefungwa'],
      ['rw', 'Iyi link yo kwishyura yarafunzwe'],
    ] as const) {
      const closed = await page(`/l/${created.body.data.id}`, { headers: { 'accept-language': language } });
      expect(closed.status).to.equal(410);
      expect(closed.html).to.include(`<html lang="${language}">`).and.include(words);
      // The page's stylesheet (allowed by its hash) and its viewport: the same look as the payment page.
      expect(closed.html).to.include('<meta name="viewport" content="width=device-width, initial-scale=1"/>');
      expect(closed.html).to.match(/<style>[^<]*\.visually-hidden/);
      expectSecurityHeaders(closed);
      expect(closed.headers.get('cache-control')).to.equal('no-store');
    }
    const unknown = await page('/l/plink_000000000000000000000000', { headers: { 'accept-language': 'sw' } });
    expect(unknown.status).to.equal(404);
    expect(unknown.html).to.include('Kiungo hiki cha malipo hakipo');
    expectSecurityHeaders(unknown);
  });

  it('shows the branding set over the API: the display name, the brand colour with its text colour, the logo', async () => {
    const dev = merchant();
    const { baseUrl } = await getStack();
    const body = new FormData();
    body.append('display_name', 'Kigali Crafts');
    body.append('brand_color', '#0B6E4F');
    body.append('logo', new Blob([new Uint8Array(PNG_BYTES)], { type: 'image/png' }), 'logo.png');
    const put = await fetch(`${baseUrl}/v1/developer/branding`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${dev.key}` },
      body,
    });
    expect(put.status, await put.clone().text()).to.equal(200);
    const session = await createSession(dev);
    const answer = await page(`/pay/${session.id}`);
    expect(answer.status).to.equal(200);
    expectSecurityHeaders(answer);
    expect(answer.html).to.include('<span>Kigali Crafts</span>');
    expect(answer.html).to.include('Payment to Kigali Crafts');
    expect(answer.html).to.include(':root{--brand:#0b6e4f;--brand-text:#ffffff}');
    const logo = /<img src="([^"]+)" alt=""/.exec(answer.html)?.[1]?.replace(/&amp;/g, '&');
    expect(logo).to.match(new RegExp(`^/v1/checkout/sessions/${session.id}/logo\\?v=[0-9a-f]{16}$`));
    // The CSP lets the page load it (images of this server only), and it answers.
    expect(answer.headers.get('content-security-policy')).to.include("img-src 'self'");
    const image = await fetch(baseUrl + (logo as string));
    expect(image.status).to.equal(200);
    expect(image.headers.get('content-type')).to.equal('image/png');
  });
});
