/**
 * The hosted page's security promises (docs/hosted-page.md#security): what a merchant or payer types is text on the
 * page, never markup; a session's address reaches only its own attempts' payments (another session's payment, or a
 * payment of the merchant's API, is 404 on it); Stripe's origins enter the CSP only for a live page offering a card.
 */
import { expect } from 'chai';
import { call } from '../helpers/http';
import { getStack } from '../helpers/stack';
import { defaultBrand } from '../../src/page/brand';
import { translator } from '../../src/page/i18n';
import { contentSecurityPolicy } from '../../src/page/security';
import { formScreen, type ScreenContext } from '../../src/page/views';
import { createSession, merchantOfSuite } from './fixtures';

async function html(path: string): Promise<{ status: number; text: string }> {
  const { baseUrl } = await getStack();
  const response = await fetch(baseUrl + path, { redirect: 'manual' });
  return { status: response.status, text: await response.text() };
}

/** Pays session `id` with the sandbox number that completes → the payment id. */
async function paid(id: string): Promise<string> {
  const attempt = await call(`/v1/checkout/sessions/${id}/attempts`, {
    body: { payment_method: 'mobile_money', phone_number: '0788 000 001' },
  });
  expect(attempt.status, JSON.stringify(attempt.body)).to.equal(201);
  return attempt.body.data.payment;
}

describe('hosted page security (docs/hosted-page.md#security)', function () {
  this.timeout(60_000);
  const merchant = merchantOfSuite();

  it('writes what the merchant typed as text, never as markup', async () => {
    const { id } = await createSession(merchant(), {
      description: '<script>alert(1)</script><img src=x onerror=alert(2)> & "quoted"',
    });
    const page = await html(`/pay/${id}`);
    expect(page.status).to.equal(200);
    expect(page.text).to.not.include('<script>alert');
    expect(page.text).to.not.include('<img src=x');
    expect(page.text).to.include(
      '&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt; &amp; &quot;quoted&quot;',
    );
  });

  it('shows on a session’s address only its own attempts: another session’s payment and an API payment are 404', async () => {
    const first = await createSession(merchant());
    const second = await createSession(merchant());
    const payment = await paid(first.id);
    expect((await html(`/pay/${first.id}/attempts/${payment}`)).status).to.equal(200);
    const foreign = await html(`/pay/${second.id}/attempts/${payment}`);
    expect(foreign.status).to.equal(404);
    expect(foreign.text).to.not.include(payment);
    const direct = await call('/v1/payments', {
      key: merchant().key,
      body: { amount: 1_000, currency: 'RWF', payment_method: 'mobile_money', phone_number: '+250788000001' },
      headers: { 'idempotency-key': `direct-${Math.random()}` },
    });
    expect(direct.status, JSON.stringify(direct.body)).to.equal(201);
    expect((await html(`/pay/${first.id}/attempts/${direct.body.data.id}`)).status).to.equal(404);
  });

  it('lets Stripe’s origins into the CSP only on a live page that offers a card', () => {
    const plain = contentSecurityPolicy({ inlineStyles: ['a{}'], stripe: false });
    expect(plain).to.not.include('stripe');
    expect(plain).to.include("script-src 'self';");
    const live = contentSecurityPolicy({ inlineStyles: ['a{}'], stripe: true });
    expect(live).to.include("script-src 'self' https://js.stripe.com;");
    expect(live).to.include('frame-src https://js.stripe.com https://hooks.stripe.com');
    expect(live).to.include("connect-src 'self' https://api.stripe.com");
    expect(live).to.not.include('unsafe-inline');

    const ctx: ScreenContext = {
      t: translator('en'),
      chosenLocale: undefined,
      brand: defaultBrand('Kigali Crafts'),
      environment: 'live',
      assets: { script: '/pay/assets/pay-0.js', css: 'body{}' },
    };
    const session = {
      id: 'cs_x',
      amount: 2_500,
      amountRange: null,
      currency: 'USD' as const,
      description: 'Two tickets',
      collect: [],
      successUrl: 'https://shop.example/thanks',
      completionMessage: null,
      cancelUrl: null,
    };
    const withCard = formScreen(ctx, session, {
      market: undefined,
      card: { kind: 'live', publishableKey: 'pk_live_abc' },
    });
    expect(withCard.stripe).to.equal(true);
    expect(withCard.html).to.include('data-key="pk_live_abc"');
    expect(withCard.html).to.not.include('js.stripe.com');
    expect(formScreen(ctx, session, { market: undefined, card: { kind: 'sandbox' } }).stripe).to.equal(false);
  });
});
