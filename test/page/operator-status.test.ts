/**
 * The hosted page when the payer's operator is slow or down (docs/hosted-page.md#operator-status), on the real stack,
 * the operator's status set by the merchant's own sandbox status (docs/availability.md#sandbox-override):
 * - `degraded`: the form warns in plain words before any prompt, in the page's language; with JavaScript the warning
 *   shown is the predicted operator's only (Chromium at 390 px; axe-core finds nothing serious);
 * - `down`: the attempt is refused before any prompt: the page's API answers 503 `provider_unavailable` with
 *   `Retry-After`, the form posted without JavaScript answers 503 in plain words naming the operator and another way to
 *   pay; no payment is created, the session counts no attempt; another operator's number still pays;
 * - another merchant's page sees nothing of it.
 */
import { AxeBuilder } from '@axe-core/playwright';
import { expect } from 'chai';
import { PROVIDER_DOWN_RETRY_AFTER_SECONDS } from '../../src/services/provider-health-service';
import { closeBrowser, getBrowser } from '../dashboard/browser';
import { call, registerDeveloper, type TestDeveloper } from '../helpers/http';
import { getStack } from '../helpers/stack';
import { attemptPath, createSession, merchantOfSuite, page, postForm } from './fixtures';

async function setMomo(dev: TestDeveloper, status: 'degraded' | 'down' | 'operational'): Promise<void> {
  const answer = await call('/v1/sandbox/providers/momo/status', {
    key: dev.key,
    body: { country: 'RW', operation: 'collection', status, reason: 'page drill' },
  });
  expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
}

const SLOW = 'MTN MoMo is slow right now';
const NOT_WORKING = 'MTN MoMo is not working right now';

describe('hosted page and operator status (docs/hosted-page.md#operator-status)', function () {
  this.timeout(120_000);
  const merchant = merchantOfSuite();

  after(async () => {
    await setMomo(merchant(), 'operational');
    await closeBrowser();
  });

  it('warns before the prompt when the operator is degraded, in the page’s language; other merchants see nothing', async () => {
    await setMomo(merchant(), 'degraded');
    const session = await createSession(merchant());
    const english = await page(`/pay/${session.id}`);
    expect(english.status).to.equal(200);
    expect(english.html).to.include(SLOW);
    expect(english.html).to.not.include('Airtel Money is slow');
    // The warning stands before the button that starts the prompt.
    expect(english.html.indexOf(SLOW)).to.be.below(english.html.indexOf('<button type="submit">'));
    const french = await page(`/pay/${session.id}?lang=fr`);
    expect(french.html).to.include('MTN MoMo est lent en ce moment');
    const swahili = await page(`/pay/${session.id}?lang=sw`);
    expect(swahili.html).to.include('MTN MoMo inachelewa kwa sasa');
    const kinyarwanda = await page(`/pay/${session.id}?lang=rw`);
    expect(kinyarwanda.html).to.include('MTN MoMo iratinda muri iki gihe');

    const stranger = await registerDeveloper();
    const theirs = await createSession(stranger);
    expect((await page(`/pay/${theirs.id}`)).html).to.not.include(SLOW);

    // A degraded operator is warned of, never refused: the form's attempt goes on to the wait.
    const posted = await postForm(session.id, { payment_method: 'mobile_money', phone: '0788 000 001', operator: '' });
    expect(posted.status).to.equal(303);
    expect(attemptPath(posted)).to.match(/\/attempts\/pay_/);
  });

  it('refuses the attempt before any prompt when the operator is down: 503 with Retry-After, plain words, no payment', async () => {
    const { db } = await getStack();
    await setMomo(merchant(), 'down');
    const session = await createSession(merchant());
    const form = await page(`/pay/${session.id}`);
    expect(form.html).to.include(NOT_WORKING);

    // The page's own API.
    const api = await call(`/v1/checkout/sessions/${session.id}/attempts`, {
      body: { payment_method: 'mobile_money', phone_number: '0788 000 001' },
    });
    expect(api.status, JSON.stringify(api.body)).to.equal(503);
    expect(api.body.error.code).to.equal('provider_unavailable');
    expect(api.headers.get('retry-after')).to.equal(String(PROVIDER_DOWN_RETRY_AFTER_SECONDS));

    // The form without JavaScript.
    const posted = await postForm(session.id, { payment_method: 'mobile_money', phone: '0788 000 001', operator: '' });
    expect(posted.status).to.equal(503);
    expect(posted.headers.get('retry-after')).to.equal(String(PROVIDER_DOWN_RETRY_AFTER_SECONDS));
    expect(posted.html).to.include('MTN MoMo is not working right now, so nothing was sent to your phone');
    expect(posted.html).to.include('If you have a number on another operator, you can pay with it instead.');
    expect(posted.html).to.include('value="0788 000 001"');
    const french = await postForm(session.id, { phone: '0788 000 001', lang: 'fr' });
    expect(french.html).to.include('MTN MoMo ne fonctionne pas en ce moment');

    expect(await db('payments').where({ checkout_session: session.id })).to.have.length(0);
    const read = await call(`/v1/checkout/sessions/${session.id}`, { key: merchant().key });
    expect(read.body.data.attempts_count).to.equal(0);

    // Another operator's number pays as usual.
    const airtel = await postForm(session.id, { payment_method: 'mobile_money', phone: '0728 000 001', operator: '' });
    expect(airtel.status).to.equal(303);
  });

  it('with JavaScript, shows the warning of the operator the number predicts only', async () => {
    await setMomo(merchant(), 'degraded');
    const session = await createSession(merchant());
    const { baseUrl } = await getStack();
    const context = await (
      await getBrowser()
    ).newContext({ baseURL: baseUrl, viewport: { width: 390, height: 844 }, locale: 'en-US' });
    try {
      const tab = await context.newPage();
      await tab.goto(`/pay/${session.id}`);
      const notice = tab.locator('[data-operator-notice="momo"]');
      expect(await notice.isVisible()).to.equal(true);
      await tab.fill('#phone', '0728 000 001');
      expect(await notice.isVisible()).to.equal(false);
      await tab.fill('#phone', '0788 000 001');
      expect(await notice.isVisible()).to.equal(true);
      expect(await notice.textContent()).to.include(SLOW);
      const axe = await new AxeBuilder({ page: tab }).analyze();
      const serious = axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(serious.map((v) => v.id)).to.deep.equal([]);
    } finally {
      await context.close();
    }
  });
});
