/**
 * The dashboard's CSV exports (README.md#dashboard) defuse formula cells by the same rule as the API's settlement
 * reports (docs/ledger.md#csv, OWASP's CSV injection guidance): a cell starting with `=`, `+`, `-`, `@`, a tab or a
 * carriage return gets a leading single quote, a plain decimal number is left alone.
 */
import { expect } from 'chai';
import { spreadsheetSafeCell } from '../../src/lib/csv';
import { csvCell } from '../../web/src/csv-cell';

const CELLS = [
  '=HYPERLINK("http://evil.example","x")',
  '=1+1',
  '@SUM(A1:A2)',
  '+1',
  '+250788123456',
  '-2+3',
  '\t=1',
  '\r=1',
  '-12.50',
  '1500',
  '-100',
  'Order 42',
  'pay_p0sQkd18Q2x0qPbK',
];

describe("the dashboard's CSV cells (README.md#dashboard)", () => {
  it("defuses exactly the cells the API's reports defuse, and quotes commas, quotes and line breaks", () => {
    for (const cell of CELLS) {
      const safe = spreadsheetSafeCell(cell);
      const quoted = /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
      expect(csvCell(cell), JSON.stringify(cell)).to.equal(quoted);
    }
    expect(csvCell('-2+3')).to.equal("'-2+3");
    expect(csvCell('\t=1')).to.equal("'\t=1");
    expect(csvCell('-12.50')).to.equal('-12.50');
    expect(csvCell(null)).to.equal('');
    expect(csvCell(-100)).to.equal('-100');
  });
});
