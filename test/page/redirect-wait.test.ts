/**
 * The hosted page's wait screen for a payment paid on the provider's own page (`next_action` `redirect`, Orange Money's
 * web payment: docs/providers.md#orange-money-orange): the payer gets the link to that page, in their language, and no
 * phone-prompt advice; a payment with a phone prompt keeps the prompt's screen.
 */
import { expect } from 'chai';
import { defaultBrand } from '../../src/page/brand';
import { translator } from '../../src/page/i18n';
import { waitScreen, type ScreenContext } from '../../src/page/views';

describe('hosted page wait screen of a payment paid on the provider’s page (docs/providers.md#orange-money-orange)', () => {
  const ctx = (locale: 'en' | 'fr'): ScreenContext => ({
    t: translator(locale),
    chosenLocale: undefined,
    brand: defaultBrand('Dakar Crafts'),
    environment: 'live',
    assets: { script: '/pay/assets/pay-0.js', css: 'body{}' },
  });
  const session = {
    id: 'cs_x',
    amount: 5_000,
    amountRange: null,
    currency: 'XOF' as const,
    description: 'Two tickets',
    collect: [],
    successUrl: null,
    completionMessage: null,
    cancelUrl: null,
  };
  const attempt = {
    payment: 'pay_000000000000000000000001',
    operator: { code: 'orange' as const, name: 'Orange Money', prefixes: ['77', '78'] },
    phone: '77 123 45 67',
    country: 'SN',
  };
  const page = 'https://webpayment.orange.example/payment/pay_token/v1abc?x=1&y=2';

  it("links to the provider's page instead of the phone prompt, without the USSD advice", () => {
    const { html } = waitScreen(ctx('en'), session, { ...attempt, redirectUrl: page });
    expect(html).to.include('Finish the payment on Orange Money');
    expect(html).to.include(`href="${page.replace(/&/g, '&amp;')}"`);
    expect(html).to.include('Continue to Orange Money');
    expect(html).to.not.include('No request on your phone?');
    expect(html).to.not.include('Approve the payment on your phone');
    const french = waitScreen(ctx('fr'), session, { ...attempt, redirectUrl: page }).html;
    expect(french).to.include('Continuer vers Orange Money');
  });

  it('keeps the phone prompt’s screen for a payment without one', () => {
    const { html } = waitScreen(ctx('en'), session, attempt);
    expect(html).to.include('Approve the payment on your phone');
    expect(html).to.include('No request on your phone?');
    expect(html).to.not.include('Continue to');
  });
});
