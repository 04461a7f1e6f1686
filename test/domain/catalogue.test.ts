import { expect } from 'chai';
import { GENERIC_CATALOGUE, MERCHANT_CATALOGUE, operatorForNumber } from '../../src/domain/catalogue';
import { resolveGenericPayment, resolveMerchantPayment } from '../../src/domain/create-payment';
import { parseMsisdn } from '../../src/domain/phone';
import { problemOf } from '../helpers/domain-errors';

describe('domain/catalogue (docs/payments.md#methods)', () => {
  it('holds list A for the generic endpoint and list B for the merchant-scoped one', () => {
    expect(GENERIC_CATALOGUE.mobile_money.map((o) => o.provider)).to.deep.equal([
      'momo',
      'mobile_money_b',
      'mpesa',
      'orange',
      'vodacom',
      'wave',
    ]);
    expect(GENERIC_CATALOGUE.card[0]?.currencies).to.deep.equal(['USD', 'EUR', 'GBP']);
    expect(MERCHANT_CATALOGUE.card_gateway.currencies).to.include('GHS');
    expect(MERCHANT_CATALOGUE.mobile_money_c).to.include({ provider: 'mobile_money_c' });
    expect(MERCHANT_CATALOGUE.mobile_money_c.countries).to.deep.equal(['LR']);
  });

  it('chooses the operator by the prefix table', () => {
    expect(operatorForNumber('RW', '788000001', ['momo', 'mobile_money_b'])).to.equal('momo');
    expect(operatorForNumber('RW', '728000001', ['momo', 'mobile_money_b'])).to.equal('mobile_money_b');
    expect(operatorForNumber('KE', '733000001', ['mobile_money_b', 'mpesa'])).to.equal('mobile_money_b');
    expect(operatorForNumber('KE', '712000001', ['mobile_money_b', 'mpesa'])).to.equal('mpesa');
    expect(operatorForNumber('KE', '770000001', ['mobile_money_b', 'mpesa'])).to.equal(undefined);
    // Vodacom Tanzania's 74, 75 and 76 choose Vodacom M-Pesa; another Tanzanian operator's number has no live one here.
    expect(operatorForNumber('TZ', '754000001', ['vodacom'])).to.equal('vodacom');
    expect(operatorForNumber('TZ', '764000001', ['vodacom'])).to.equal('vodacom');
    expect(operatorForNumber('TZ', '784000001', ['vodacom'])).to.equal(undefined);
    expect(operatorForNumber('RW', '618000001', ['momo', 'mobile_money_b'])).to.equal(undefined);
  });

  it('parses E.164 numbers and refuses other forms', () => {
    expect(parseMsisdn('+250788000001')).to.deep.equal({
      e164: '+250788000001',
      country: 'RW',
      nationalNumber: '788000001',
    });
    expect(parseMsisdn('0788000001')).to.equal(undefined);
    expect(parseMsisdn('+250 788 000 001')).to.equal(undefined);
    expect(parseMsisdn('+1')).to.equal(undefined);
  });
});

