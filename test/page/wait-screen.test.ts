/**
 * The hosted page's wait screen (docs/hosted-page.md#mobile-money) for a provider whose page the payer opens (Wave,
 * docs/providers.md#wave-wave): the payment's redirect `next_action` becomes a link to the provider's page, in place
 * of the phone prompt's text and its USSD fallback; a phone-prompt operator's screen is unchanged, and a link that is
 * not https is never offered.
 */
import { expect } from 'chai';
import { defaultBrand } from '../../src/page/brand';
import { translator } from '../../src/page/i18n';
import { waitScreen, type ScreenContext, type ScreenSession } from '../../src/page/views';

const ctx: ScreenContext = {
  t: translator('en'),
  chosenLocale: undefined,
  brand: defaultBrand('Shop'),
  environment: 'live',
  assets: { script: '/pay/assets/pay.js', css: 'body{}' },
};

const session: ScreenSession = {
  id: 'cs_000000000000000000000001',
  amount: 5_000,
  amountRange: null,
  currency: 'XOF',
  description: 'Basket',
  collect: [],
  successUrl: null,
  completionMessage: null,
  cancelUrl: null,
};

const wave = { code: 'wave' as const, name: 'Wave', prefixes: [] };
const launch = 'https://pay.wave.com/c/cos-18qq25rgr100a?a=5000&c=XOF&m=Shop';

describe('hosted page wait screen: the provider page to open (docs/providers.md#wave-wave)', () => {
  it("links to the provider's page instead of the phone prompt's text and USSD fallback", () => {
    const { html } = waitScreen(ctx, session, {
      payment: 'pay_x',
      operator: wave,
      phone: '77 123 45 67',
      country: 'SN',
      redirectUrl: launch,
    });
    expect(html).to.include(`href="${launch.replace(/&/g, '&amp;')}"`);
    expect(html).to.include('Continue to Wave');
    expect(html).to.not.include('has sent a request to');
    expect(html).to.not.include('No request on your phone?');
  });

  it('keeps the phone prompt for an operator without a page, and offers no link that is not https', () => {
    for (const redirectUrl of [undefined, 'javascript:alert(1)', 'http://pay.wave.com/c/cos-1']) {
      const { html } = waitScreen(ctx, session, {
        payment: 'pay_x',
        operator: wave,
        phone: '77 123 45 67',
        country: 'SN',
        redirectUrl,
      });
      expect(html, String(redirectUrl)).to.include('Wave has sent a request to 77 123 45 67');
      expect(html, String(redirectUrl)).to.include('No request on your phone?');
      expect(html, String(redirectUrl)).to.not.include('Continue to Wave');
    }
  });
});
