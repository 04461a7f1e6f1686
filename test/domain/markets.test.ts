/**
 * The markets table (docs/providers.md#markets): every row is a real mobile number plan of its country (each sandbox
 * number is a valid mobile number of the market, by libphonenumber-js) that the prefix table gives to its operator, in
 * a currency the service takes with its ISO exponent; MoMo and Airtel are offered exactly where the table says; and a
 * request that mixes markets (a currency of another market, a number of another country, an operator that does not
 * serve the number's country, a fraction where the operator takes whole units) is refused naming the field.
 */
import { expect } from 'chai';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { MOBILE_MONEY_COUNTRY_CURRENCIES, settlementDelayFor, SETTLEMENT_DELAY_DAYS } from '../../src/domain/catalogue';
import { DEFAULT_FEE_BASIS_POINTS, feeBasisPointsFor, feeFor } from '../../src/domain/fees';
import type { MerchantMethod } from '../../src/domain/catalogue';
import {
  resolveGenericPayment,
  resolveMerchantPayment,
  type GenericPaymentRequest,
} from '../../src/domain/create-payment';
import { CURRENCY_EXPONENT_TABLE, MARKETS, marketTermsMarkdown, reachOf } from '../../src/domain/markets';
import {
  CURRENCY_EXPONENTS,
  formatMinorUnits,
  MAX_AMOUNT_MINOR,
  MIN_AMOUNT_MINOR,
  parseDecimalAmount,
  type Currency,
} from '../../src/domain/money';
import { walletCurrencyProblem } from '../../src/domain/phone';
import type { ProviderDescriptor } from '../../src/domain/provider-descriptor';
import { PROVIDER_DESCRIPTORS } from '../../src/providers/descriptors';
import { AIRTEL_COUNTRY_CURRENCIES } from '../../src/providers/airtel/client';
import { MOMO_ENVIRONMENT_CURRENCIES } from '../../src/providers/momo/fields';
import { problemOf } from '../helpers/domain-errors';
import { expectGeneratedSection } from '../helpers/generated-docs';

/** ISO 4217 minor units of the currencies the table adds (the list maintained by SIX for ISO). */
const ISO_4217_EXPONENTS: Readonly<Record<string, number>> = {
  TZS: 2,
  ZMW: 2,
  XOF: 0,
  XAF: 0,
  GNF: 0,
  SZL: 2,
  MWK: 2,
  CDF: 2,
  MGA: 2,
  SCR: 2,
  NGN: 2,
};

const rows = MARKETS.flatMap((market) => market.operators.map((row) => ({ market, row })));