describe('domain/create-payment: list A rules (docs/payments.md#methods)', () => {
  const momo = {
    amount: 1500,
    currency: 'RWF' as const,
    paymentMethod: 'mobile_money' as const,
    phoneNumber: '+250788000001',
  };

  it('resolves a Rwandan 078 number to operator A', () => {
    expect(resolveGenericPayment(momo)).to.deep.equal({
      provider: 'momo',
      kind: 'mobile_money',
      customerPhone: '+250788000001',
      country: 'RW',
    });
  });

  it('reaches Wave, which claims no digits, only by naming it; its XOF in Senegal and Côte d’Ivoire', () => {
    const senegal = { amount: 5000, currency: 'XOF' as const, paymentMethod: 'mobile_money' as const };
    expect(resolveGenericPayment({ ...senegal, phoneNumber: '+221771234567', operator: 'wave' })).to.deep.equal({
      provider: 'wave',
      kind: 'mobile_money',
      customerPhone: '+221771234567',
      country: 'SN',
    });
    expect(resolveGenericPayment({ ...senegal, phoneNumber: '+2250701234567', operator: 'wave' }).country).to.equal(
      'CI',
    );
    // Free Senegal's 76: no operator we reach claims it (Orange claims 77 and 78).
    expect(problemOf(() => resolveGenericPayment({ ...senegal, phoneNumber: '+221761234567' }))).to.include({
      field: 'phone_number',
      message: 'no mobile money operator is known for this number prefix; name one in operator',
    });
    expect(
      problemOf(() => resolveGenericPayment({ ...senegal, phoneNumber: '+250788000001', operator: 'wave' })),
    ).to.include({ field: 'operator', message: 'wave does not serve RW' });
    expect(
      problemOf(() =>
        resolveGenericPayment({ ...senegal, currency: 'KES', phoneNumber: '+221771234567', operator: 'wave' }),
      ),
    ).to.include({ field: 'currency', message: 'currency KES is not supported by wave' });
  });

  it('honours an explicit provider', () => {
    expect(resolveGenericPayment({ ...momo, provider: 'mobile_money_b' }).provider).to.equal('mobile_money_b');
  });

  it('refuses KES for operator A in Rwanda, naming currency', () => {
    expect(problemOf(() => resolveGenericPayment({ ...momo, currency: 'KES' }))).to.include({
      code: 'validation_error',
      field: 'currency',
    });
  });

  it('refuses a country the method does not serve, naming phone_number', () => {
    const nigeria = problemOf(() => resolveGenericPayment({ ...momo, currency: 'RWF', phoneNumber: '+2348031234567' }));
    expect(nigeria).to.include({ code: 'validation_error', field: 'phone_number' });
    const ghanaOnB = problemOf(() =>
      resolveGenericPayment({ ...momo, currency: 'GHS', phoneNumber: '+233241234567', provider: 'mobile_money_b' }),
    );
    expect(ghanaOnB).to.include({ field: 'phone_number' });
  });

  it("refuses a currency that is not the wallet currency of the number's country", () => {
    expect(problemOf(() => resolveGenericPayment({ ...momo, currency: 'UGX' }))).to.include({ field: 'currency' });
  });

  it('requires a phone number for mobile money and an E.164 one', () => {
    expect(problemOf(() => resolveGenericPayment({ ...momo, phoneNumber: undefined }))).to.include({
      field: 'phone_number',
      message: 'phone_number is required for mobile_money',
    });
    expect(problemOf(() => resolveGenericPayment({ ...momo, phoneNumber: '07880' }))).to.include({
      field: 'phone_number',
    });
  });

  it('takes numbers as people write them, the country from the currency or `country`, and names the operator', () => {
    for (const phoneNumber of ['0788 000 001', '+250 788-000-001', '250788000001', '00250788000001', '(0788) 000.001'])
      expect(resolveGenericPayment({ ...momo, phoneNumber }), phoneNumber).to.include({
        provider: 'momo',
        customerPhone: '+250788000001',
      });
    const kenya = { ...momo, currency: 'KES' as const };
    expect(resolveGenericPayment({ ...kenya, phoneNumber: '0712 000 001' })).to.include({
      provider: 'mpesa',
      customerPhone: '+254712000001',
      country: 'KE',
    });
    expect(resolveGenericPayment({ ...kenya, phoneNumber: '0733-000-001' }).provider).to.equal('mobile_money_b');
    expect(
      resolveGenericPayment({ ...kenya, phoneNumber: '0712 000 001', operator: 'mobile_money_b' }).provider,
    ).to.equal('mobile_money_b');
    expect(resolveGenericPayment({ ...kenya, phoneNumber: '712000001', country: 'KE' }).provider).to.equal('mpesa');
  });

  it('refuses an unparseable number, a number of another country, and an operator that does not serve it', () => {
    const kenya = { ...momo, currency: 'KES' as const };
    expect(problemOf(() => resolveGenericPayment({ ...kenya, phoneNumber: 'call me' }))).to.include({
      field: 'phone_number',
    });
    expect(problemOf(() => resolveGenericPayment({ ...kenya, phoneNumber: '+250788000001' }))).to.include({
      field: 'currency',
    });
    expect(
      problemOf(() => resolveGenericPayment({ ...kenya, phoneNumber: '+250788000001', country: 'KE' })),
    ).to.include({ field: 'phone_number', message: 'phone_number is a number of RW, not of KE' });
    expect(problemOf(() => resolveGenericPayment({ ...momo, operator: 'mpesa' }))).to.include({
      field: 'operator',
      message: 'mpesa does not serve RW',
    });
    expect(problemOf(() => resolveGenericPayment({ ...momo, operator: 'mpesa', provider: 'momo' }))).to.include({
      field: 'operator',
    });
  });

  it('refuses a fraction of a shilling for M-Pesa, which takes whole units only, naming amount', () => {
    const mpesa = { amount: 15_050, currency: 'KES' as const, paymentMethod: 'mobile_money' as const };
    expect(problemOf(() => resolveGenericPayment({ ...mpesa, phoneNumber: '0712 000 001' }))).to.deep.equal({
      code: 'validation_error',
      field: 'amount',
      message: 'amount must be a whole number of KES for mpesa, which takes no fraction of a KES (e.g. 15000)',
    });
    expect(problemOf(() => resolveGenericPayment({ ...mpesa, amount: 50, phoneNumber: '0712 000 001' }))).to.include({
      field: 'amount',
      message: 'amount must be a whole number of KES for mpesa, which takes no fraction of a KES (e.g. 100)',
    });
    expect(resolveGenericPayment({ ...mpesa, amount: 15_000, phoneNumber: '0712 000 001' }).provider).to.equal('mpesa');
    // Airtel Kenya takes cents: the rule is M-Pesa's, not Kenya's.
    expect(resolveGenericPayment({ ...mpesa, phoneNumber: '0733 000 001' }).provider).to.equal('mobile_money_b');
    const merchant = { currency: 'KES' as const, paymentMethod: 'mpesa' as const, phoneNumber: '0712 000 001' };
    expect(problemOf(() => resolveMerchantPayment({ ...merchant, amount: '150.50' }))).to.include({
      field: 'amount',
      message: 'amount must be a whole number of KES for mpesa, which takes no fraction of a KES (e.g. "150.00")',
    });
    expect(resolveMerchantPayment({ ...merchant, amount: '150.00' }).amountMinor).to.equal(15_000);
  });

  it('refuses currencies card and bank transfer do not take', () => {
    expect(problemOf(() => resolveGenericPayment({ amount: 1, currency: 'RWF', paymentMethod: 'card' }))).to.include({
      field: 'currency',
    });
    expect(
      problemOf(() => resolveGenericPayment({ amount: 1, currency: 'USD', paymentMethod: 'bank_transfer' })),
    ).to.include({ field: 'currency' });
    expect(resolveGenericPayment({ amount: 1, currency: 'EUR', paymentMethod: 'card' }).provider).to.equal(
      'card_gateway',
    );
  });
});
