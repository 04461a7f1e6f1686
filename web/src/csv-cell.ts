/** One CSV cell of the dashboard's exports (README.md#dashboard), kept free of the DOM so the tests can load it. */

/** A plain decimal number, as amount cells are: never a formula, so left as it is even with a leading `-`. */
const PLAIN_NUMBER = /^-?[0-9]+(\.[0-9]+)?$/;

/**
 * What makes a spreadsheet read a cell as a formula (OWASP: `=`, `+`, `-`, `@`, tab, carriage return); the same rule as
 * the API's settlement reports (src/lib/csv.ts, docs/ledger.md#csv), which this package cannot import.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A CSV cell: quoted when it holds a comma, a quote or a line break; a cell a spreadsheet would run as a formula gets a
 * leading single quote (a plain decimal number such as `-12.50` is left alone).
 */
export function csvCell(value: string | number | null): string {
  let text = value === null ? '' : String(value);
  if (FORMULA_START.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
