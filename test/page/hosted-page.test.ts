/**
 * The hosted payment page over HTTP against the real stack (docs/hosted-page.md), as a browser without JavaScript
 * uses it: the form in the session's language with the sandbox's numbers; a mobile-money attempt posted as a plain
 * form (303 to the attempt's page, which refreshes itself until final); a decline then a success; bad numbers refused
 * with nothing started; the expired page (410), the unknown one (404, in the payer's language); the security headers
 * of every answer (docs/hosted-page.md#security). The ledger invariants hold after.
 */
import { expect } from 'chai';
import { call } from '../helpers/http';
import { formatMoney } from '../../src/page/i18n';
import { attemptPath, createSession, expectSecurityHeaders, follow, merchantOfSuite, page, postForm } from './fixtures';

describe('hosted payment page (docs/hosted-page.md)', function () {
  this.timeout(120_000);
  const merchant = merchantOfSuite();

  it('shows the merchant, the amount in the locale’s format, the description, the operators and the sandbox numbers', async () => {
    const session = await createSession(merchant());
    expect(session.url).to.match(new RegExp(`/pay/${session.id}$`));
    const answer = await page(`/pay/${session.id}`);
    expect(answer.status).to.equal(200);
    expect(answer.headers.get('content-type')).to.match(/^text\/html/);
    expect(answer.headers.get('cache-control')).to.equal('no-store');
    expectSecurityHeaders(answer);
    expect(answer.html).to.include('<html lang="en">');
    expect(answer.html).to.include('Payment to Test Developer');
    expect(answer.html).to.include(formatMoney('en', 5_000, 'RWF'));
    expect(answer.html).to.include('School fees, term 1');
    expect(answer.html).to.include('<option value="momo"');
    expect(answer.html).to.include('MTN MoMo');
    expect(answer.html).to.include('Airtel Money');
    expect(answer.html).to.include('Sandbox: no real money moves.');
    expect(answer.html).to.include('0780 000 001');
    expect(answer.html).to.include('<form method="post" action="/pay/');

    const script = answer.html.match(/<script src="([^"]+)"/)?.[1] as string;
    const asset = await page(script);
    expect(asset.status).to.equal(200);
    expect(asset.headers.get('content-type')).to.match(/javascript/);
    expect(asset.headers.get('cache-control')).to.include('immutable');
    expectSecurityHeaders(asset);
  });

  it('speaks the session’s language, and the payer may choose another; the unknown page speaks Accept-Language (404)', async () => {
    const session = await createSession(merchant(), { locale: 'fr' });
    const french = await page(`/pay/${session.id}`);
    expect(french.html).to.include('<html lang="fr">');
    expect(french.html).to.include('Paiement à Test Developer');
    expect(french.html).to.include(formatMoney('fr', 5_000, 'RWF'));
    expect(french.html).to.include(`href="/pay/${session.id}?lang=rw"`);
    const kinyarwanda = await page(`/pay/${session.id}?lang=rw`);
    expect(kinyarwanda.html).to.include('Urishyura Test Developer');

    const unknown = await page('/pay/cs_000000000000000000000000', {
      headers: { 'accept-language': 'sw-KE,sw;q=0.9' },
    });
    expect(unknown.status).to.equal(404);
    expect(unknown.html).to.include('Ukurasa wa malipo haujapatikana');
    expect(unknown.html).to.not.include('Test Developer');
    expectSecurityHeaders(unknown);
    expect((await page('/pay/cs_x/nothing/here')).status).to.equal(404);
  });

  it('completes a mobile-money attempt with a plain form (no JavaScript): 303, a self-refreshing wait, the receipt', async () => {
    const session = await createSession(merchant());
    const posted = await postForm(session.id, { payment_method: 'mobile_money', phone: '0788 000 001', operator: '' });
    expectSecurityHeaders(posted);
    const path = attemptPath(posted);
    const first = await page(path);
    expectSecurityHeaders(first);
    if (!first.html.includes('Payment received')) {
      expect(first.html).to.include('Approve the payment on your phone');
      expect(first.html).to.include('0788 000 001');
      expect(first.html).to.include('*182#');
      expect(first.html).to.match(/<noscript><meta http-equiv="refresh" content="3;url=\/pay\//);
    }
    const receipt = await follow(path, (a) => a.html.includes('Payment received'));
    expect(receipt.status).to.equal(200);
    expectSecurityHeaders(receipt);
    const paymentId = path.split('/').at(-1) as string;
    expect(receipt.html).to.include(paymentId);
    expect(receipt.html).to.include(formatMoney('en', 5_000, 'RWF'));
    // On to success_url by the script after 5 s; without it, by the link (no timed refresh: docs/hosted-page.md).
    expect(receipt.html).to.include('data-redirect="https://school.example/paid"');
    expect(receipt.html).to.include('href="https://school.example/paid"');
    expect(receipt.html).to.not.include('http-equiv="refresh"');
    // The session's own page now answers the receipt too, and a new post only leads back to it.
    expect((await page(`/pay/${session.id}`)).html).to.include('Payment received');
    const again = await postForm(session.id, { phone: '0788 000 001' });
    expect(again.status).to.equal(303);
    expect(again.headers.get('location')).to.equal(`/pay/${session.id}`);
    const read = await call(`/v1/checkout/sessions/${session.id}`, { key: merchant().key });
    expect(read.body.data).to.include({ status: 'complete', payment: paymentId, attempts_count: 1 });
  });

  it('says a decline in plain words with "Try again", and the next attempt pays', async () => {
    const session = await createSession(merchant(), { locale: 'fr' });
    const declined = attemptPath(await postForm(session.id, { phone: '+250 788 000 002', lang: 'en' }));
    expect(declined).to.match(/\?lang=en$/);
    const failure = await follow(declined, (a) => a.html.includes('did not go through'));
    expect(failure.status).to.equal(200);
    expectSecurityHeaders(failure);
    expect(failure.html).to.include('The payment was declined on the phone.');
    expect(failure.html).to.include('Try again');
    expect(failure.html).to.include('value="0788 000 002"');
    const paid = attemptPath(await postForm(session.id, { phone: '0788000001', operator: 'momo', lang: 'en' }));
    const receipt = await follow(paid, (a) => a.html.includes('Payment received'));
    expect(receipt.html).to.include('Payment received');
    const read = await call(`/v1/checkout/sessions/${session.id}`, { key: merchant().key });
    expect(read.body.data).to.include({ status: 'complete', attempts_count: 2 });
  });

  it('refuses a number it cannot read, an unknown operator and a cross-site post, starting nothing', async () => {
    const session = await createSession(merchant());
    const bad = await postForm(session.id, { phone: '12ab' });
    expect(bad.status).to.equal(400);
    expect(bad.html).to.include('Enter a mobile money number');
    expect(bad.html).to.include('aria-invalid="true"');
    expect(bad.html).to.include('value="12ab"');
    expectSecurityHeaders(bad);
    expect((await postForm(session.id, { phone: '' })).status).to.equal(400);
    const operator = await postForm(session.id, { phone: '0788 000 001', operator: 'stripe' });
    expect(operator.status).to.equal(400);
    expect(operator.html).to.include('This operator does not serve this number');
    const foreign = await postForm(session.id, { phone: '0788 000 001' }, { 'sec-fetch-site': 'cross-site' });
    expect(foreign.status).to.equal(403);
    const tooBig = await postForm(session.id, { phone: 'x'.repeat(10_000) });
    expect(tooBig.status).to.equal(413);
    const read = await call(`/v1/checkout/sessions/${session.id}`, { key: merchant().key });
    expect(read.body.data).to.include({ status: 'open', attempts_count: 0 });
  });

  it('answers an expired session’s page with 410, and its attempts’ pages too', async () => {
    const session = await createSession(merchant());
    const expired = await call(`/v1/checkout/sessions/${session.id}/expire`, { key: merchant().key, method: 'POST' });
    expect(expired.status).to.equal(200);
    const answer = await page(`/pay/${session.id}`);
    expect(answer.status).to.equal(410);
    expect(answer.html).to.include('This payment page has expired');
    expectSecurityHeaders(answer);
    const posted = await postForm(session.id, { phone: '0788 000 001' });
    expect(posted.status).to.equal(303);
    expect((await page(`/pay/${session.id}/attempts/pay_unknown`)).status).to.equal(404);
  });

  it('answers only GET, HEAD and POST, and never inside a frame of another site', async () => {
    const session = await createSession(merchant());
    const put = await page(`/pay/${session.id}`, { method: 'PUT' });
    expect(put.status).to.equal(405);
    expect(put.headers.get('allow')).to.equal('GET, HEAD, POST');
    expectSecurityHeaders(put);
    const head = await page(`/pay/${session.id}`, { method: 'HEAD' });
    expect(head.status).to.equal(200);
    expect(head.headers.get('x-frame-options')).to.equal('DENY');
  });
});
