/**
 * CSV files a spreadsheet opens safely (docs/ledger.md#csv): RFC 4180 text written by csv-stringify (fields quoted
 * when they hold a comma, a quote or a line break; lines ended by CRLF), UTF-8 with a byte-order mark so spreadsheet
 * programs read it as UTF-8, and every cell that a spreadsheet would run as a formula defused as OWASP's CSV injection
 * guidance says.
 */
import { stringify } from 'csv-stringify/sync';

/** A plain decimal number, as our amount cells are: never a formula, so left as it is even with a leading `-`. */
const PLAIN_NUMBER = /^-?[0-9]+(\.[0-9]+)?$/;

/** What makes a spreadsheet read a cell as a formula (OWASP: `=`, `+`, `-`, `@`, tab, carriage return). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * `cell` made safe for a spreadsheet (docs/ledger.md#csv): a cell beginning with `=`, `+`, `-`, `@`, a tab or a
 * carriage return gets a leading single quote, so the spreadsheet shows it as text instead of running it; a plain
 * decimal number (`-12.50`) is left alone.
 */
export function spreadsheetSafeCell(cell: string): string {
  return FORMULA_START.test(cell) && !PLAIN_NUMBER.test(cell) ? `'${cell}` : cell;
}

/**
 * The CSV file of `header` and `rows` (docs/ledger.md#csv): a byte-order mark, the header, one line per row, CRLF line
 * ends, each cell through {@link spreadsheetSafeCell} (the header's too).
 * @param rows cells as text; a row shorter than the header leaves its last cells empty
 */
export function csvFile(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const records = [header, ...rows].map((row) => row.map(spreadsheetSafeCell));
  return stringify(records, { bom: true, record_delimiter: 'windows' });
}
