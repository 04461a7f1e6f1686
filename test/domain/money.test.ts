import { expect } from 'chai';
import {
  formatDecimalAmount,
  formatMinorUnits,
  isValidMinorAmount,
  parseDecimalAmount,
  parseTypedAmount,
  percentageOfMinor,
} from '../../src/domain/money';
import { spreadsheetSafeCell } from '../../src/lib/csv';

describe('domain/money (docs/limits.md#amounts, docs/payments.md#fees)', () => {
  it('accepts integer minor units between 1 and 10^12 only', () => {
    expect(isValidMinorAmount(1)).to.equal(true);
    expect(isValidMinorAmount(1_000_000_000_000)).to.equal(true);
    expect(isValidMinorAmount(0)).to.equal(false);
    expect(isValidMinorAmount(-5)).to.equal(false);
    expect(isValidMinorAmount(1.5)).to.equal(false);
    expect(isValidMinorAmount(1_000_000_000_001)).to.equal(false);
  });

  it('parses two-decimal strings into minor units by the currency exponent', () => {
    expect(parseDecimalAmount('1500.00', 'RWF')).to.deep.equal({ ok: true, minor: 1500 });
    expect(parseDecimalAmount('12.34', 'USD')).to.deep.equal({ ok: true, minor: 1234 });
    expect(parseDecimalAmount('0.01', 'GHS')).to.deep.equal({ ok: true, minor: 1 });
  });

  it('refuses one or three decimals, signs, and non-zero decimals of a 0-decimal currency', () => {
    for (const bad of ['12.3', '12.345', '-1.00', '+1.00', '1e3', '12', '01.00', '']) {
      expect(parseDecimalAmount(bad, 'USD').ok, bad).to.equal(false);
    }
    expect(parseDecimalAmount('1500.50', 'RWF').ok).to.equal(false);
    expect(parseDecimalAmount('0.00', 'USD').ok).to.equal(false);
  });

  it('formats minor units back to two decimals', () => {
    expect(formatDecimalAmount(1500, 'RWF')).to.equal('1500.00');
    expect(formatDecimalAmount(1234, 'USD')).to.equal('12.34');
    expect(formatDecimalAmount(5, 'USD')).to.equal('0.05');
  });

  it("formats minor units in the currency's own exponent for reports, signs and leading zeros exact (docs/ledger.md#csv)", () => {
    expect(formatMinorUnits(1500, 'RWF')).to.equal('1500');
    expect(formatMinorUnits(-500, 'UGX')).to.equal('-500');
    expect(formatMinorUnits(0, 'KES')).to.equal('0.00');
    expect(formatMinorUnits(5, 'USD')).to.equal('0.05');
    expect(formatMinorUnits(-5, 'KES')).to.equal('-0.05');
    expect(formatMinorUnits(-150050, 'GHS')).to.equal('-1500.50');
    expect(formatMinorUnits(1_000_000_000_000, 'USD')).to.equal('10000000000.00');
    expect(() => formatMinorUnits(1.5, 'USD')).to.throw();
    expect(() => formatMinorUnits(1, 'XYZ')).to.throw();
  });

  it("defuses the cells a spreadsheet would run as formulas, OWASP's list, and leaves plain numbers alone (docs/ledger.md#csv)", () => {
    for (const cell of ['=1+1', '+1', '-2+3', '@SUM(A1)', '\tx', '\rx', '-', '=']) {
      expect(spreadsheetSafeCell(cell), JSON.stringify(cell)).to.equal(`'${cell}`);
    }
    for (const cell of ['-500', '-0.05', '1500.00', 'Order 1', '', "it's", 'a=b']) {
      expect(spreadsheetSafeCell(cell), cell).to.equal(cell);
    }
  });

  it('rounds percentages half-up to the minor unit (docs/payments.md#fees)', () => {
    expect(percentageOfMinor(1000, 290)).to.equal(29);
    expect(percentageOfMinor(50, 150)).to.equal(1); // 0.75 → 1
    expect(percentageOfMinor(10, 150)).to.equal(0); // 0.15 → 0
    expect(percentageOfMinor(100, 50)).to.equal(1); // 0.5 → 1 (half-up)
    expect(percentageOfMinor(1_000_000_000_000, 290)).to.equal(29_000_000_000);
  });

  it('reads an amount as a payer types it into integer minor units, in the currency exponent, never through a float', () => {
    const read = (text: string, currency: 'RWF' | 'KES') => parseTypedAmount(text, currency);
    expect(read('2500', 'RWF')).to.equal(2500);
    expect(read('2,500', 'RWF')).to.equal(2500);
    expect(read('2 500', 'RWF')).to.equal(2500);
    expect(read('RWF 2\u202f500', 'RWF')).to.equal(2500);
    expect(read('2.500,00', 'RWF')).to.equal(2500);
    expect(read('25.00', 'KES')).to.equal(2500);
    expect(read('25,5', 'KES')).to.equal(2550);
    expect(read('1.234,56', 'KES')).to.equal(123456);
    expect(read('0.10', 'KES')).to.equal(10);
    // A separator followed by exactly three digits groups thousands.
    expect(read('25.000', 'KES')).to.equal(2_500_000);
  });

  it('refuses what is not such an amount: nothing is guessed', () => {
    for (const [text, currency] of [
      ['', 'RWF'],
      ['-5', 'RWF'],
      ['1e3', 'RWF'],
      ['25.50', 'RWF'],
      ['2,50,000', 'RWF'],
      ['2.500.00', 'KES'],
      ['1,234.5,6', 'KES'],
      ['9999999999999999', 'RWF'],
      ['abc', 'KES'],
    ] as const)
      expect(parseTypedAmount(text, currency), `${text} ${currency}`).to.equal(undefined);
  });
});