describe('domain/markets (docs/providers.md#markets)', () => {
  it('takes every currency of the table with its ISO 4217 exponent, and only those', () => {
    expect(CURRENCY_EXPONENTS).to.equal(CURRENCY_EXPONENT_TABLE);
    for (const [currency, exponent] of Object.entries(ISO_4217_EXPONENTS))
      expect(CURRENCY_EXPONENTS, currency).to.have.property(currency, exponent);
    for (const market of MARKETS)
      for (const currency of market.currencies) expect(CURRENCY_EXPONENTS, market.country).to.have.property(currency);
  });

  it('holds one row per operator and market, in a currency its wallets hold, named as the operator names it, with sources', () => {
    for (const { market, row } of rows) {
      const where = `${row.provider} in ${market.country}`;
      expect(market.currencies, where).to.include(row.currency);
      expect(row.sources.length, where).to.be.above(0);
      for (const source of row.sources) expect(source, where).to.match(/^https:\/\//);
      if (row.provider === 'momo') expect(row.apiMarket, where).to.match(/^mtn[a-z]+$/);
      else expect(row.apiMarket, where).to.equal(market.country);
      expect(
        market.operators.filter((other) => other.provider === row.provider),
        where,
      ).to.have.length(1);
    }
    expect(new Set(MARKETS.map((market) => market.country)).size).to.equal(MARKETS.length);
    // Each market's time zone is one the runtime knows (a wrong name throws RangeError).
    for (const market of MARKETS)
      expect(() => new Intl.DateTimeFormat('en', { timeZone: market.timeZone }), market.country).not.to.throw();
    // Each API market name stands for one currency, which the adapters check before calling.
    expect(MOMO_ENVIRONMENT_CURRENCIES).to.include({ mtnivorycoast: 'XOF', mtncameroon: 'XAF', mtnzambia: 'ZMW' });
    expect(AIRTEL_COUNTRY_CURRENCIES).to.include({ TZ: 'TZS', CD: 'CDF', NE: 'XOF', GA: 'XAF', MG: 'MGA' });
  });

  it('offers MTN MoMo and Airtel Money in every market MTN and Airtel document, and wallets hold each market’s currency', () => {
    expect(reachOf('momo').countries).to.include.members(['CI', 'CM', 'CG', 'BJ', 'GN', 'ZM', 'SZ']);
    expect(reachOf('mobile_money_b').countries).to.include.members([
      'TZ',
      'ZM',
      'MW',
      'CD',
      'CG',
      'NE',
      'TD',
      'GA',
      'MG',
      'SC',
    ]);
    // Every country a mobile money provider serves has a market row, so its wallets' currencies are known.
    for (const descriptor of PROVIDER_DESCRIPTORS as readonly ProviderDescriptor[]) {
      if (descriptor.kind !== 'mobile_money') continue;
      for (const reach of [descriptor.generic, descriptor.merchant]) {
        if (!reach || reach.countries === '*') continue;
        for (const country of reach.countries)
          expect(MOBILE_MONEY_COUNTRY_CURRENCIES, `${descriptor.code} in ${country}`).to.have.property(country);
      }
    }
  });

  it('gives every sandbox number, a valid mobile number of its market, to its operator on both endpoint families', () => {
    for (const { market, row } of rows) {
      const where = `${row.provider} in ${market.country}`;
      const parsed = parsePhoneNumberFromString(row.sandboxNumber, market.country as never);
      expect(parsed?.isValid(), where).to.equal(true);
      expect(parsed?.getType(), where).to.equal('MOBILE');
      expect(parsed?.country, where).to.equal(market.country);
      expect(row.sandboxNumber.endsWith('0001'), where).to.equal(true);
      expect(
        row.prefixes.some((prefix) => row.sandboxNumber.startsWith(prefix)),
        where,
      ).to.equal(true);
      const e164 = parsed!.number;
      const unit = 10 ** CURRENCY_EXPONENTS[row.currency];
      // Within every market's limits (Airtel Tanzania takes 2,500 shillings at least).
      const generic = { amount: 3_000 * unit, currency: row.currency, paymentMethod: 'mobile_money' as const };
      expect(resolveGenericPayment({ ...generic, phoneNumber: e164 }), where).to.deep.equal({
        provider: row.provider,
        kind: 'mobile_money',
        customerPhone: e164,
        country: market.country,
      });
      // Written nationally, with the country named (XOF and XAF are held in several countries).
      const national = parsed!.formatNational();
      expect(
        resolveGenericPayment({ ...generic, phoneNumber: national, country: market.country }).customerPhone,
        where,
      ).to.equal(e164);
      const merchant = resolveMerchantPayment({
        amount: '3000.00',
        currency: row.currency,
        paymentMethod: row.provider,
        phoneNumber: e164,
      });
      expect(merchant, where).to.include({
        provider: row.provider,
        amountMinor: 3_000 * unit,
        country: market.country,
      });
    }
  });

  /** The refusal of a generic mobile money create of 1,500 `currency` from `phoneNumber`, with `extra` fields. */
  const genericRefusal = (currency: Currency, phoneNumber: string, extra: Partial<GenericPaymentRequest> = {}) =>
    problemOf(() =>
      resolveGenericPayment({ amount: 1_500, currency, paymentMethod: 'mobile_money', phoneNumber, ...extra }),
    );
  /** The refusal of a merchant-scoped create of "1500.00" `currency` by `paymentMethod` from `phoneNumber`. */
  const merchantRefusal = (currency: Currency, paymentMethod: MerchantMethod, phoneNumber: string) =>
    problemOf(() => resolveMerchantPayment({ amount: '1500.00', currency, paymentMethod, phoneNumber }));

  it('refuses a currency of another market, a number of another country and an operator not serving it, naming the field', () => {
    // XOF is an MTN currency, but not a Zambian wallet's.
    expect(genericRefusal('XOF', '+260966000001')).to.deep.equal({
      code: 'validation_error',
      field: 'currency',
      message: 'currency XOF does not match a mobile money wallet in ZM',
    });
    expect(merchantRefusal('XAF', 'momo', '+260966000001')).to.include({
      field: 'currency',
      message: 'currency XAF does not match a mobile money wallet in ZM',
    });
    // A Cameroonian number for a payment said to be of Côte d'Ivoire.
    expect(genericRefusal('XOF', '+237677000001', { country: 'CI' })).to.include({
      field: 'phone_number',
      message: 'phone_number is a number of CM, not of CI',
    });
    // Airtel does not serve Cameroon, MTN does not serve Tanzania.
    expect(genericRefusal('XAF', '+237677000001', { operator: 'mobile_money_b' })).to.include({
      field: 'operator',
      message: 'mobile_money_b does not serve CM',
    });
    expect(merchantRefusal('TZS', 'momo', '+255683000001')).to.include({
      field: 'currency',
      message: 'currency TZS is not supported by momo',
    });
    expect(merchantRefusal('XAF', 'mobile_money_b', '+237677000001')).to.include({
      field: 'payment_method_data.phone_number',
      message: 'mobile_money_b does not serve CM',
    });
    // XOF is held in several countries: a national number needs its country.
    expect(genericRefusal('XOF', '0555000001')).to.include({ field: 'phone_number' });
  });

  it('routes a ported number by operator, and only to an operator of its country', () => {
    // An MTN Zambia prefix, ported to Airtel.
    const ported = { amount: 150_000, currency: 'ZMW' as const, paymentMethod: 'mobile_money' as const };
    expect(resolveGenericPayment({ ...ported, phoneNumber: '+260966000001' }).provider).to.equal('momo');
    expect(
      resolveGenericPayment({ ...ported, phoneNumber: '+260966000001', operator: 'mobile_money_b' }).provider,
    ).to.equal('mobile_money_b');
    expect(genericRefusal('XOF', '+2250555000001', { operator: 'mobile_money_b' })).to.include({
      field: 'operator',
      message: 'mobile_money_b does not serve CI',
    });
  });

  it('takes exponent-0 currencies in whole units and refuses a fraction where the operator takes whole units only', () => {
    expect(parseDecimalAmount('1500.00', 'XOF')).to.deep.equal({ ok: true, minor: 1_500 });
    expect(parseDecimalAmount('1500.50', 'XAF')).to.include({ ok: false });
    expect(formatMinorUnits(1_500, 'GNF')).to.equal('1500');
    expect(formatMinorUnits(150_050, 'ZMW')).to.equal('1500.50');
    const tanzania = { amount: 150_050, currency: 'TZS' as const, paymentMethod: 'mobile_money' as const };
    expect(problemOf(() => resolveGenericPayment({ ...tanzania, phoneNumber: '+255683000001' }))).to.deep.equal({
      code: 'validation_error',
      field: 'amount',
      message:
        'amount must be a whole number of TZS for mobile_money_b in TZ, which takes no fraction of a TZS (e.g. 150000)',
    });
    expect(
      problemOf(() =>
        resolveMerchantPayment({
          amount: '1500.50',
          currency: 'TZS',
          paymentMethod: 'mobile_money_b',
          phoneNumber: '+255683000001',
        }),
      ),
    ).to.include({ field: 'amount' });
    expect(resolveGenericPayment({ ...tanzania, amount: 300_000, phoneNumber: '+255683000001' }).provider).to.equal(
      'mobile_money_b',
    );
    // Airtel Zambia takes ngwee: the rule is the market's, not Airtel's.
    expect(
      resolveGenericPayment({
        amount: 150_050,
        currency: 'ZMW',
        paymentMethod: 'mobile_money',
        phoneNumber: '+260977000001',
      }).provider,
    ).to.equal('mobile_money_b');
  });

  it('says when a wallet destination cannot be paid a currency of another market', () => {
    expect(walletCurrencyProblem('+260966000001', 'XOF')).to.equal('a mobile money wallet of ZM holds ZMW, not XOF');
    expect(walletCurrencyProblem('+260966000001', 'ZMW')).to.equal(undefined);
    expect(walletCurrencyProblem('+231880000001', 'LRD')).to.equal(undefined);
  });

  describe('terms per market (docs/providers.md#market-terms)', () => {
    /** The markets the service started with, whose terms are the ones they always had. */
    const FIRST_MARKETS = ['RW', 'UG', 'GH', 'KE', 'LR'];

    it('gives every row amount limits within the service’s, a settlement delay and a fee, each with its source', () => {
      for (const { market, row } of rows) {
        const where = `${row.provider} in ${market.country}`;
        const { terms } = row;
        expect(Number.isSafeInteger(terms.minimumAmount) && terms.minimumAmount >= MIN_AMOUNT_MINOR, where).to.equal(
          true,
        );
        expect(terms.maximumAmount, where).to.be.at.least(terms.minimumAmount).and.at.most(MAX_AMOUNT_MINOR);
        expect(Number.isInteger(terms.settlementDelayDays) && terms.settlementDelayDays >= 0, where).to.equal(true);
        expect(Number.isInteger(terms.feeBasisPoints) && terms.feeBasisPoints <= 10_000, where).to.equal(true);
        // Published limits of a whole-units-only market are whole units (the service's own start at one minor unit).
        if (row.wholeUnitsOnly && terms.sources.limits.startsWith('https://')) {
          const unit = 10 ** CURRENCY_EXPONENTS[row.currency];
          expect([terms.minimumAmount % unit, terms.maximumAmount % unit], where).to.deep.equal([0, 0]);
        }
        for (const source of Object.values(terms.sources))
          expect(source, where).to.match(/^(https:\/\/|docs\/[a-z-]+\.md#[a-z-]+$)/);
      }
    });

    it('keeps the five first markets’ terms: the service’s limits, the provider’s delay and fee', () => {
      const first = rows.filter(({ market }) => FIRST_MARKETS.includes(market.country));
      expect(first).to.have.length(6);
      for (const { market, row } of first) {
        expect(row.terms, `${row.provider} in ${market.country}`).to.deep.include({
          minimumAmount: MIN_AMOUNT_MINOR,
          maximumAmount: MAX_AMOUNT_MINOR,
          settlementDelayDays: SETTLEMENT_DELAY_DAYS[row.provider],
          feeBasisPoints: DEFAULT_FEE_BASIS_POINTS[row.provider],
        });
      }
    });

    it("takes each row's fee and settlement delay for its market, and the provider's where it has no row", () => {
      for (const { market, row } of rows) {
        expect(feeBasisPointsFor(row.provider, market.country)).to.equal(row.terms.feeBasisPoints);
        expect(settlementDelayFor(row.provider, market.country)).to.equal(row.terms.settlementDelayDays);
        expect(feeFor(1_000_000, row.provider, market.country)).to.equal(row.terms.feeBasisPoints * 100);
      }
      // No row: Vodacom keeps its own prefixes; no known country; a country the provider does not serve.
      expect(feeBasisPointsFor('vodacom', 'TZ')).to.equal(DEFAULT_FEE_BASIS_POINTS.vodacom);
      expect(settlementDelayFor('card_gateway', null)).to.equal(SETTLEMENT_DELAY_DAYS.card_gateway);
      expect(settlementDelayFor('momo', 'TZ')).to.equal(SETTLEMENT_DELAY_DAYS.momo);
    });

    it('refuses a create below or above its market’s limits naming amount, with the limit, on both families', () => {
      const zambia = { currency: 'ZMW' as const, paymentMethod: 'mobile_money' as const, phoneNumber: '+260977000001' };
      expect(problemOf(() => resolveGenericPayment({ ...zambia, amount: 99 }))).to.deep.equal({
        code: 'validation_error',
        field: 'amount',
        message: 'amount must be at least 100: mobile_money_b takes 1.00 … 10000.00 ZMW in ZM',
      });
      expect(problemOf(() => resolveGenericPayment({ ...zambia, amount: 1_000_001 }))).to.deep.equal({
        code: 'validation_error',
        field: 'amount',
        message: 'amount must be at most 1000000: mobile_money_b takes 1.00 … 10000.00 ZMW in ZM',
      });
      for (const amount of [100, 1_000_000])
        expect(resolveGenericPayment({ ...zambia, amount }).provider).to.equal('mobile_money_b');
      const mtn = { amount: 1_000_001, currency: 'ZMW' as const, paymentMethod: 'mobile_money' as const };
      expect(problemOf(() => resolveGenericPayment({ ...mtn, phoneNumber: '+260966000001' }))).to.include({
        field: 'amount',
        message: 'amount must be at most 1000000: momo takes 1.00 … 10000.00 ZMW in ZM',
      });
      expect(
        problemOf(() =>
          resolveMerchantPayment({
            amount: '2499.00',
            currency: 'TZS',
            paymentMethod: 'mobile_money_b',
            phoneNumber: '+255683000001',
          }),
        ),
      ).to.deep.equal({
        code: 'validation_error',
        field: 'amount',
        message: 'amount must be at least "2500.00": mobile_money_b takes 2500.00 … 5000000.00 TZS in TZ',
      });
      // A fraction in a whole-units-only market is refused as such first; the first markets keep the service's limits.
      expect(
        problemOf(() =>
          resolveGenericPayment({ ...zambia, phoneNumber: '+255683000001', currency: 'TZS', amount: 150 }),
        ),
      )
        .to.include({ field: 'amount' })
        .and.satisfy((problem: { message: string }) => problem.message.startsWith('amount must be a whole number'));
      expect(
        resolveGenericPayment({
          amount: 1,
          currency: 'RWF',
          paymentMethod: 'mobile_money',
          phoneNumber: '+250788000001',
        }).provider,
      ).to.equal('momo');
    });

    it('shows the terms in docs/providers.md between its markers (UPDATE_STATE_TABLE=1 rewrites them)', () => {
      expectGeneratedSection('providers.md', 'market-terms', 'src/domain/markets.ts', marketTermsMarkdown());
    });
  });
});
