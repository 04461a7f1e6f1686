/**
 * The hosted page's message catalogues (docs/hosted-page.md#languages): every catalogue has every key of the English
 * one and no other, each message parses as ICU MessageFormat and uses the same placeholders as the English one; the
 * page's language comes from the payer's choice, the session, then Accept-Language, then English; amounts follow the
 * currency's exponent and the locale's format.
 */
import { expect } from 'chai';
import { TYPE, parse, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { CATALOGUES, PAGE_LOCALES, formatMoney, fromAcceptLanguage, pageLocale, translator } from '../../src/page/i18n';
import { en } from '../../src/page/messages/en';

/** The placeholder names of a parsed message. */
function placeholders(elements: MessageFormatElement[]): string[] {
  return elements
    .filter((e) => e.type !== TYPE.literal && e.type !== TYPE.pound)
    .map((e) => (e as { value: string }).value)
    .sort();
}

describe('hosted page catalogues (docs/hosted-page.md#languages)', () => {
  for (const locale of PAGE_LOCALES) {
    it(`${locale} has every key of the English catalogue, and no other, with the same placeholders`, () => {
      const catalogue = CATALOGUES[locale];
      expect(Object.keys(catalogue).sort()).to.deep.equal(Object.keys(en).sort());
      for (const [key, text] of Object.entries(en)) {
        const translated = catalogue[key as keyof typeof en];
        expect(translated.trim(), `${locale}.${key}`).to.not.equal('');
        expect(placeholders(parse(translated)), `${locale}.${key}`).to.deep.equal(placeholders(parse(text)));
      }
    });
  }

  it('takes the payer’s choice, then the session’s locale, then Accept-Language, then English', () => {
    expect(pageLocale({ chosen: 'sw', session: 'fr', acceptLanguage: 'rw' })).to.equal('sw');
    expect(pageLocale({ chosen: 'de', session: 'fr', acceptLanguage: 'rw' })).to.equal('fr');
    expect(pageLocale({ acceptLanguage: 'de-DE, rw-RW;q=0.8, fr;q=0.9' })).to.equal('fr');
    expect(pageLocale({ acceptLanguage: 'de, *;q=0.5' })).to.equal('en');
    expect(fromAcceptLanguage('sw;q=0, rw;q=0.1')).to.equal('rw');
    expect(fromAcceptLanguage(undefined)).to.equal(undefined);
  });

  it('writes amounts in the currency’s exponent and the locale’s format, exactly', () => {
    expect(formatMoney('en', 5_000, 'RWF')).to.equal('RWF\u00a05,000');
    expect(formatMoney('en', 150_050, 'KES')).to.equal('KES\u00a01,500.50');
    expect(formatMoney('fr', 150_050, 'KES')).to.equal('1\u202f500,50\u00a0KES');
    expect(formatMoney('en', 1_000_000_000_000, 'UGX')).to.equal('UGX\u00a01,000,000,000,000');
    expect(formatMoney('en', 999_999_999_999, 'KES')).to.equal('KES\u00a09,999,999,999.99');
    expect(formatMoney('en', 7, 'USD')).to.equal('$0.07');
  });

  it('writes a receipt’s time in the locale’s format and the payer’s time zone', () => {
    expect(translator('en').dateTime('2026-11-29T03:44:00Z', 'Africa/Kigali')).to.equal('Nov 29, 2026, 05:44 AM GMT+2');
    expect(translator('fr').dateTime('2026-11-29T03:44:00Z', 'Africa/Nairobi')).to.equal('29 nov. 2026, 06:44 UTC+3');
  });
});
